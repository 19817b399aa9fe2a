// bit: LuaBitOp's API (bit.tobit, tohex, bnot, band, bor, bxor, lshift, rshift, arshift, rol,
// ror, bswap). Numbers become 32-bit integers the way BitOp does it: rounded to the nearest
// integer and taken modulo 2^32; results are signed 32-bit numbers. tohex clamps its digit
// count, so bit.tohex(x, -2147483648) cannot overrun (Redis's CVE-2024-31449).

#include <cmath>
#include <cstdint>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "scripting/lua_libs.h"

namespace sluice::scripting {
namespace {

uint32_t ToBits(lua_State* L, int index) {
  lua_Number n = luaL_checknumber(L, index);
  // Adding 2^52 + 2^51 leaves the integer part, rounded to nearest-even, in the low mantissa
  // bits: BitOp's normalization, exact for every double that fits.
  double shifted = n + 6755399441055744.0;
  uint64_t bits = 0;
  static_assert(sizeof(bits) == sizeof(shifted));
  __builtin_memcpy(&bits, &shifted, sizeof(bits));
  return static_cast<uint32_t>(bits);
}

int PushBits(lua_State* L, uint32_t b) {
  lua_pushnumber(L, static_cast<lua_Number>(static_cast<int32_t>(b)));
  return 1;
}

int ToBit(lua_State* L) { return PushBits(L, ToBits(L, 1)); }
int BitNot(lua_State* L) { return PushBits(L, ~ToBits(L, 1)); }

int BitAnd(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b &= ToBits(L, i);
  return PushBits(L, b);
}

int BitOr(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b |= ToBits(L, i);
  return PushBits(L, b);
}

int BitXor(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) b ^= ToBits(L, i);
  return PushBits(L, b);
}

int LeftShift(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  uint32_t n = ToBits(L, 2) & 31;
  return PushBits(L, b << n);
}

int RightShift(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  uint32_t n = ToBits(L, 2) & 31;
  return PushBits(L, b >> n);
}

int ArithmeticRightShift(lua_State* L) {
  auto b = static_cast<int32_t>(ToBits(L, 1));
  uint32_t n = ToBits(L, 2) & 31;
  // >> on a negative int is arithmetic in C++20.
  return PushBits(L, static_cast<uint32_t>(b >> n));
}

int RotateLeft(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  uint32_t n = ToBits(L, 2) & 31;
  return PushBits(L, n == 0 ? b : (b << n) | (b >> (32 - n)));
}

int RotateRight(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  uint32_t n = ToBits(L, 2) & 31;
  return PushBits(L, n == 0 ? b : (b >> n) | (b << (32 - n)));
}

int ByteSwap(lua_State* L) { return PushBits(L, __builtin_bswap32(ToBits(L, 1))); }

int ToHex(lua_State* L) {
  uint32_t b = ToBits(L, 1);
  int64_t n = lua_isnone(L, 2) ? 8 : static_cast<int32_t>(ToBits(L, 2));
  const char* digits = "0123456789abcdef";
  if (n < 0) {
    n = -n;  // 64-bit: -INT32_MIN does not overflow
    digits = "0123456789ABCDEF";
  }
  if (n > 8) n = 8;
  char buf[8];
  for (int64_t i = n - 1; i >= 0; --i) {
    buf[i] = digits[b & 15];
    b >>= 4;
  }
  lua_pushlstring(L, buf, static_cast<size_t>(n));
  return 1;
}

}  // namespace

int OpenBit(lua_State* L) {
  const luaL_Reg functions[] = {{"tobit", ToBit},       {"bnot", BitNot},
                                {"band", BitAnd},       {"bor", BitOr},
                                {"bxor", BitXor},       {"lshift", LeftShift},
                                {"rshift", RightShift}, {"arshift", ArithmeticRightShift},
                                {"rol", RotateLeft},    {"ror", RotateRight},
                                {"bswap", ByteSwap},    {"tohex", ToHex},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  return 1;
}

}  // namespace sluice::scripting
