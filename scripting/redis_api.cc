#include "scripting/redis_api.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "scripting/lua_convert.h"
#include "scripting/lua_heap.h"
#include "scripting/lua_support.h"
#include "scripting/run_state.h"
#include "scripting/sha1.h"

namespace sluice::scripting {
namespace {

// Pushes the error table and raises it. No C++ object may be alive in the caller's frame.
int RaiseError(lua_State* L, const char* line) {
  PushErrorReply(L, line, false);
  return lua_error(L);
}

// What redis.call / redis.pcall do once the C++ work is over.
enum class CallEnd { kReturn, kRaise };

// Leaves exactly one value on top: the reply, or the error table to raise. Its pushes may
// raise (allocation failure) themselves: the C++ objects they build from (the reply, the
// argument buffers) belong to the RunState, so no frame a longjmp skips has a destructor.
CallEnd RunCommand(lua_State* L, bool raise_errors) {
  RunState* state = RunStateOf(L);
  int argc = lua_gettop(L);
  auto fail = [L, raise_errors](const char* error) {
    lua_settop(L, 0);
    PushErrorReply(L, error, /*from_command=*/false);
    return raise_errors ? CallEnd::kRaise : CallEnd::kReturn;
  };
  if (state == nullptr || !state->running) {
    return fail("ERR redis.call/pcall can only be called inside a script invocation");
  }
  if (argc == 0) return fail("ERR Please specify at least one argument for this redis lib call");
  if (state->in_call) {
    return fail(
        "ERR luaRedisGenericCommand() recursive call detected. Are you doing funny stuff with "
        "Lua debug hooks?");
  }
  std::vector<std::string>& numbers = state->call_numbers;
  std::vector<std::string_view>& args = state->call_args;
  numbers.clear();
  args.clear();
  numbers.reserve(static_cast<size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    int type = lua_type(L, i);
    if (type == LUA_TNUMBER) {
      numbers.push_back(FormatLuaNumber(lua_tonumber(L, i)));
      args.emplace_back(numbers.back());
    } else if (type == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);  // a string already: no allocation
      args.emplace_back(s, len);
    } else {
      return fail("ERR Lua redis lib command arguments must be strings or integers");
    }
  }
  // `numbers` never reallocates after the reserve, so the views into it hold.
  state->in_call = true;
  resp::Value& reply = state->call_reply;
  reply = state->host->Call(args, state->protocol);
  state->in_call = false;
  args.clear();
  lua_settop(L, 0);  // the arguments' strings are no longer referenced
  PushReply(L, reply, state->protocol);
  const bool is_error = reply.kind == resp::Value::Kind::kError;
  reply = resp::Value();  // a large reply's memory is not kept until the next call
  return (raise_errors && is_error) ? CallEnd::kRaise : CallEnd::kReturn;
}

int RedisCall(lua_State* L) {
  if (RunCommand(L, true) == CallEnd::kRaise) return lua_error(L);
  return 1;
}

int RedisPcallCommand(lua_State* L) {
  if (RunCommand(L, false) == CallEnd::kRaise) return lua_error(L);
  return 1;
}

int RedisSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "ERR wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);  // nil and tables hash as the empty string
  char digest[41];
  {
    std::string hex = Sha1Hex(s == nullptr ? std::string_view() : std::string_view(s, len));
    std::memcpy(digest, hex.data(), 40);
    digest[40] = '\0';
  }
  lua_pushstring(L, digest);
  return 1;
}

// redis.error_reply / redis.status_reply: a wrong call returns (not raises) an error table.
bool SingleStringArgument(lua_State* L) {
  if (lua_gettop(L) == 1 && lua_type(L, -1) == LUA_TSTRING) return true;
  PushErrorReply(L, "ERR wrong number or type of arguments", false);
  return false;
}

