#pragma once

// The Lua engine behind EVAL, EVALSHA and SCRIPT: one Lua 5.1 state, sandboxed as Redis 7.0
// (scripting/sandbox.h), a cache of compiled scripts by SHA1, and runs with Redis's reply
// conversions and error texts. It reaches the server only through ScriptHost. Functions
// (FCALL) run in an instance of their own, which holds the libraries' callbacks
// (scripting/function_libraries.h), through the same run path.
//
// lua-time-limit: an instruction-count hook checks the elapsed time every 100,000
// instructions; past the limit it calls ScriptHost::WhileBusy on every tick (the server
// answers other clients there), and SCRIPT KILL (Kill()) makes the script fail at the next
// tick. lua-memory-limit: the Lua heap cannot grow past it while a script compiles or runs;
// the script fails with "not enough memory" and the engine stays usable.

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/string_hash.h"
#include "resp/reply_builder.h"
#include "scripting/library_function.h"
#include "scripting/lua_convert.h"
#include "scripting/lua_heap.h"
#include "scripting/rand48.h"
#include "scripting/script_api.h"
#include "scripting/script_host.h"
#include "scripting/shebang.h"

struct lua_State;

namespace sluice::scripting {

struct RunState;

struct Script {
  std::string sha;  // 40 lower-case hex digits
  std::string body;
  ScriptFlags flags;
  // EVAL made it, and no SCRIPT LOAD has named it since: evicted once it is the least
  // recently used of more than kMaxEvalScripts such scripts. `lru` is its place.
  bool evictable = false;
  std::list<std::string>::iterator lru{};
};

// Who asked for a script to be compiled (ScriptEngine::Load).
enum class ScriptOrigin { kScriptLoad, kEval };

class ScriptEngine {
 public:
  // `random`: math.random's generator, shared with another engine of the same server.
  // `api`: EVAL's environment, or FUNCTION's (sandbox.h).
  explicit ScriptEngine(ScriptHost* host,
                        std::shared_ptr<Rand48> random = std::make_shared<Rand48>(),
                        ScriptApi api = ScriptApi::kEval);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // lua-time-limit in ms; 0 installs no hook (and makes scripts unkillable), as Redis.
  void set_time_limit_ms(int64_t ms);
  // FUNCTION LOAD's limit on a library's code: Redis's fixed 500 ms; tests lower it.
  void set_load_time_limit_ms(int64_t ms);
  // lua-memory-limit in bytes; 0 is unlimited.
  void set_memory_limit(size_t bytes) { heap_.set_limit(bytes); }

  // SCRIPT LOAD, and EVAL of a body not seen before: compiles once, caches by SHA1. Errors are
  // Redis's: "Error compiling script (new function): user_script:1: ...", shebang errors.
  //
  // As Redis 8.0: at most kMaxEvalScripts scripts that EVAL made are kept, the least recently
  // run (by EVAL or EVALSHA) evicted first (INFO's evicted_scripts); SCRIPT LOAD's scripts,
  // and EVAL's once a SCRIPT LOAD names them, stay until SCRIPT FLUSH. A client that writes
  // its values into the script's text makes each call a new script: kept, they filled
  // lua-memory-limit, and every script's run then paid a full collection of them.
  static constexpr size_t kMaxEvalScripts = 500;
  StatusOr<const Script*> Load(std::string_view body,
                               ScriptOrigin origin = ScriptOrigin::kScriptLoad);
  // The cached script with this SHA1 (any letter case), or nullptr.
  const Script* Find(std::string_view sha) const;
  // EVALSHA's Find: an evictable script becomes the most recently used, as EVAL makes it.
  const Script* FindToRun(std::string_view sha);
  uint64_t evicted_scripts() const { return evicted_scripts_; }
  void ResetEvictedScripts() { evicted_scripts_ = 0; }  // CONFIG RESETSTAT
  // SCRIPT FLUSH: forgets every script and starts a fresh Lua state.
  void Flush();
  size_t script_count() const { return scripts_.size(); }
  // The bytes of the cached scripts' bodies and SHA1s (MEMORY STATS's lua.caches), kept as
  // they come and go: INFO memory reports it at every call.
  size_t scripts_bytes() const { return scripts_bytes_; }

  // Runs a cached script with KEYS and ARGV set; its reply, or Redis's error for it
  // ("ERR ... script: <sha>, on @user_script:<line>."), goes to `reply`. Returns the error
  // replies that reply is or holds, for the server's error statistics.
  std::vector<ScriptError> Run(const Script& script, std::span<const std::string_view> keys,
                               std::span<const std::string_view> argv, resp::ReplyBuilder& reply);

  // FUNCTION LOAD: runs a library's code (the payload after its header line) in the library
  // API's environment; the functions it registered, their callbacks held in this engine until
  // ReleaseFunctions, or Redis's error ("Error compiling function: ...", "Error registering
  // functions: ..."). Registering nothing is no error here.
  StatusOr<std::vector<LibraryFunction>> LoadLibrary(std::string_view code);
  void ReleaseFunctions(std::span<const LibraryFunction> functions);

  // FCALL: runs a loaded function as Run runs a script, with (keys, args) as its arguments
  // instead of KEYS and ARGV, errors naming the function ("script: <name>, on
  // @user_function:<line>.").
  std::vector<ScriptError> RunFunction(const LibraryFunction& function,
                                       std::span<const std::string_view> keys,
                                       std::span<const std::string_view> args,
                                       resp::ReplyBuilder& reply);

  bool running() const;
  // True once the running script has passed lua-time-limit.
  bool timed_out() const;
  // SCRIPT KILL: the running script fails at the hook's next tick with
  // "ERR Script killed by user with SCRIPT KILL...". The caller checks it has not written.
  void Kill();

  size_t used_memory() const { return heap_.used(); }
  // Full collections after a run (tests: they must not come after every run).
  uint64_t full_collections() const { return full_collections_; }

 private:
  void OpenState();
  void CloseState();
  // The script is no longer evictable (a SCRIPT LOAD named it).
  void Keep(Script& script);
  // An evictable script becomes the most recently used.
  void Touch(Script& script);
  void EvictLeastRecentEvalScript();
  // Run's and RunFunction's work: `function_ref` is LUA_NOREF for the cached script `name`.
  std::vector<ScriptError> RunCallable(const std::string& name, int function_ref,
                                       std::span<const std::string_view> keys,
                                       std::span<const std::string_view> argv,
                                       resp::ReplyBuilder& reply);
  // After a script stopped or retuned the collector: running, with Lua's pause and step.
  void RestoreCollector();

  LuaHeap heap_;
  std::unique_ptr<RunState> state_;
  ScriptApi api_;
  lua_State* lua_ = nullptr;
  StringMap<Script> scripts_;  // by lowercase SHA1
  std::list<std::string> eval_lru_;  // the evictable scripts' SHA1s, least recently used first
  uint64_t evicted_scripts_ = 0;
  size_t scripts_bytes_ = 0;
  static size_t CachedBytes(const Script& script) { return script.sha.size() + script.body.size(); }
  uint64_t runs_ = 0;
  size_t live_after_collect_ = 0;  // the heap after the last full collection
  uint64_t full_collections_ = 0;
};

}  // namespace sluice::scripting
