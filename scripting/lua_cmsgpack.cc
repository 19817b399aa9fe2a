// cmsgpack: MessagePack for Lua as Redis's lua-cmsgpack 0.4 does it.
//   pack(v1, ...)               the encodings of every argument, concatenated
//   unpack(s)                   every value in s
//   unpack_one(s [, offset])    next offset (-1 at the end), then one value
//   unpack_limit(s, n [, off])  next offset, then up to n values
// Encoding (msgpack-c's packer): integral numbers as the smallest integer format, others as
// float32 when exact, else float64; strings as str (fixstr / str8 / str16 / str32); tables whose
// keys are exactly 1..n as arrays, others as maps; tables nested deeper than 16 as nil (Redis's
// cap, which also stops cycles); anything else as nil. Decoding is a bounds-checked cursor that
// never allocates from a declared count (a 5-byte header cannot reserve gigabytes), nests at most
// 1000 deep, and fails with Redis's "Missing bytes in input." / "Bad data format in input.".

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <msgpack.h>

#include "scripting/lua_libs.h"
#include "scripting/lua_support.h"

namespace sluice::scripting {
namespace {

constexpr int kMaxPackNesting = 16;
constexpr int kMaxUnpackNesting = 1000;

// ------------------------------------------------------------------------------ encoding
// The encoder reads Lua values without any call that can raise (stack room is reserved up
// front, lua_next / lua_rawgeti / lua_tolstring on strings do not allocate), so the C++ output
// buffer is never skipped by a longjmp.

int AppendToString(void* data, const char* buf, size_t len) {
  static_cast<std::string*>(data)->append(buf, len);
  return 0;
}

bool IsInt64(lua_Number n) {
  return std::isfinite(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
         static_cast<lua_Number>(static_cast<int64_t>(n)) == n;
}

bool IsIntIndex(lua_Number n) {
  return std::isfinite(n) && n >= INT32_MIN && n <= INT32_MAX &&
         static_cast<lua_Number>(static_cast<int>(n)) == n;
}

// Keys exactly 1..n with no holes (Redis's table_is_an_array).
bool TableIsArray(lua_State* L) {
  int top = lua_gettop(L);
  int64_t count = 0;
  lua_Number max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    lua_Number n = 0;
    if (lua_type(L, -1) != LUA_TNUMBER || (n = lua_tonumber(L, -1)) <= 0 || !IsIntIndex(n)) {
      lua_settop(L, top);
      return false;
    }
    if (n > max) max = n;
    ++count;
  }
  lua_settop(L, top);
  return max == static_cast<lua_Number>(count);
}

void EncodeValue(lua_State* L, msgpack_packer* pk, int level);

void EncodeTable(lua_State* L, msgpack_packer* pk, int level) {
  if (TableIsArray(L)) {
    size_t len = lua_objlen(L, -1);
    msgpack_pack_array(pk, len);
    for (size_t j = 1; j <= len; ++j) {
      lua_rawgeti(L, -1, static_cast<int>(j));
      EncodeValue(L, pk, level + 1);
    }
    return;
  }
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    ++count;
  }
  msgpack_pack_map(pk, count);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    EncodeValue(L, pk, level + 1);  // the key copy
    EncodeValue(L, pk, level + 1);  // the value
  }
}

