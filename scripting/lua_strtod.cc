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
//
// Built as an object library linked into sluiced and the test that holds it to glibc's
// results (tests/unit/scripting/lua_strtod_test.cc): an archive member defining a libc
// function could be left out by the linker.

#include <cstdint>
#include <cstdlib>

extern "C" double __strtod_internal(const char* text, char** end, int group);

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The longest run of digits in the integer part that a double always holds exactly.
constexpr int kMostExactDigits = 15;

}  // namespace

extern "C" double strtod(const char* text, char** end) noexcept {
  const char* p = text;
  const bool negative = *p == '-';
  if (negative) ++p;
  const char* const digits = p;
  uint64_t value = 0;
  while (IsDigit(*p) && p - digits <= kMostExactDigits) {
    value = value * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
  }
  const auto count = p - digits;
  // No digits (spaces, "+", "inf", ".5"), too many, or whatever might go on with the number
  // next (a decimal point, in any locale's spelling, an exponent, a hex prefix): glibc's.
  const auto next = static_cast<unsigned char>(*p);
  if (count == 0 || count > kMostExactDigits || next == '.' || next == ',' || next == 'e' ||
      next == 'E' || next == 'x' || next == 'X' || next >= 0x80) {
    return __strtod_internal(text, end, 0);
  }
  if (end != nullptr) *end = const_cast<char*>(p);
  const auto magnitude = static_cast<double>(value);
  return negative ? -magnitude : magnitude;  // "-0" is -0.0, as glibc reads it
}
