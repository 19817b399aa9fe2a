#pragma once

// Internal to scripting/: running a library's code for FUNCTION LOAD, as Redis's
// luaEngineCreate: compiled as "@user_function", run with the library API as its globals
// (sandbox.h) for at most 500 ms (RunState::load_time_limit_ms), its
// redis.register_function calls collected. Texts are Redis 7.0's (function_lua.c).

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "scripting/library_function.h"

struct lua_State;

namespace sluice::scripting {

struct LibraryLoad {
  std::string_view code;                    // the payload after its header line
  std::vector<LibraryFunction>* functions;  // what register_function registered
  std::string* error;                       // set when the code fails to compile or run
  // The names in `functions`, for the duplicate check: a scan of them made a library of
  // 20,000 functions quadratic, past FUNCTION LOAD's time limit.
  std::unordered_set<std::string> names;
};

// lua_cpcall's function, with a LibraryLoad* as its argument. On an error the callbacks
// registered so far stay in `functions`, for the caller to release.
int LoadLibraryTrampoline(lua_State* L);

// redis.register_function(name, callback) and redis.register_function{function_name=,
// callback=, flags=, description=}.
int RegisterFunction(lua_State* L);

}  // namespace sluice::scripting
