#include "scripting/engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/ascii.h"
#include "resp/capturing_builder.h"
#include "resp/error_prefix.h"
#include "scripting/library_load.h"
#include "scripting/lua_convert.h"
#include "scripting/lua_support.h"
#include "scripting/redis_api.h"
#include "scripting/run_state.h"
#include "scripting/sandbox.h"
#include "scripting/sha1.h"

namespace sluice::scripting {
namespace {

constexpr int kGcPeriod = 50;              // as Redis: a GC step every 50 runs
const char kScriptsKey = 0;                // registry: sha -> compiled function
const char kRunKey = 0;                    // registry: RunTrampoline, made once
const char kErrorHandlerKey = 0;           // registry: ScriptErrorHandler, made once
constexpr std::string_view kScriptChunkName = "@user_script";

int Panic(lua_State* L) {
  const char* message = lua_tostring(L, -1);
  std::fprintf(stderr, "Lua panic (unprotected error): %s\n", message ? message : "?");
  std::abort();
}

// Fails the script at the next tick once SCRIPT KILL asked for it; until then, past the time
// limit, lets the host serve other clients.
void CountHook(lua_State* L, lua_Debug*) {
  RunState* state = RunStateOf(L);
  if (state == nullptr || !state->running) return;
  if (!state->kill_requested) {
    int64_t elapsed = state->ElapsedMs();
    if (state->timed_out || elapsed >= state->time_limit_ms) {
      bool first = !state->timed_out;
      state->timed_out = true;
      state->host->WhileBusy(elapsed, first);
    }
  }
  if (!state->kill_requested) return;
  RaiseOnEveryLine(L, CountHook, "ERR Script killed by user with SCRIPT KILL...");
}

struct CompileCall {
  std::string_view code;
  const std::string* sha;
  std::string* error;  // set when the code does not compile
};

int CompileTrampoline(lua_State* L) {
  auto* call = static_cast<CompileCall*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  if (luaL_loadbuffer(L, call->code.data(), call->code.size(), kScriptChunkName.data()) != 0) {
    size_t len = 0;
    const char* message = lua_tolstring(L, -1, &len);
    call->error->assign(message ? message : "?", message ? len : 1);
    return 0;
  }
  lua_pushlightuserdata(L, const_cast<char*>(&kScriptsKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_insert(L, -2);
  lua_setfield(L, -2, call->sha->c_str());
  return 0;
}

struct RunCall {
  const std::string* name;  // the script's SHA1, or the function's name
  int function_ref;         // a library function (FCALL), or LUA_NOREF for a cached script
  std::span<const std::string_view> keys;
  std::span<const std::string_view> argv;
  resp::ProtocolVersion* protocol;  // the script's, after redis.setresp
  resp::Value* result;
  std::string* error;  // the error line when the script failed
  std::vector<ScriptError>* errors;  // the error it raised, or the error replies in its result
};

void PushArray(lua_State* L, std::span<const std::string_view> items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    lua_pushlstring(L, items[i].data(), items[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

// Redis's error reply for a failed script (luaCallFunction): the err field, then where it
// happened when the handler could tell.
void DescribeError(lua_State* L, const std::string& sha, std::string* out) {
  if (!lua_istable(L, -1)) {
    const char* message = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    size_t len = std::min<size_t>(std::strlen(message), 100);  // Redis prints "%.100s"
    out->assign("ERR Error running script ");
    out->append(sha).append(", ").append(message, len);
    return;
  }
  int table = lua_gettop(L);
  lua_getfield(L, table, "err");
  lua_getfield(L, table, "source");
  lua_getfield(L, table, "line");
  const char* message = lua_isstring(L, -3) ? lua_tostring(L, -3) : nullptr;
  const char* source = lua_isstring(L, -2) ? lua_tostring(L, -2) : nullptr;
  const char* line = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
  // Redis 7.0 crashes on an error table without a string err; say so instead.
  out->assign(message ? message : "ERR unknown error (the error object has no 'err' string)");
  if (source != nullptr && line != nullptr) {
    out->append(" script: ").append(sha).append(", on ").append(source).append(":");
    out->append(line).append(".");
  }
  lua_settop(L, table);
}

int RunTrampoline(lua_State* L) {
  auto* call = static_cast<RunCall*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  PushStoredFunction(L, &kErrorHandlerKey);
  int argc = 0;
  if (call->function_ref == LUA_NOREF) {  // EVAL: KEYS and ARGV are globals
    lua_pushlightuserdata(L, const_cast<char*>(&kScriptsKey));
    lua_rawget(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, call->name->c_str());
    lua_replace(L, -2);
    PushArray(L, call->keys);
    SetScriptGlobal(L, "KEYS");
    PushArray(L, call->argv);
    SetScriptGlobal(L, "ARGV");
  } else {  // FCALL: the callback gets (keys, args)
    lua_rawgeti(L, LUA_REGISTRYINDEX, call->function_ref);
    PushArray(L, call->keys);
    PushArray(L, call->argv);
    argc = 2;
  }
  if (lua_pcall(L, argc, 1, 1) != 0) {
    const bool repeats_command_error = IsCommandErrorTable(L);
    DescribeError(L, *call->name, call->error);
    call->errors->push_back({*call->error, repeats_command_error});
    return 0;
  }
  ReadScriptResult(L, *call->protocol, call->result, call->errors);
  return 0;
}

int OpenTrampoline(lua_State* L) {
  const ScriptApi api = *static_cast<const ScriptApi*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  InitProtectedPush(L);
  StoreFunction(L, &kRunKey, RunTrampoline);
  StoreFunction(L, &kErrorHandlerKey, ScriptErrorHandler);
  lua_pushlightuserdata(L, const_cast<char*>(&kScriptsKey));
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  InstallSandbox(L, api);
  InstallLibraryEnvironment(L, RegisterFunction);
  return 0;
}

}  // namespace

ScriptEngine::ScriptEngine(ScriptHost* host, std::shared_ptr<Rand48> random, ScriptApi api)
    : state_(std::make_unique<RunState>()), api_(api) {
  state_->host = host;
  state_->rand = std::move(random);
  OpenState();
}

ScriptEngine::~ScriptEngine() { CloseState(); }

void ScriptEngine::OpenState() {
  heap_.set_enforced(false);
  live_after_collect_ = 0;
  lua_ = lua_newstate(LuaHeap::Alloc, &heap_);
  if (lua_ == nullptr) {
    std::fprintf(stderr, "Cannot allocate the Lua state\n");
    std::abort();
  }
  lua_atpanic(lua_, Panic);
  AttachRunState(lua_, state_.get());
  if (lua_cpcall(lua_, OpenTrampoline, &api_) != 0) {
    std::fprintf(stderr, "Setting up the Lua sandbox failed: %s\n", lua_tostring(lua_, -1));
    std::abort();
  }
  lua_settop(lua_, 0);
}

void ScriptEngine::CloseState() {
  if (lua_ != nullptr) lua_close(lua_);
  lua_ = nullptr;
}

void ScriptEngine::set_time_limit_ms(int64_t ms) { state_->time_limit_ms = ms; }
void ScriptEngine::set_load_time_limit_ms(int64_t ms) { state_->load_time_limit_ms = ms; }

bool ScriptEngine::running() const { return state_->running; }
bool ScriptEngine::timed_out() const { return state_->running && state_->timed_out; }

void ScriptEngine::Kill() {
  if (state_->running) state_->kill_requested = true;
}

const Script* ScriptEngine::FindToRun(std::string_view sha) {
  const Script* found = Find(sha);
  if (found != nullptr) Touch(const_cast<Script&>(*found));  // ours: Find only hands it out const
  return found;
}

void ScriptEngine::Touch(Script& script) {
  if (script.evictable) eval_lru_.splice(eval_lru_.end(), eval_lru_, script.lru);
}

void ScriptEngine::Keep(Script& script) {
  if (!script.evictable) return;
  eval_lru_.erase(script.lru);
  script.evictable = false;
}

void ScriptEngine::EvictLeastRecentEvalScript() {
  const std::string sha = std::move(eval_lru_.front());
  eval_lru_.pop_front();
  // The compiled function goes from the scripts' table; the collector frees it.
  lua_pushlightuserdata(lua_, const_cast<char*>(&kScriptsKey));
  lua_rawget(lua_, LUA_REGISTRYINDEX);
  lua_pushnil(lua_);
  lua_setfield(lua_, -2, sha.c_str());
  lua_settop(lua_, 0);
  auto evicted = scripts_.find(sha);
  scripts_bytes_ -= CachedBytes(evicted->second);
  scripts_.erase(evicted);
  ++evicted_scripts_;
}

const Script* ScriptEngine::Find(std::string_view sha) const {
  char lower[40];  // every EVALSHA looks up: no allocation for the lowered copy
  if (sha.size() != sizeof(lower)) return nullptr;
  std::transform(sha.begin(), sha.end(), lower, AsciiToLower);
  auto it = scripts_.find(std::string_view(lower, sizeof(lower)));
  return it == scripts_.end() ? nullptr : &it->second;
}

StatusOr<const Script*> ScriptEngine::Load(std::string_view body, ScriptOrigin origin) {
  std::string sha = Sha1Hex(body);
  if (auto it = scripts_.find(sha); it != scripts_.end()) {
    Script& script = it->second;
    if (origin == ScriptOrigin::kScriptLoad) {
      Keep(script);
    } else {
      Touch(script);
    }
    return &script;
  }
  if (state_->running) return Status(Code::kBusy, "a script is running");
  StatusOr<Shebang> shebang = ParseShebang(body);
  if (!shebang.ok()) return shebang.status();
  // The shebang line is dropped but its newline kept, so line numbers stay the body's.
  std::string_view code = body.substr(shebang->length);
  std::string error;
  if (!code.empty() && code[0] == LUA_SIGNATURE[0]) {
    // Redis's Lua never loads bytecode: its parser reports the escape byte.
    error = "user_script:1: unexpected symbol near 'char(27)'";
  } else {
    CompileCall call{code, &sha, &error};
    heap_.set_enforced(true);
    int status = lua_cpcall(lua_, CompileTrampoline, &call);
    heap_.set_enforced(false);
    if (status != 0) {
      const char* message = lua_tostring(lua_, -1);
      error = message ? message : "not enough memory";
    }
    lua_settop(lua_, 0);
  }
  if (!error.empty()) return Err("Error compiling script (new function): " + error);
  auto [it, inserted] = scripts_.emplace(sha, Script{sha, std::string(body), shebang->flags});
  scripts_bytes_ += CachedBytes(it->second);
  if (origin == ScriptOrigin::kEval) {
    it->second.evictable = true;
    it->second.lru = eval_lru_.insert(eval_lru_.end(), sha);
    if (eval_lru_.size() > kMaxEvalScripts) EvictLeastRecentEvalScript();
  }
  return &it->second;
}

void ScriptEngine::Flush() {
  if (state_->running) return;
  scripts_.clear();
  scripts_bytes_ = 0;
  eval_lru_.clear();
  CloseState();
  OpenState();
}

std::vector<ScriptError> ScriptEngine::Run(const Script& script,
                                           std::span<const std::string_view> keys,
                                           std::span<const std::string_view> argv,
                                           resp::ReplyBuilder& reply) {
  return RunCallable(script.sha, LUA_NOREF, keys, argv, reply);
}

std::vector<ScriptError> ScriptEngine::RunFunction(const LibraryFunction& function,
                                                   std::span<const std::string_view> keys,
                                                   std::span<const std::string_view> args,
                                                   resp::ReplyBuilder& reply) {
  return RunCallable(function.name, function.ref, keys, args, reply);
}

StatusOr<std::vector<LibraryFunction>> ScriptEngine::LoadLibrary(std::string_view code) {
  if (state_->running) return Status(Code::kBusy, "a script is running");
  std::vector<LibraryFunction> functions;
  std::string error;
  LibraryLoad load{code, &functions, &error, {}};
  heap_.set_enforced(true);
  const int status = lua_cpcall(lua_, LoadLibraryTrampoline, &load);
  heap_.set_enforced(false);
  if (status != 0) {
    const char* message = lua_tostring(lua_, -1);
    error = std::string("Error registering functions: ") + (message ? message : "not enough memory");
  }
  lua_settop(lua_, 0);
  if (!error.empty()) {
    ReleaseFunctions(functions);  // what registered before the error
    return Err(error);
  }
  return functions;
}

void ScriptEngine::ReleaseFunctions(std::span<const LibraryFunction> functions) {
  for (const LibraryFunction& f : functions) luaL_unref(lua_, LUA_REGISTRYINDEX, f.ref);
}

std::vector<ScriptError> ScriptEngine::RunCallable(const std::string& name, int function_ref,
                                                   std::span<const std::string_view> keys,
                                                   std::span<const std::string_view> argv,
                                                   resp::ReplyBuilder& reply) {
  if (state_->running) {
    const Status busy(Code::kBusy, "a script is already running");
    reply.Error(busy);
    return {{resp::ErrorLine(busy), false}};
  }
  RunState& state = *state_;
  state.running = true;
  state.sha = name;
  state.protocol = resp::ProtocolVersion::kResp2;  // scripts start in RESP2, as in Redis
  state.in_call = false;
  state.timed_out = false;
  state.kill_requested = false;
  state.started = std::chrono::steady_clock::now();
  if (state.time_limit_ms > 0) lua_sethook(lua_, CountHook, LUA_MASKCOUNT, kHookInstructions);

  resp::Value result;
  std::string error;
  std::vector<ScriptError> errors;
  RunCall call{&name, function_ref, keys, argv, &state.protocol, &result, &error, &errors};
  heap_.set_enforced(true);
  PushStoredFunction(lua_, &kRunKey);
  lua_pushlightuserdata(lua_, &call);
  int status = lua_pcall(lua_, 1, 0, 0);
  heap_.set_enforced(false);
  if (status != 0) {
    // The run could not start or its result could not be read (memory, mostly).
    const char* message = lua_isstring(lua_, -1) ? lua_tostring(lua_, -1) : "execution failure";
    error = "ERR Error running script " + name + ", " + message;
    // What was read before the failure is not the reply: the error is.
    errors.assign(1, ScriptError{error, false});
  }
  lua_settop(lua_, 0);
  lua_sethook(lua_, nullptr, 0, 0);
  state.running = false;
  state.call_reply = resp::Value();  // left by a conversion that failed
  state.timed_out = false;

  // A script may have stopped the collector or filled the heap: give the next one a clean
  // start. Lua 5.1 does not collect when an allocation fails, so garbage left to reach the
  // limit would fail the next script: collect in full once the heap has filled half of what
  // the last full collection left free. (Half the limit, without counting what stayed live,
  // collected after every script once cached scripts held that much: 100 ms a call at 36 MB.)
  // Otherwise a small step now and then, as Redis does.
  if (state.collector_changed) RestoreCollector();
  if (status != 0 ||
      (heap_.limit() != 0 && heap_.used() > heap_.limit() / 2 + live_after_collect_ / 2)) {
    lua_gc(lua_, LUA_GCCOLLECT, 0);
    live_after_collect_ = heap_.used();
    ++full_collections_;
  } else if (++runs_ % kGcPeriod == 0) {
    lua_gc(lua_, LUA_GCSTEP, kGcPeriod);
  }

  if (!error.empty()) {
    reply.Error(Code::kRaw, error);
    return errors;
  }
  resp::Replay(result, reply);
  return errors;
}

void ScriptEngine::RestoreCollector() {
  lua_gc(lua_, LUA_GCRESTART, 0);
  lua_gc(lua_, LUA_GCSETPAUSE, LUAI_GCPAUSE);
  lua_gc(lua_, LUA_GCSETSTEPMUL, LUAI_GCMUL);
  state_->collector_changed = false;
}

}  // namespace sluice::scripting