int RedisErrorReply(lua_State* L) {
  if (!SingleStringArgument(L)) return 1;
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  std::string_view line(s, len);
  if (!line.empty() && line[0] == '-') line.remove_prefix(1);
  PushErrorReply(L, line, false);
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (!SingleStringArgument(L)) return 1;
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int RedisLog(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) return RaiseError(L, "ERR redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) {
    return RaiseError(L, "ERR First argument must be a number (log level).");
  }
  auto level = static_cast<int>(lua_tonumber(L, 1));
  if (level < static_cast<int>(LogLevel::kDebug) || level > static_cast<int>(LogLevel::kWarning)) {
    return RaiseError(L, "ERR Invalid debug level.");
  }
  // Convert numbers to strings first (that may allocate and raise); then no Lua call is left
  // that can raise while the message is being built.
  for (int i = 2; i <= argc; ++i) lua_tolstring(L, i, nullptr);
  RunState* state = RunStateOf(L);
  if (state == nullptr) return 0;
  {
    std::string message;
    for (int i = 2; i <= argc; ++i) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      if (s == nullptr) continue;
      if (i != 2) message.push_back(' ');
      message.append(s, len);
    }
    state->host->Log(static_cast<LogLevel>(level), message);
  }
  return 0;
}

int RedisSetResp(lua_State* L) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) {
    return RaiseError(L, "ERR redis.setresp can only be called inside a script invocation");
  }
  if (lua_gettop(L) != 1) return RaiseError(L, "ERR redis.setresp() requires one argument.");
  auto version = static_cast<int>(lua_tonumber(L, 1));
  if (version != 2 && version != 3) return RaiseError(L, "ERR RESP version must be 2 or 3.");
  state->protocol = version == 3 ? resp::ProtocolVersion::kResp3 : resp::ProtocolVersion::kResp2;
  return 0;
}

// redis.set_repl: replication does not exist in sluice; the checks stay Redis's.
int RedisSetRepl(lua_State* L) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) {
    return RaiseError(L, "ERR redis.set_repl can only be called inside a script invocation");
  }
  if (lua_gettop(L) != 1) return RaiseError(L, "ERR redis.set_repl() requires two arguments.");
  auto flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~3) != 0) {
    return RaiseError(
        L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;
}

int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

// No debugger: redis.breakpoint() reports that none is attached; redis.debug() logs nothing.
int RedisBreakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

int RedisDebug(lua_State*) { return 0; }

int RedisAclCheckCmd(lua_State* L) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) {
    return RaiseError(L, "ERR redis.acl_check_cmd can only be called inside a script invocation");
  }
  int argc = lua_gettop(L);
  if (argc == 0) {
    return RaiseError(L, "ERR Please specify at least one argument for this redis lib call");
  }
  for (int i = 1; i <= argc; ++i) {
    int type = lua_type(L, i);
    if (type != LUA_TNUMBER && type != LUA_TSTRING) {
      return RaiseError(L, "ERR Lua redis lib command arguments must be strings or integers");
    }
  }
  std::optional<bool> allowed;
  {  // gone before an error: lua_error's longjmp would skip its destructor
    std::vector<std::string_view> args;
    args.reserve(argc);
    for (int i = 1; i <= argc; ++i) {
      size_t len = 0;
      const char* arg = lua_tolstring(L, i, &len);  // a number becomes its string, as Redis's
      args.emplace_back(arg, len);
    }
    allowed = state->host->AclAllows(args);
  }
  if (!allowed) return RaiseError(L, "ERR Invalid command passed to redis.acl_check_cmd()");
  lua_pushboolean(L, *allowed ? 1 : 0);
  return 1;
}

void SetFunction(lua_State* L, const char* name, lua_CFunction fn) {
  lua_pushcfunction(L, fn);
  lua_setfield(L, -2, name);
}

void SetNumber(lua_State* L, const char* name, lua_Number value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, name);
}

// Lua's tostring(v) for the error handler (honours __tostring).
void PushToString(lua_State* L, int index) {
  if (luaL_callmeta(L, index, "__tostring")) return;
  switch (lua_type(L, index)) {
    case LUA_TNUMBER:
    case LUA_TSTRING:
      lua_pushvalue(L, index);
      lua_tolstring(L, -1, nullptr);
      return;
    case LUA_TBOOLEAN:
      lua_pushstring(L, lua_toboolean(L, index) ? "true" : "false");
      return;
    case LUA_TNIL:
      lua_pushliteral(L, "nil");
      return;
    default:
      lua_pushfstring(L, "%s: %p", luaL_typename(L, index), lua_topointer(L, index));
      return;
  }
}

