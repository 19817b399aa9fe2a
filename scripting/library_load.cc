#include "scripting/library_load.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/ascii.h"
#include "scripting/library_header.h"
#include "scripting/lua_support.h"
#include "scripting/run_state.h"
#include "scripting/sandbox.h"

namespace sluice::scripting {
namespace {

constexpr const char* kFunctionChunkName = "@user_function";

// A library's code that runs too long fails, whatever lua-time-limit says, as in Redis.
void LoadHook(lua_State* L, lua_Debug*) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || state->loading == nullptr) return;
  if (state->ElapsedMs() <= state->load_time_limit_ms) return;
  RaiseOnEveryLine(L, LoadHook, "ERR FUNCTION LOAD timeout");
}

// What a registration reads from Lua, pointing into strings on the Lua stack.
struct Registration {
  const char* name = nullptr;
  size_t name_len = 0;
  const char* description = nullptr;
  size_t description_len = 0;
  ScriptFlags flags;
  int callback = 0;  // stack index of the callback
};

// Redis's luaRegisterFunctionReadFlags: a list of flag names, matched ignoring case.
bool ReadFlags(lua_State* L, int table, ScriptFlags* flags) {
  for (int i = 1;; ++i) {
    lua_rawgeti(L, table, i);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return true;
    }
    size_t len = 0;
    const char* text = lua_isstring(L, -1) ? lua_tolstring(L, -1, &len) : nullptr;
    char lower[32];
    bool known = text != nullptr && len < sizeof(lower);
    if (known) {
      std::transform(text, text + len, lower, AsciiToLower);
      known = SetScriptFlag(std::string_view(lower, len), flags);
    }
    lua_pop(L, 1);
    if (!known) return false;
  }
}

// redis.register_function{...}: the table at index 1. Leaves the values it keeps on the stack.
const char* ReadNamedArgs(lua_State* L, Registration* out) {
  if (!lua_istable(L, 1)) {
    return "calling redis.register_function with a single argument is only applicable to Lua "
           "table (representing named arguments).";
  }
  if (!lua_checkstack(L, 16)) return "not enough memory";
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    if (!lua_isstring(L, -2)) {
      return "named argument key given to redis.register_function is not a string";
    }
    lua_pushvalue(L, -2);  // a copy to read as a string, so lua_next keeps its key
    std::string_view key = lua_tostring(L, -1);
    lua_pop(L, 1);
    const int value = lua_gettop(L);
    if (EqualsIgnoreCase(key, "function_name")) {
      if (!lua_isstring(L, value)) {
        return "function_name argument given to redis.register_function must be a string";
      }
      out->name = lua_tolstring(L, value, &out->name_len);
    } else if (EqualsIgnoreCase(key, "description")) {
      if (!lua_isstring(L, value)) {
        return "description argument given to redis.register_function must be a string";
      }
      out->description = lua_tolstring(L, value, &out->description_len);
    } else if (EqualsIgnoreCase(key, "callback")) {
      if (!lua_isfunction(L, value)) {
        return "callback argument given to redis.register_function must be a function";
      }
      out->callback = value;
    } else if (EqualsIgnoreCase(key, "flags")) {
      if (!lua_istable(L, value)) {
        return "flags argument to redis.register_function must be a table representing "
               "function flags";
      }
      if (!ReadFlags(L, value, &out->flags)) return "unknown flag given";
      lua_pop(L, 1);
      continue;
    } else {
      return "unknown argument given to redis.register_function";
    }
    // Kept on the stack (strings stay alive there); the key goes on top for lua_next.
    lua_pushvalue(L, value - 1);
  }
  if (out->name == nullptr) return "redis.register_function must get a function name argument";
  if (out->callback == 0) return "redis.register_function must get a callback argument";
  return nullptr;
}

const char* ReadPositionalArgs(lua_State* L, Registration* out) {
  if (!lua_isstring(L, 1)) return "first argument to redis.register_function must be a string";
  if (!lua_isfunction(L, 2)) {
    return "second argument to redis.register_function must be a function";
  }
  out->name = lua_tolstring(L, 1, &out->name_len);
  out->callback = 2;
  return nullptr;
}

// Redis's checks of a registration, then functionLibCreateFunction's.
const char* ReadRegistration(lua_State* L, const LibraryLoad& load, Registration* out) {
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return "wrong number of arguments to redis.register_function";
  const char* error = argc == 1 ? ReadNamedArgs(L, out) : ReadPositionalArgs(L, out);
  if (error != nullptr) return error;
  std::string_view name(out->name, out->name_len);
  // Redis 7.0 reports a bad function name with the library names' text.
  if (!IsValidFunctionName(name)) return kBadLibraryName.data();
  if (load.names.contains(std::string(name))) return "Function already exists in the library";
  return nullptr;
}

// The message of a failed run, as Redis's luaExtractErrorInformation: a string gets the ERR
// code, an error table gives its err field.
void DescribeLoadError(lua_State* L, std::string* out) {
  if (lua_isstring(L, -1)) {
    out->assign("Error registering functions: ERR ").append(lua_tostring(L, -1));
    return;
  }
  const char* message = nullptr;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    if (lua_isstring(L, -1)) message = lua_tostring(L, -1);
  }
  out->assign("Error registering functions: ").append(message ? message : "");
}

}  // namespace

int RegisterFunction(lua_State* L) {
  RunState* state = RunStateOf(L);
  LibraryLoad* load = state != nullptr ? state->loading : nullptr;
  if (load == nullptr) {
    PushErrorReply(L, "ERR redis.register_function can only be called on FUNCTION LOAD command",
                   false);
    return lua_error(L);
  }
  Registration read;
  if (const char* error = ReadRegistration(L, *load, &read)) {
    lua_pushstring(L, "ERR ");
    lua_pushstring(L, error);
    lua_concat(L, 2);
    PushErrorReply(L, lua_tostring(L, -1), false);
    return lua_error(L);
  }
  lua_pushvalue(L, read.callback);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  {
    LibraryFunction f;
    f.name.assign(read.name, read.name_len);
    if (read.description != nullptr) f.description.emplace(read.description, read.description_len);
    f.flags = read.flags;
    f.flags.has_shebang = true;
    f.ref = ref;
    load->names.insert(f.name);
    load->functions->push_back(std::move(f));
  }
  return 0;
}

int LoadLibraryTrampoline(lua_State* L) {
  auto* load = static_cast<LibraryLoad*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  if (luaL_loadbuffer(L, load->code.data(), load->code.size(), kFunctionChunkName) != 0) {
    load->error->assign("Error compiling function: ").append(lua_tostring(L, -1));
    return 0;
  }
  RunState* state = RunStateOf(L);
  state->loading = load;
  state->started = std::chrono::steady_clock::now();
  UseLibraryEnvironment(L, true);
  lua_sethook(L, LoadHook, LUA_MASKCOUNT, kHookInstructions);
  const int status = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, nullptr, 0, 0);
  UseLibraryEnvironment(L, false);
  state->loading = nullptr;
  if (status != 0) {
    DescribeLoadError(L, load->error);  // the caller releases what registered
  }
  return 0;
}

}  // namespace sluice::scripting
