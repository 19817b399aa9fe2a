#include "scripting/lua_support.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "scripting/run_state.h"

namespace sluice::scripting {
namespace {

// Registry keys: the addresses of these objects, pushed as light userdata.
const char kRunStateKey = 0;
const char kPushTrampolineKey = 0;

struct PushCall {
  void (*fn)(lua_State*, void*);
  void* ud;
};

int PushTrampoline(lua_State* L) {
  auto* call = static_cast<PushCall*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  call->fn(L, call->ud);
  return 1;
}

}  // namespace

void AttachRunState(lua_State* L, RunState* state) {
  lua_pushlightuserdata(L, const_cast<char*>(&kRunStateKey));
  lua_pushlightuserdata(L, state);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

RunState* RunStateOf(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<char*>(&kRunStateKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* state = static_cast<RunState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return state;
}

void StoreFunction(lua_State* L, const char* key, int (*fn)(lua_State*)) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_pushcfunction(L, fn);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

void PushStoredFunction(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_rawget(L, LUA_REGISTRYINDEX);
}

void InitProtectedPush(lua_State* L) { StoreFunction(L, &kPushTrampolineKey, PushTrampoline); }

bool ProtectedPush(lua_State* L, void (*fn)(lua_State*, void*), void* ud) {
  PushCall call{fn, ud};
  PushStoredFunction(L, &kPushTrampolineKey);
  lua_pushlightuserdata(L, &call);
  return lua_pcall(L, 1, 1, 0) == 0;
}

void PushErrorReply(lua_State* L, std::string_view line, bool from_command) {
  std::string_view code = "ERR";
  std::string_view message = line;
  size_t space = line.find(' ');
  if (space != std::string_view::npos) {
    code = line.substr(0, space);
    message = line.substr(space + 1);
  }
  while (!message.empty() && (message.front() == '\r' || message.front() == '\n')) {
    message.remove_prefix(1);
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.remove_suffix(1);
  }
  lua_createtable(L, 0, from_command ? 2 : 1);
  lua_pushlstring(L, code.data(), code.size());
  lua_pushliteral(L, " ");
  lua_pushlstring(L, message.data(), message.size());
  lua_concat(L, 3);
  lua_setfield(L, -2, "err");
  if (from_command) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "ignore_error_stats_update");
  }
}

int RaiseOnEveryLine(lua_State* L, void (*hook)(lua_State*, lua_Debug*), std::string_view line) {
  lua_sethook(L, hook, LUA_MASKLINE, 0);
  PushErrorReply(L, line, false);
  return lua_error(L);
}

std::string FormatLuaNumber(double n) {
  char buf[64];
  // Scripts mostly pass integers (times, counts, costs): %.17g prints an integer of at most
  // 2^53 as its plain digits, which to_chars writes for a fraction of snprintf's cost. -0
  // stays with snprintf ("-0").
  constexpr double kTwo53 = 9007199254740992.0;
  if (std::trunc(n) == n && std::fabs(n) <= kTwo53 && !(n == 0 && std::signbit(n))) {
    const std::to_chars_result end = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(n));
    return std::string(buf, end.ptr);
  }
  int len = std::snprintf(buf, sizeof(buf), "%.17g", n);
  return std::string(buf, static_cast<size_t>(len));
}

int64_t LuaNumberToInteger(double n) {
  // cvttsd2si yields 0x8000000000000000 for anything it cannot represent.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (std::isnan(n) || n >= kTwo63 || n < -kTwo63) return INT64_MIN;
  return static_cast<int64_t>(n);
}

std::string ChunkId(std::string_view source) {
  constexpr size_t kIdSize = LUA_IDSIZE;
  // Lua works on C strings: a name ends at its first NUL byte.
  source = source.substr(0, std::min(source.size(), source.find('\0')));
  if (!source.empty() && source[0] == '=') return std::string(source.substr(1, kIdSize - 1));
  if (!source.empty() && source[0] == '@') {
    std::string_view name = source.substr(1);
    size_t room = kIdSize - sizeof(" '...' ");
    if (name.size() > room) return "..." + std::string(name.substr(name.size() - room));
    return std::string(name);
  }
  size_t line_end = source.find_first_of("\r\n");
  size_t len = line_end == std::string_view::npos ? source.size() : line_end;
  size_t room = kIdSize - sizeof(" [string \"...\"] ");
  if (len > room) len = room;
  std::string id = "[string \"";
  id.append(source.substr(0, len));
  if (len < source.size()) id.append("...");
  id.append("\"]");
  return id;
}

}  // namespace sluice::scripting
