#pragma once

// Internal to scripting/: the libraries Redis scripts rely on, written here (Debian's lua-cjson
// is linked as is). Each pushes its library table.
//   struct   - pack / unpack / size with Roberto Ierusalimschy's format, as in Redis, every
//              size and offset bounds-checked (lua_struct.cc)
//   cmsgpack - pack / unpack / unpack_one / unpack_limit, encoding through msgpack-c and a
//              bounds-checked decoder nested at most 1000 deep (lua_cmsgpack.cc)
//   bit      - LuaBitOp's API on 32-bit two's-complement integers (lua_bit.cc)

struct lua_State;

extern "C" int luaopen_cjson(lua_State* L);  // Debian's lua-cjson

namespace sluice::scripting {

int OpenStruct(lua_State* L);
int OpenCmsgpack(lua_State* L);
int OpenBit(lua_State* L);

}  // namespace sluice::scripting
