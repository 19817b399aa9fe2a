#include "scripting/sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <algorithm>
#include <cstring>
#include <string>

#include "scripting/lua_format.h"
#include "scripting/lua_libs.h"
#include "scripting/lua_support.h"
#include "scripting/redis_api.h"
#include "scripting/run_state.h"

namespace sluice::scripting {
namespace {

// Registry keys (addresses of these objects as light userdata).
const char kProxyToRealKey = 0;  // proxy -> the table it fronts
const char kRealToProxyKey = 0;  // protected real table -> its proxy
const char kMetaViewKey = 0;     // proxy -> what getmetatable(proxy) returns
const char kRealGlobalsKey = 0;  // the real globals table (KEYS, ARGV are set there)
const char kLibraryApiKey = 0;   // the globals a library's code sees while FUNCTION LOAD runs it

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

void PushRegistryTable(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_rawget(L, LUA_REGISTRYINDEX);
}

void NewRegistryTable(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

int Absolute(lua_State* L, int index) {
  return index > 0 || index <= LUA_REGISTRYINDEX ? index : lua_gettop(L) + index + 1;
}

// Wrapped builtins get the proxy -> real map as upvalue 1.
bool IsProxy(lua_State* L, int index) {
  lua_pushvalue(L, index);
  lua_rawget(L, lua_upvalueindex(1));
  bool proxy = !lua_isnil(L, -1);
  lua_pop(L, 1);
  return proxy;
}

// Replaces a proxy at `index` by the table it fronts.
void SeeThrough(lua_State* L, int index) {
  lua_pushvalue(L, index);
  lua_rawget(L, lua_upvalueindex(1));
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
  } else {
    lua_replace(L, index);
  }
}

// From a C function, as Redis's patched Lua raises it: no source position.
int RaiseReadonly(lua_State* L) {
  lua_pushstring(L, kReadonlyError);
  return lua_error(L);
}

// __newindex of every proxy: raised for the script's line ("user_script:1: Attempt ...").
int ReadonlyNewIndex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

// __index of the real globals: the only way to read a name that is not there.
int MissingGlobal(lua_State* L) {
  if (lua_gettop(L) != 2)
    return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
  if (!lua_isstring(L, -1) && !lua_isnumber(L, -1)) {
    return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, -1));
}

int SafeRawGet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  SeeThrough(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int SafeRawSet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  if (IsProxy(L, 1)) return RaiseReadonly(L);
  lua_rawset(L, 1);
  return 1;
}

int SafeNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  SeeThrough(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

// Upvalue 2: SafeNext.
int SafePairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Upvalues 2 and 3: the real -> proxy map and the proxy -> metatable view map.
int SafeGetMetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (IsProxy(L, 1)) {
    lua_settop(L, 1);
    lua_rawget(L, lua_upvalueindex(3));
    return 1;
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  if (luaL_getmetafield(L, 1, "__metatable")) return 1;
  // A protected metatable (the string one) is shown through its proxy.
  lua_pushvalue(L, -1);
  lua_rawget(L, lua_upvalueindex(2));
  if (lua_isnil(L, -1)) lua_pop(L, 1);
  return 1;
}

int SafeSetMetatable(lua_State* L) {
  int type = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table expected");
  if (luaL_getmetafield(L, 1, "__metatable")) {
    return luaL_error(L, "cannot change a protected metatable");
  }
  if (IsProxy(L, 1)) return RaiseReadonly(L);
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// table.insert, refusing proxies before writing anything.
int SafeTableInsert(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int end = static_cast<int>(lua_objlen(L, 1)) + 1;  // the first empty slot
  int pos = end;
  switch (lua_gettop(L)) {
    case 2:
      break;
    case 3:
      pos = luaL_checkint(L, 2);
      if (pos > end) end = pos;
      break;
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  if (IsProxy(L, 1)) return RaiseReadonly(L);
  for (int i = end; i > pos; --i) {  // shift up to make room
    lua_rawgeti(L, 1, i - 1);
    lua_rawseti(L, 1, i);
  }
  lua_rawseti(L, 1, pos);
  return 0;
}

// What load and loadstring return: the function, or nil and the message.
int LoadResult(lua_State* L, int status) {
  if (status == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// Lua's collectgarbage, noting the options whose effect outlasts the script: the engine puts
// the collector back to Lua's defaults after such a run (and only then: restarting it after
// every run would start a new cycle each time, so that it never paused).
int CollectGarbage(lua_State* L) {
  static const char* const kOptions[] = {"stop", "restart",  "collect",    "count",
                                         "step", "setpause", "setstepmul", nullptr};
  static constexpr int kWhat[] = {LUA_GCSTOP, LUA_GCRESTART,  LUA_GCCOLLECT,   LUA_GCCOUNT,
                                  LUA_GCSTEP, LUA_GCSETPAUSE, LUA_GCSETSTEPMUL};
  const int what = kWhat[luaL_checkoption(L, 1, "collect", kOptions)];
  const int result = lua_gc(L, what, luaL_optint(L, 2, 0));
  switch (what) {
    case LUA_GCCOUNT:  // kilobytes, with the bytes past the last whole one as a fraction
      lua_pushnumber(L, result + lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
      break;
    case LUA_GCSTEP:  // whether the step ended a cycle
      lua_pushboolean(L, result);
      break;
    case LUA_GCSTOP:
    case LUA_GCSETPAUSE:
    case LUA_GCSETSTEPMUL:
      if (RunState* state = RunStateOf(L)) state->collector_changed = true;
      [[fallthrough]];
    default:
      lua_pushnumber(L, result);
  }
  return 1;
}

bool IsBytecode(const char* chunk, size_t len) { return len > 0 && chunk[0] == LUA_SIGNATURE[0]; }

int SafeLoadString(lua_State* L) {
  size_t len = 0;
  const char* chunk = luaL_checklstring(L, 1, &len);
  const char* name = luaL_optstring(L, 2, chunk);
  if (IsBytecode(chunk, len)) {
    lua_pushnil(L);
    PushBytecodeError(L, name, std::strlen(name));
    return 2;
  }
  return LoadResult(L, luaL_loadbuffer(L, chunk, len, name));
}

// load(reader [, name]): the pieces are gathered first so a bytecode chunk can be refused.
int SafeLoad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, 2);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) {
      lua_pop(L, 1);
      luaL_pushresult(&buffer);
      lua_pushnil(L);
      lua_pushliteral(L, "reader function must return a string");
      return 2;
    }
    size_t piece_len = 0;
    lua_tolstring(L, -1, &piece_len);
    if (piece_len == 0) {
      lua_pop(L, 1);
      break;
    }
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  size_t len = 0;
  const char* chunk = lua_tolstring(L, -1, &len);
  if (IsBytecode(chunk, len)) {
    lua_pushnil(L);
    PushBytecodeError(L, name, std::strlen(name));
    return 2;
  }
  return LoadResult(L, luaL_loadbuffer(L, chunk, len, name));
}

// Pushes a read-only proxy of the table at `index` and records it in both maps.
void PushProxy(lua_State* L, int index) {
  index = Absolute(L, index);
  lua_newtable(L);  // the proxy: always empty
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  int proxy = lua_gettop(L);

  PushRegistryTable(L, &kProxyToRealKey);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, index);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  PushRegistryTable(L, &kRealToProxyKey);
  lua_pushvalue(L, index);
  lua_pushvalue(L, proxy);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Replaces globals[name] (a table) by its proxy.
void ProtectGlobal(lua_State* L, const char* name) {
  lua_getfield(L, LUA_GLOBALSINDEX, name);
  PushProxy(L, -1);
  lua_setfield(L, LUA_GLOBALSINDEX, name);
  lua_pop(L, 1);
}

void SetWrapped(lua_State* L, int table, const char* name, lua_CFunction fn, int upvalues) {
  table = Absolute(L, table);
  lua_pushcclosure(L, fn, upvalues);
  lua_setfield(L, table, name);
}

void OpenLibraries(lua_State* L) {
  const luaL_Reg standard[] = {{"", luaopen_base},
                               {LUA_TABLIBNAME, luaopen_table},
                               {LUA_STRLIBNAME, luaopen_string},
                               {LUA_MATHLIBNAME, luaopen_math}};
  for (const luaL_Reg& lib : standard) {
    lua_pushcfunction(L, lib.func);
    lua_pushstring(L, lib.name);
    lua_call(L, 1, 0);
  }
  const luaL_Reg extra[] = {{"cjson", luaopen_cjson},
                            {"struct", OpenStruct},
                            {"cmsgpack", OpenCmsgpack},
                            {"bit", OpenBit}};
  for (const luaL_Reg& lib : extra) {
    lua_pushcfunction(L, lib.func);
    lua_call(L, 0, 1);
    lua_setfield(L, LUA_GLOBALSINDEX, lib.name);
  }
  // Redis removes what reaches files, the environment of functions, or prints to stdout.
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setfield(L, LUA_GLOBALSINDEX, name);
  }
}

void InstallWrappedBuiltins(lua_State* L) {
  PushRegistryTable(L, &kProxyToRealKey);
  int to_real = lua_gettop(L);
  lua_pushvalue(L, to_real);
  SetWrapped(L, LUA_GLOBALSINDEX, "rawget", SafeRawGet, 1);
  lua_pushvalue(L, to_real);
  SetWrapped(L, LUA_GLOBALSINDEX, "rawset", SafeRawSet, 1);
  lua_pushvalue(L, to_real);
  lua_pushcclosure(L, SafeNext, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_GLOBALSINDEX, "next");
  lua_pushvalue(L, to_real);
  lua_insert(L, -2);  // upvalues: map, next
  SetWrapped(L, LUA_GLOBALSINDEX, "pairs", SafePairs, 2);
  lua_pushvalue(L, to_real);
  PushRegistryTable(L, &kRealToProxyKey);
  PushRegistryTable(L, &kMetaViewKey);
  SetWrapped(L, LUA_GLOBALSINDEX, "getmetatable", SafeGetMetatable, 3);
  lua_pushvalue(L, to_real);
  SetWrapped(L, LUA_GLOBALSINDEX, "setmetatable", SafeSetMetatable, 1);
  lua_pushcfunction(L, SafeLoad);
  lua_setfield(L, LUA_GLOBALSINDEX, "load");
  lua_pushcfunction(L, SafeLoadString);
  lua_setfield(L, LUA_GLOBALSINDEX, "loadstring");
  lua_pushcfunction(L, RedisPcall);
  lua_setfield(L, LUA_GLOBALSINDEX, "pcall");
  lua_pushcfunction(L, CollectGarbage);
  lua_setfield(L, LUA_GLOBALSINDEX, "collectgarbage");
  lua_getfield(L, LUA_GLOBALSINDEX, LUA_TABLIBNAME);
  lua_pushvalue(L, to_real);
  SetWrapped(L, -2, "insert", SafeTableInsert, 1);
  lua_pop(L, 1);
  lua_getfield(L, LUA_GLOBALSINDEX, LUA_MATHLIBNAME);
  ReplaceMathRandom(L);
  lua_pop(L, 1);
  lua_getfield(L, LUA_GLOBALSINDEX, LUA_STRLIBNAME);
  ReplaceStringFormat(L);
  lua_pop(L, 1);
  lua_pop(L, 1);  // to_real
}

// The string metatable's __index becomes the string proxy; getmetatable('') shows a proxy.
void ProtectStringMetatable(lua_State* L) {
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, LUA_GLOBALSINDEX, LUA_STRLIBNAME);  // already the proxy
  lua_setfield(L, -2, "__index");
  PushProxy(L, -1);
  lua_pop(L, 3);
}

// The real globals get a metatable that raises on missing names; the global table scripts see
// (LUA_GLOBALSINDEX, hence the environment of every chunk loaded) becomes its proxy.
void LockGlobals(lua_State* L) {
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  int real = lua_gettop(L);
  lua_pushlightuserdata(L, const_cast<char*>(&kRealGlobalsKey));
  lua_pushvalue(L, real);
  lua_rawset(L, LUA_REGISTRYINDEX);

  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, MissingGlobal);
  lua_setfield(L, -2, "__index");
  int missing_meta = lua_gettop(L);

  PushProxy(L, real);
  int proxy = lua_gettop(L);
  // getmetatable(_G): a read-only view of {__index = <function>}, as Redis shows.
  PushRegistryTable(L, &kMetaViewKey);
  lua_pushvalue(L, proxy);
  PushProxy(L, missing_meta);
  lua_rawset(L, -3);
  lua_pop(L, 1);

  lua_pushvalue(L, proxy);
  lua_setfield(L, real, "_G");
  lua_pushvalue(L, missing_meta);
  lua_setmetatable(L, real);
  lua_pushvalue(L, proxy);
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_settop(L, real - 1);
}

}  // namespace