// Encodes the value on top of the stack and pops it.
void EncodeValue(lua_State* L, msgpack_packer* pk, int level) {
  int type = lua_type(L, -1);
  if (type == LUA_TTABLE && level == kMaxPackNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      msgpack_pack_str(pk, len);
      msgpack_pack_str_body(pk, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      if (lua_toboolean(L, -1)) {
        msgpack_pack_true(pk);
      } else {
        msgpack_pack_false(pk);
      }
      break;
    case LUA_TNUMBER: {
      lua_Number n = lua_tonumber(L, -1);
      if (IsInt64(n)) {
        msgpack_pack_int64(pk, static_cast<int64_t>(n));
      } else if (static_cast<double>(static_cast<float>(n)) == n) {
        msgpack_pack_float(pk, static_cast<float>(n));
      } else {
        msgpack_pack_double(pk, n);
      }
      break;
    }
    case LUA_TTABLE:
      EncodeTable(L, pk, level);
      break;
    default:
      msgpack_pack_nil(pk);
      break;
  }
  lua_pop(L, 1);
}

struct PackedBytes {
  const std::string* bytes;
};

void PushPacked(lua_State* L, void* ud) {
  const std::string& bytes = *static_cast<PackedBytes*>(ud)->bytes;
  lua_pushlstring(L, bytes.data(), bytes.size());
}

int Pack(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  // Room for the deepest encoding (at most 5 slots per level) so no push below grows the stack.
  luaL_checkstack(L, 5 * kMaxPackNesting + 16, "too many nested tables");
  bool pushed = false;
  {
    std::string out;
    msgpack_packer pk;
    msgpack_packer_init(&pk, &out, AppendToString);
    for (int i = 1; i <= argc; ++i) {
      lua_pushvalue(L, i);
      EncodeValue(L, &pk, 0);
    }
    PackedBytes packed{&out};
    pushed = ProtectedPush(L, PushPacked, &packed);
  }
  if (!pushed) return lua_error(L);
  return 1;
}

// ------------------------------------------------------------------------------ decoding
// Plain C data only below: Lua may raise (allocation, a nil map key) at any push.

struct Cursor {
  const unsigned char* p;
  size_t left;
  enum Error { kNone, kEof, kBadFormat } error = kNone;

  bool Need(size_t n) {
    if (left < n) {
      error = kEof;
      return false;
    }
    return true;
  }
  void Skip(size_t n) {
    p += n;
    left -= n;
  }
  uint64_t BigEndian(size_t offset, size_t n) const {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | p[offset + i];
    return v;
  }
};

void DecodeValue(lua_State* L, Cursor* c, int depth);

void DecodeString(lua_State* L, Cursor* c, size_t header, size_t len) {
  if (!c->Need(header) || c->left - header < len) {
    c->error = Cursor::kEof;
    return;
  }
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p + header), len);
  c->Skip(header + len);
}

void DecodeArray(lua_State* L, Cursor* c, size_t header, uint64_t len, int depth) {
  c->Skip(header);
  if (len > c->left) {  // every element takes at least one byte
    c->error = Cursor::kEof;
    return;
  }
  lua_newtable(L);
  for (uint64_t i = 1; i <= len; ++i) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    DecodeValue(L, c, depth + 1);
    if (c->error != Cursor::kNone) return;
    lua_settable(L, -3);
  }
}

void DecodeMap(lua_State* L, Cursor* c, size_t header, uint64_t len, int depth) {
  c->Skip(header);
  if (len > c->left / 2) {  // every pair takes at least two bytes
    c->error = Cursor::kEof;
    return;
  }
  lua_newtable(L);
  for (uint64_t i = 0; i < len; ++i) {
    DecodeValue(L, c, depth + 1);  // key
    if (c->error != Cursor::kNone) return;
    DecodeValue(L, c, depth + 1);  // value
    if (c->error != Cursor::kNone) return;
    lua_settable(L, -3);
  }
}

