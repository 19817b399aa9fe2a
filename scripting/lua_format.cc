#include "scripting/lua_format.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <charconv>
#include <cmath>
#include <cstring>

#include "scripting/lua_support.h"

namespace sluice::scripting {
namespace {

// A result longer than this goes to Lua's own string.format.
constexpr size_t kMaxResult = 1024;

// What the replacement writes into, on the stack: no destructor for a Lua error to skip.
struct Result {
  char text[kMaxResult];
  size_t size = 0;

  bool Append(const char* bytes, size_t n) {
    if (n > kMaxResult - size) return false;
    std::memcpy(text + size, bytes, n);
    size += n;
    return true;
  }
  // Writes with `write(first, last)`, a to_chars over the free space; false if it did not fit.
  template <typename Writer>
  bool Write(Writer write) {
    const std::to_chars_result written = write(text + size, text + kMaxResult);
    if (written.ec != std::errc()) return false;
    size = static_cast<size_t>(written.ptr - text);
    return true;
  }
};

// sprintf("%ld", (long)n): the cast as Lua's compiled code makes it on x86-64, truncation
// toward zero and LONG_MIN out of range (LuaNumberToInteger, as replies convert numbers).
bool AppendInteger(lua_Number n, Result* out) {
  return out->Write(
      [n](char* first, char* last) { return std::to_chars(first, last, LuaNumberToInteger(n)); });
}

// sprintf("%.<precision>f", n). to_chars with a precision is specified as printf's in the C
// locale: the exact binary value, rounded to nearest with ties to even, as glibc's.
bool AppendFixed(lua_Number n, int precision, Result* out) {
  if (!std::isfinite(n)) return false;  // "inf", "-nan": Lua's own spells them
  return out->Write([n, precision](char* first, char* last) {
    return std::to_chars(first, last, n, std::chars_format::fixed, precision);
  });
}

// Lua 5.1 keeps a string of 100 bytes or more whole; a shorter one goes through sprintf's
// "%s", which stops at its first NUL byte.
bool AppendString(const char* s, size_t size, Result* out) {
  constexpr size_t kKeptWhole = 100;
  if (size < kKeptWhole) {
    if (const void* nul = std::memchr(s, '\0', size)) {
      size = static_cast<size_t>(static_cast<const char*>(nul) - s);
    }
  }
  return out->Append(s, size);
}

// Formats the conversion `conversion` (with `precision`, or -1 for none) of argument `arg`.
// False for anything Lua's own string.format should do.
bool AppendConversion(lua_State* L, char conversion, int precision, int arg, Result* out) {
  if (arg > lua_gettop(L)) return false;  // Lua's own names the missing argument
  switch (conversion) {
    case 'd':
    case 'i':
      return precision < 0 && lua_type(L, arg) == LUA_TNUMBER &&
             AppendInteger(lua_tonumber(L, arg), out);
    case 'f':
      return lua_type(L, arg) == LUA_TNUMBER &&
             AppendFixed(lua_tonumber(L, arg), precision < 0 ? 6 : precision, out);
    case 's': {
      // A number would be converted in place ("%.14g"): Lua's own does that.
      if (precision >= 0 || lua_type(L, arg) != LUA_TSTRING) return false;
      size_t size = 0;
      const char* s = lua_tolstring(L, arg, &size);
      return AppendString(s, size, out);
    }
    default:
      return false;
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Formats the whole call into *out, or returns false having changed nothing on the stack.
bool FormatAll(lua_State* L, Result* out) {
  if (lua_type(L, 1) != LUA_TSTRING) return false;
  size_t size = 0;
  const char* format = lua_tolstring(L, 1, &size);
  const char* at = format;
  const char* const end = format + size;
  int arg = 1;
  while (at < end) {
    const char* percent = static_cast<const char*>(std::memchr(at, '%', end - at));
    if (!out->Append(at, (percent == nullptr ? end : percent) - at)) return false;
    if (percent == nullptr) break;
    at = percent + 1;
    if (at == end) return false;  // a lone '%' at the end: Lua's own error
    if (*at == '%') {
      if (!out->Append("%", 1)) return false;
      ++at;
      continue;
    }
    // Only "%c" and "%.Nc" with at most two digits of precision, as Lua's scanformat allows;
    // flags, widths and longer precisions (an error) are Lua's own.
    int precision = -1;
    if (*at == '.') {
      precision = 0;
      for (int digits = 0; ++at < end && digits < 2 && IsDigit(*at); ++digits) {
        precision = precision * 10 + (*at - '0');
      }
      if (at == end) return false;
    }
    if (!AppendConversion(L, *at, precision, ++arg, out)) return false;
    ++at;
  }
  return true;
}

}  // namespace

int FastStringFormat(lua_State* L) {
  Result result;
  if (FormatAll(L, &result)) {
    lua_pushlstring(L, result.text, result.size);
    return 1;
  }
  // Lua's own, called as a C function in this call frame rather than through lua_call: its
  // argument errors then name the function the script called ('format'), as without us. (In
  // this frame lua_upvalueindex means our upvalues; Lua's str_format uses none.)
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

void ReplaceStringFormat(lua_State* L) {
  lua_getfield(L, -1, "format");
  lua_pushcclosure(L, FastStringFormat, 1);
  lua_setfield(L, -2, "format");
}

}  // namespace sluice::scripting
