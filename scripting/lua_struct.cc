// struct: pack / unpack / size of binary records, the format of Roberto Ierusalimschy's struct
// library as Redis ships it:
//   > < native-order switches, ![n] alignment, x padding byte, b/B h/H l/L T i[n]/I[n] signed /
//   unsigned integers (n bytes, at most 32), f float, d double, s zero-terminated string,
//   c[n] n chars (pack: c0 = the whole string; unpack: c0 = the previous number as length).
// Every count and offset is checked before use (Redis's CVEs: integer overflow in sizes, reads
// past the data), and no size leads to an allocation that the data does not back.

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "scripting/lua_libs.h"

namespace sluice::scripting {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;  // max(alignment of double, sizeof(int)) on x86-64

struct Header {
  bool little = true;  // x86-64's native order
  int align = 1;
};

// A decimal count after an option, or `fallback` when there is none.
int ReadCount(lua_State* L, const char** fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return fallback;
  int value = 0;
  do {
    int digit = **fmt - '0';
    if (value > (INT_MAX / 10) || value * 10 > (INT_MAX - digit)) {
      luaL_error(L, "integral size overflow");
    }
    value = value * 10 + digit;
    ++*fmt;
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return value;
}

size_t OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return 2;
    case 'L':
    case 'l':
      return 8;
    case 'T':
      return 8;
    case 'f':
      return 4;
    case 'd':
      return 8;
    case 'x':
      return 1;
    case 'c':
      return static_cast<size_t>(ReadCount(L, fmt, 1));
    case 'i':
    case 'I': {
      int size = ReadCount(L, fmt, 4);
      if (size > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return static_cast<size_t>(size);
    }
    default:
      return 0;  // options that take no room
  }
}

size_t Padding(size_t offset, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = static_cast<size_t>(h.align);
  return (size - (offset & (size - 1))) & (size - 1);
}

void ControlOption(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->little = false;
      return;
    case '<':
      h->little = true;
      return;
    case '!': {
      int align = ReadCount(L, fmt, kMaxAlign);
      if (align <= 0 || (align & (align - 1)) != 0) {
        luaL_error(L, "alignment %d is not a power of 2", align);
      }
      h->align = align;
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

// A Lua number as the unsigned 64-bit pattern C's casts give on x86-64; out of range is 0.
uint64_t NumberBits(lua_Number n) {
  if (std::isnan(n)) return 0;
  if (n < 0) {
    if (n < -9223372036854775808.0) return 0;
    return static_cast<uint64_t>(static_cast<int64_t>(n));
  }
  if (n >= 18446744073709551616.0) return 0;
  return static_cast<uint64_t>(n);
}

void PutInteger(lua_State* L, luaL_Buffer* b, int arg, bool little, size_t size) {
  uint64_t value = NumberBits(luaL_checknumber(L, arg));
  char bytes[kMaxIntSize] = {0};
  for (size_t i = 0; i < size && i < 8; ++i) {
    bytes[little ? i : size - 1 - i] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
  luaL_addlstring(b, bytes, size);
}

void FixByteOrder(char* bytes, size_t size, bool little) {
  if (little) return;  // native on x86-64
  for (size_t i = 0, j = size - 1; i < j; ++i, --j) {
    char t = bytes[i];
    bytes[i] = bytes[j];
    bytes[j] = t;
  }
}

// 'f' (T = float) and 'd' (T = double): the number's bytes in the requested order.
template <typename T>
void PutFloat(lua_State* L, luaL_Buffer* b, int arg, bool little) {
  const auto value = static_cast<T>(luaL_checknumber(L, arg));
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  FixByteOrder(bytes, sizeof(T), little);
  luaL_addlstring(b, bytes, sizeof(T));
}

template <typename T>
lua_Number GetFloat(const char* data, bool little) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, data, sizeof(T));
  FixByteOrder(bytes, sizeof(T), little);
  T value = 0;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

int StructPack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // keeps the arguments apart from the buffer's stack use
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    size_t pad = Padding(total, h, opt, size);
    total += pad;
    for (; pad > 0; --pad) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        PutInteger(L, &b, arg++, h.little, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f':
        PutFloat<float>(L, &b, arg++, h.little);
        break;
      case 'd':
        PutFloat<double>(L, &b, arg++, h.little);
        break;
      case 'c':
      case 's': {
        size_t len = 0;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;
        luaL_argcheck(L, len >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

lua_Number GetInteger(const char* bytes, bool little, bool is_signed, size_t size) {
  uint64_t value = 0;
  // Only the 8 least significant bytes fit; larger sizes keep those.
  for (size_t i = 0; i < size; ++i) {
    size_t at = little ? size - 1 - i : i;
    value = (value << 8) | static_cast<unsigned char>(bytes[at]);
  }
  if (!is_signed) return static_cast<lua_Number>(value);
  if (size == 0) return 0;
  if (size < 8) {
    uint64_t sign = uint64_t{1} << (size * 8 - 1);
    if (value & sign) value |= ~((sign << 1) - 1);  // sign extension
  }
  return static_cast<lua_Number>(static_cast<int64_t>(value));
}

// True when `size` bytes at `pos` lie inside data of length `len` (no overflow possible).
bool Fits(size_t pos, size_t size, size_t len) { return size <= len && pos <= len - size; }

int StructUnpack(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t len = 0;
  const char* data = luaL_checklstring(L, 2, &len);
  // As Redis's lua_struct, the offset is read into a size_t: a negative one wraps to a huge
  // position, which the first option finds past the data ("data string too short").
  auto pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  --pos;
  int results = 0;
  lua_settop(L, 2);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    size_t pad = Padding(pos, h, opt, size);
    luaL_argcheck(L, pad <= len && pos <= len - pad, 2, "data string too short");
    pos += pad;
    luaL_argcheck(L, Fits(pos, size, len), 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");  // this value and the final position
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(L, GetInteger(data + pos, h.little, std::islower(opt) != 0, size));
        ++results;
        break;
      case 'x':
        break;
      case 'f':
        lua_pushnumber(L, GetFloat<float>(data + pos, h.little));
        ++results;
        break;
      case 'd':
        lua_pushnumber(L, GetFloat<double>(data + pos, h.little));
        ++results;
        break;
      case 'c': {
        if (size == 0) {
          if (results == 0 || !lua_isnumber(L, -1)) {
            luaL_error(L, "format 'c0' needs a previous size");
          }
          lua_Number n = lua_tonumber(L, -1);
          lua_pop(L, 1);
          --results;
          luaL_argcheck(L, n >= 0 && n <= static_cast<lua_Number>(len), 2, "data string too short");
          size = static_cast<size_t>(n);
          luaL_argcheck(L, Fits(pos, size, len), 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        ++results;
        break;
      }
      case 's': {
        const void* end = std::memchr(data + pos, '\0', len - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(static_cast<const char*>(end) - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        ++results;
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return results + 1;
}

int Size(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t pos = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += Padding(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) ControlOption(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int OpenStruct(lua_State* L) {
  const luaL_Reg functions[] = {
      {"pack", StructPack}, {"unpack", StructUnpack}, {"size", Size}, {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  return 1;
}

}  // namespace sluice::scripting