void DecodeValue(lua_State* L, Cursor* c, int depth) {
  if (!c->Need(1)) return;
  if (depth > kMaxUnpackNesting) {
    c->error = Cursor::kBadFormat;
    return;
  }
  luaL_checkstack(L, 3, "too many return values at once; use unpack_one or unpack_limit instead.");
  unsigned char tag = c->p[0];
  auto push_int = [&](size_t n, bool is_signed) {
    if (!c->Need(1 + n)) return;
    uint64_t v = c->BigEndian(1, n);
    if (is_signed && n < 8 && (v >> (8 * n - 1)) != 0) v |= ~uint64_t{0} << (8 * n);
    // Like Redis on Lua 5.1, unsigned 64-bit values go through a signed integer.
    lua_pushnumber(L, static_cast<lua_Number>(static_cast<int64_t>(v)));
    c->Skip(1 + n);
  };
  switch (tag) {
    case 0xcc:
      push_int(1, false);
      return;
    case 0xcd:
      push_int(2, false);
      return;
    case 0xce:
      push_int(4, false);
      return;
    case 0xcf:
      push_int(8, false);
      return;
    case 0xd0:
      push_int(1, true);
      return;
    case 0xd1:
      push_int(2, true);
      return;
    case 0xd2:
      push_int(4, true);
      return;
    case 0xd3:
      push_int(8, true);
      return;
    case 0xc0:
      lua_pushnil(L);
      c->Skip(1);
      return;
    case 0xc2:
      lua_pushboolean(L, 0);
      c->Skip(1);
      return;
    case 0xc3:
      lua_pushboolean(L, 1);
      c->Skip(1);
      return;
    case 0xca: {
      if (!c->Need(5)) return;
      auto bits = static_cast<uint32_t>(c->BigEndian(1, 4));
      float f = 0;
      std::memcpy(&f, &bits, sizeof(f));
      lua_pushnumber(L, f);
      c->Skip(5);
      return;
    }
    case 0xcb: {
      if (!c->Need(9)) return;
      uint64_t bits = c->BigEndian(1, 8);
      double d = 0;
      std::memcpy(&d, &bits, sizeof(d));
      lua_pushnumber(L, d);
      c->Skip(9);
      return;
    }
    case 0xd9:  // str8 (bin and ext types are Redis's "Bad data format")
      if (c->Need(2)) DecodeString(L, c, 2, c->BigEndian(1, 1));
      return;
    case 0xda:  // str16
      if (c->Need(3)) DecodeString(L, c, 3, c->BigEndian(1, 2));
      return;
    case 0xdb:  // str32
      if (c->Need(5)) DecodeString(L, c, 5, c->BigEndian(1, 4));
      return;
    case 0xdc:
      if (c->Need(3)) DecodeArray(L, c, 3, c->BigEndian(1, 2), depth);
      return;
    case 0xdd:
      if (c->Need(5)) DecodeArray(L, c, 5, c->BigEndian(1, 4), depth);
      return;
    case 0xde:
      if (c->Need(3)) DecodeMap(L, c, 3, c->BigEndian(1, 2), depth);
      return;
    case 0xdf:
      if (c->Need(5)) DecodeMap(L, c, 5, c->BigEndian(1, 4), depth);
      return;
    default:
      break;
  }
  if ((tag & 0x80) == 0) {  // positive fixnum
    lua_pushnumber(L, tag);
    c->Skip(1);
  } else if ((tag & 0xe0) == 0xe0) {  // negative fixnum
    lua_pushnumber(L, static_cast<signed char>(tag));
    c->Skip(1);
  } else if ((tag & 0xe0) == 0xa0) {  // fixraw
    DecodeString(L, c, 1, tag & 0x1f);
  } else if ((tag & 0xf0) == 0x90) {  // fixarray
    DecodeArray(L, c, 1, tag & 0x0f, depth);
  } else if ((tag & 0xf0) == 0x80) {  // fixmap
    DecodeMap(L, c, 1, tag & 0x0f, depth);
  } else {
    c->error = Cursor::kBadFormat;
  }
}

// Decodes up to `limit` values from byte `offset` (limit 0 and offset 0: all, no offset
// result). Stack: the string at 1.
int UnpackFull(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  bool decode_all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<size_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  if (decode_all) limit = INT32_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    DecodeValue(L, &c, 0);
    if (c.error == Cursor::kEof) return luaL_error(L, "Missing bytes in input.");
    if (c.error == Cursor::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (!decode_all) {
    lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left));
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int Unpack(lua_State* L) { return UnpackFull(L, 0, 0); }

int UnpackOne(lua_State* L) {
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return UnpackFull(L, 1, offset);
}

int UnpackLimit(lua_State* L) {
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return UnpackFull(L, limit, offset);
}

}  // namespace

int OpenCmsgpack(lua_State* L) {
  const luaL_Reg functions[] = {{"pack", Pack},
                                {"unpack", Unpack},
                                {"unpack_one", UnpackOne},
                                {"unpack_limit", UnpackLimit},
                                {nullptr, nullptr}};
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  lua_pushliteral(L, "cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushliteral(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace sluice::scripting