void InstallSandbox(lua_State* L, ScriptApi api) {
  NewRegistryTable(L, &kProxyToRealKey);
  NewRegistryTable(L, &kRealToProxyKey);
  NewRegistryTable(L, &kMetaViewKey);
  OpenLibraries(L);
  InstallWrappedBuiltins(L);
  PushRedisApi(L, api == ScriptApi::kEval);
  lua_setfield(L, LUA_GLOBALSINDEX, "redis");
  if (api == ScriptApi::kEval) {
    lua_pushcfunction(L, ScriptErrorHandler);
    lua_setfield(L, LUA_GLOBALSINDEX, "__redis__err__handler");
  }
  for (const char* name : {LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME, LUA_COLIBNAME, "cjson",
                           "struct", "cmsgpack", "bit", "redis"}) {
    ProtectGlobal(L, name);
  }
  ProtectStringMetatable(L);
  LockGlobals(L);
}

void InstallLibraryEnvironment(lua_State* L, int (*register_function)(lua_State*)) {
  const int base = lua_gettop(L);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, MissingGlobal);
  lua_setfield(L, -2, "__index");
  const int missing_meta = lua_gettop(L);

  lua_newtable(L);  // the library API's `redis`
  const int api_redis = lua_gettop(L);
  lua_pushcfunction(L, register_function);
  lua_setfield(L, api_redis, "register_function");
  PushRegistryTable(L, &kRealGlobalsKey);
  lua_getfield(L, -1, "redis");  // its proxy: reads go through
  for (const char* name : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                           "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
    lua_getfield(L, -1, name);
    lua_setfield(L, api_redis, name);
  }
  lua_pop(L, 2);
  lua_pushvalue(L, missing_meta);
  lua_setmetatable(L, api_redis);

  lua_newtable(L);  // the library API's globals
  const int api = lua_gettop(L);
  PushProxy(L, api_redis);
  lua_setfield(L, api, "redis");
  lua_pushvalue(L, missing_meta);
  lua_setmetatable(L, api);
  lua_pushlightuserdata(L, const_cast<char*>(&kLibraryApiKey));
  lua_pushvalue(L, api);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_settop(L, base);
}

void UseLibraryEnvironment(lua_State* L, bool loading) {
  // LUA_GLOBALSINDEX is the globals' proxy: where its __index leads is what code reads.
  lua_getmetatable(L, LUA_GLOBALSINDEX);
  PushRegistryTable(L, loading ? &kLibraryApiKey : &kRealGlobalsKey);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

void SetScriptGlobal(lua_State* L, const char* name) {
  PushRegistryTable(L, &kRealGlobalsKey);
  lua_insert(L, -2);
  lua_setfield(L, -2, name);  // the real globals have no __newindex: a plain set
  lua_pop(L, 1);
}

void PushBytecodeError(lua_State* L, const char* chunkname, size_t chunkname_len) {
  char id[LUA_IDSIZE + 8];
  {
    std::string text = ChunkId(std::string_view(chunkname, chunkname_len));
    size_t len = std::min(text.size(), sizeof(id) - 1);
    std::memcpy(id, text.data(), len);
    id[len] = '\0';
  }
  lua_pushfstring(L, "%s:1: unexpected symbol near 'char(27)'", id);
}

}  // namespace sluice::scripting