int MathRandom(lua_State* L) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) {
    return luaL_error(L, "math.random can only be called inside a script invocation");
  }
  // The % avoids r == 1, as in Redis and Lua.
  lua_Number r = static_cast<lua_Number>(state->rand->Next() % Rand48::kMax) /
                 static_cast<lua_Number>(Rand48::kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      int upper = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= upper, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * upper) + 1);
      break;
    }
    case 2: {
      int lower = luaL_checkint(L, 1);
      int upper = luaL_checkint(L, 2);
      luaL_argcheck(L, lower <= upper, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (upper - lower + 1)) + lower);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomSeed(lua_State* L) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) {
    return luaL_error(L, "math.randomseed can only be called inside a script invocation");
  }
  state->rand->Seed(luaL_checkint(L, 1));
  return 0;
}

}  // namespace

void PushRedisApi(lua_State* L, bool eval_only) {
  lua_newtable(L);
  SetFunction(L, "call", RedisCall);
  SetFunction(L, "pcall", RedisPcallCommand);
  SetFunction(L, "log", RedisLog);
  SetNumber(L, "LOG_DEBUG", static_cast<int>(LogLevel::kDebug));
  SetNumber(L, "LOG_VERBOSE", static_cast<int>(LogLevel::kVerbose));
  SetNumber(L, "LOG_NOTICE", static_cast<int>(LogLevel::kNotice));
  SetNumber(L, "LOG_WARNING", static_cast<int>(LogLevel::kWarning));
  // The version sluice reports in INFO, so scripts that branch on it see one Redis.
  lua_pushliteral(L, "7.0.0");
  lua_setfield(L, -2, "REDIS_VERSION");
  SetNumber(L, "REDIS_VERSION_NUM", 0x070000);
  SetFunction(L, "setresp", RedisSetResp);
  SetFunction(L, "sha1hex", RedisSha1Hex);
  SetFunction(L, "error_reply", RedisErrorReply);
  SetFunction(L, "status_reply", RedisStatusReply);
  SetFunction(L, "set_repl", RedisSetRepl);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  SetFunction(L, "acl_check_cmd", RedisAclCheckCmd);
  if (!eval_only) return;
  SetFunction(L, "breakpoint", RedisBreakpoint);
  SetFunction(L, "debug", RedisDebug);
  SetFunction(L, "replicate_commands", RedisReplicateCommands);
}

int ScriptErrorHandler(lua_State* L) {
  // Where the error came from: the raising function, or its caller when that is a C function
  // (error(), redis.call...), which is what a script's author wants to see.
  lua_Debug where;
  bool found = lua_getstack(L, 1, &where) && lua_getinfo(L, "nSl", &where);
  if (found && std::strcmp(where.what, "C") == 0) {
    found = lua_getstack(L, 2, &where) && lua_getinfo(L, "nSl", &where);
  }
  lua_settop(L, 1);
  if (!lua_istable(L, 1)) {
    lua_createtable(L, 0, 3);
    lua_pushliteral(L, "ERR ");
    PushToString(L, 1);
    lua_concat(L, 2);
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  }
  if (found) {
    lua_pushstring(L, where.source);
    lua_setfield(L, 1, "source");
    lua_pushnumber(L, where.currentline);
    lua_setfield(L, 1, "line");
  }
  return 1;
}

int RedisPcall(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc == 0) {  // what Redis's pcall() ends up returning: it calls nothing
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "attempt to call a nil value");
    return 2;
  }
  lua_pushboolean(L, 1);  // the status, in front of the results
  lua_insert(L, 1);
  if (const int status = lua_pcall(L, argc - 1, LUA_MULTRET, 0); status != 0) {
    // Lua 5.1 has no emergency collection: what the failed call allocated up to the memory
    // limit (a reply converted in part) is garbage now, and would fail the script's next
    // allocation until the collector reached it. Not if the script set the collector itself
    // (a full collection restarts a stopped one).
    RunState* state = RunStateOf(L);
    if (status == LUA_ERRMEM && state != nullptr && !state->collector_changed) {
      LuaHeap::CollectUnlimited(L);
    }
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      // A string err replaces the table; anything else stays as an extra result, as in Redis.
      if (lua_isstring(L, -1)) lua_replace(L, -2);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

void ReplaceMathRandom(lua_State* L) {
  SetFunction(L, "random", MathRandom);
  SetFunction(L, "randomseed", MathRandomSeed);
}

}  // namespace sluice::scripting
