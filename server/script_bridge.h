#pragma once

// The server's side of scripting. It owns the Lua engine (scripting/engine.h), runs each
// redis.call through the dispatcher as the script's own client (so scripts get every check a
// network client gets, plus the script gates, and WATCH sees their writes), and keeps the
// ScriptRun state in ServerContext that the dispatcher's gates and the server's busy mode read.
//
// Busy mode: past lua-time-limit the engine's hook calls WhileBusy on every tick, which polls
// the event loop once; other sessions then run, but the dispatcher answers them -BUSY except
// for the commands Redis allows (SCRIPT KILL, SHUTDOWN NOSAVE, AUTH, HELLO, QUIT, RESET...),
// and the server neither commits, nor runs active expiry, nor decides BLOCK waiters meanwhile.

#include <functional>
#include <span>
#include <string_view>

#include "resp/capturing_builder.h"
#include "resp/value.h"
#include "scripting/engine.h"
#include "scripting/function_libraries.h"
#include "scripting/script_host.h"
#include "server/client.h"
#include "server/command_context.h"
#include "server/command_table.h"

namespace sluice::server {

// The command flags of EVAL, EVALSHA and FCALL: write, for MISCONF and for replacing the reply
// when the batch holding the script's writes cannot be logged. And of their *_RO forms.
inline constexpr CommandFlags kScriptCallFlags =
    CommandFlags::kNoScript | CommandFlags::kStale | CommandFlags::kWrite |
    CommandFlags::kMovableKeys | CommandFlags::kSkipMonitor | CommandFlags::kNoMandatoryKeys |
    CommandFlags::kRunsScript;
inline constexpr CommandFlags kScriptCallRoFlags =
    CommandFlags::kNoScript | CommandFlags::kStale | CommandFlags::kReadOnly |
    CommandFlags::kMovableKeys | CommandFlags::kSkipMonitor | CommandFlags::kNoMandatoryKeys |
    CommandFlags::kRunsScript;

// EVAL's and FCALL's args[3...] split by their key count: the keys, then the arguments, or
// Redis's error for a count past the arguments or below zero.
struct ScriptInputs {
  Args keys;
  Args argv;
};
StatusOr<ScriptInputs> SplitScriptInputs(Args args, int64_t numkeys);

class ScriptBridge final : public scripting::ScriptHost {
 public:
  // `serve_others` polls the event loop once; `on_finished` runs after every script.
  ScriptBridge(ServerContext& server, std::function<void()> serve_others,
               std::function<void()> on_finished);

  scripting::ScriptEngine& engine() { return engine_; }
  // FUNCTION and FCALL: the libraries, in a Lua engine of their own.
  scripting::FunctionLibraries& functions() { return functions_; }

  // Reads lua-time-limit and lua-memory-limit from the configuration.
  void ApplyConfig();

  // EVAL / EVALSHA / EVAL_RO / EVALSHA_RO once the script is known: Redis's checks before a
  // run (a shebang script with writes under *_RO), then the run, replying to ctx.reply.
  void Run(CommandContext& ctx, const scripting::Script& script, bool read_only_command, Args keys,
           Args argv);

  // FCALL / FCALL_RO: the same checks and run as a script's, the function's flags standing
  // for a shebang's.
  // `command` is the whole FCALL, for FUNCTION STATS.
  void RunFunction(CommandContext& ctx, const scripting::LibraryFunction& function,
                   bool read_only_command, Args command, Args keys, Args args);

  // Whether EVAL's, EVALSHA's or FCALL's (or a *_RO form's) script declares writes: its
  // shebang's or function's flags without no-writes; nullopt when it declares nothing
  // (compatibility mode, an unknown script or function). CLIENT PAUSE WRITE asks.
  std::optional<bool> DeclaresWrites(const CommandSpec& spec, Args args) const;

  // SCRIPT KILL (`function_kill` false) and FUNCTION KILL: OK, -NOTBUSY when nothing runs,
  // -UNKILLABLE once it has written, -BUSY when the other one must be used (SCRIPT KILL on
  // a function, FUNCTION KILL on a script), as Redis.
  void Kill(CommandContext& ctx, bool function_kill);

  // scripting::ScriptHost
  resp::Value Call(std::span<const std::string_view> args, resp::ProtocolVersion protocol) override;
  void WhileBusy(int64_t elapsed_ms, bool first) override;
  std::optional<bool> AclAllows(std::span<const std::string_view> args) override;
  void Log(scripting::LogLevel level, std::string_view message) override;

 private:
  ServerContext& server_;
  std::function<void()> serve_others_;
  std::function<void()> on_finished_;
  // Redis's checks before a run and the run itself; `run_engine` calls the engine. An FCALL
  // names its function and passes its whole command (FUNCTION STATS); an EVAL passes neither.
  // `keys`: the keys the command declared.
  template <typename RunFn>
  void RunChecked(CommandContext& ctx, const scripting::ScriptFlags& flags, bool read_only_command,
                  std::string_view function_name, Args command, Args keys, RunFn&& run_engine);

  Client client_;  // redis.call runs as this client, never connected
  // Each redis.call's reply, kept between calls so that its buffer is allocated once. (A
  // call cannot start inside another: redis.call refuses recursion, and the commands that
  // run scripts are refused in scripts.)
  resp::CapturingReplyBuilder capture_;
  std::shared_ptr<scripting::Rand48> random_;  // math.random's, EVAL's and FCALL's alike
  scripting::ScriptEngine engine_;
  scripting::FunctionLibraries functions_;
};

}  // namespace sluice::server
