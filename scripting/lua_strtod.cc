// strtod for the whole process, so that Lua's number conversions take it.
//
// Lua 5.1 turns every numeric string it meets into a number through strtod (lua_str2number):
// tonumber(ARGV[1]), and arithmetic on redis.call('TIME')'s strings, which limiter scripts do
// on every call. glibc reads even "1764698000" through its multi-precision path, about 750
// instructions (9% to 13% of a limiter script's call under callgrind). This definition, in
// the executable, comes before libc's in the dynamic linker's search order, so the Lua
// library's calls bind to it too, as allocators replace malloc. It reads a plain decimal
// integer of at most 15 digits itself (exact in a double) and hands everything else to
// glibc's strtod (__strtod_internal, the same function under its exported internal name).
// The integer reading is common/plain_integer.h's, which the commands' parsers share.
//
// Built as an object library linked into sluiced and the test that holds it to glibc's
// results (tests/unit/scripting/lua_strtod_test.cc): an archive member defining a libc
// function could be left out by the linker.

#include <cstdint>
#include <cstdlib>

#include "common/plain_integer.h"

extern "C" double __strtod_internal(const char* text, char** end, int group);

extern "C" double strtod(const char* text, char** end) noexcept {
  double value = 0;
  const size_t read = sluice::ReadPlainInteger(text, SIZE_MAX, &value);
  // No plain integer (spaces, "+", "inf", ".5", 16 digits), or whatever might go on with the
  // number next (a decimal point, in any locale's spelling, an exponent, a hex prefix): glibc's.
  const auto next = static_cast<unsigned char>(text[read]);
  if (read == 0 || next == '.' || next == ',' || next == 'e' || next == 'E' || next == 'x' ||
      next == 'X' || next >= 0x80) {
    return __strtod_internal(text, end, 0);
  }
  if (end != nullptr) *end = const_cast<char*>(text + read);
  return value;
}

// The same function under a name of its own, so that a test can tell it from libc's strtod
// (tests/unit/scripting/lua_strtod_test.cc).
extern "C" double sluice_strtod(const char* text, char** end) noexcept
    __attribute__((nonnull(1), alias("strtod")));  // nonnull: as glibc declares strtod
