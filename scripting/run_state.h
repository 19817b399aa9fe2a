#pragma once

// Internal to scripting/: the state the Lua-facing C functions (redis.*, math.random, the
// instruction hook) share with ScriptEngine. One per lua_State, found through the registry.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resp/reply_builder.h"
#include "resp/value.h"
#include "scripting/rand48.h"
#include "scripting/script_host.h"

struct lua_State;

namespace sluice::scripting {

struct LibraryLoad;

// As Redis: the hooks that enforce time limits look at the clock every 100k instructions.
constexpr int kHookInstructions = 100000;

struct RunState {
  ScriptHost* host = nullptr;
  // math.random's: outlives SCRIPT FLUSH, and EVAL's engine shares it with the functions' one,
  // as Redis has one generator for the server.
  std::shared_ptr<Rand48> rand;

  // The script being run; `running` is false between scripts.
  bool running = false;
  std::string sha;
  resp::ProtocolVersion protocol = resp::ProtocolVersion::kResp2;  // redis.setresp
  bool in_call = false;  // inside redis.call: no re-entry through a hook
  // redis.call's argument buffers, reused from call to call.
  std::vector<std::string> call_numbers;  // "%.17g" texts of number arguments
  std::vector<std::string_view> call_args;
  // redis.call's reply while it becomes a Lua value: here, not in the C function's frame,
  // because that conversion may raise, and a longjmp skips destructors.
  resp::Value call_reply;

  // A script stopped or retuned the collector (collectgarbage "stop", "setpause",
  // "setstepmul"): the engine puts it back after the run.
  bool collector_changed = false;

  // lua-time-limit.
  int64_t time_limit_ms = 0;
  std::chrono::steady_clock::time_point started;
  bool timed_out = false;
  bool kill_requested = false;

  // FUNCTION LOAD running a library's code (its timeout uses `started`); else nullptr.
  LibraryLoad* loading = nullptr;
  int64_t load_time_limit_ms = 500;  // Redis's LOAD_TIMEOUT_MS, fixed there; tests lower it

  int64_t ElapsedMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 started)
        .count();
  }
};

// Stores / finds the RunState of a lua_State (a light userdata in the registry).
void AttachRunState(lua_State* L, RunState* state);
RunState* RunStateOf(lua_State* L);

}  // namespace sluice::scripting
