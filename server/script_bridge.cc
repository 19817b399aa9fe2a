#include "server/script_bridge.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>
#include <vector>

#include "resp/capturing_builder.h"
#include "resp/error_messages.h"
#include "scripting/shebang.h"
#include "server/acl/check.h"
#include "server/acl/registry.h"
#include "server/commands/helpers.h"
#include "server/dispatcher.h"
#include "server/limiter_queues.h"

namespace sluice::server {

StatusOr<ScriptInputs> SplitScriptInputs(Args args, int64_t numkeys) {
  if (numkeys > static_cast<int64_t>(args.size() - 3)) {
    return Err(std::string(resp::kNumKeysTooMany));
  }
  if (numkeys < 0) return Err(std::string(resp::kScriptNegativeKeys));
  const auto n = static_cast<size_t>(numkeys);
  return ScriptInputs{args.subspan(3, n), args.subspan(3 + n)};
}

ScriptBridge::ScriptBridge(ServerContext& server, std::function<void()> serve_others,
                           std::function<void()> on_finished)
    : server_(server),
      serve_others_(std::move(serve_others)),
      on_finished_(std::move(on_finished)),
      random_(std::make_shared<scripting::Rand48>()),
      engine_(this, random_),
      functions_(this, random_) {
  client_.authenticated = true;
  client_.deny_blocking = true;  // BLOCK inside a script decides at once
  client_.is_local = true;
  client_.addr = "lua";
  client_.name = "lua";
  ApplyConfig();
}

void ScriptBridge::ApplyConfig() {
  for (scripting::ScriptEngine* engine : {&engine_, &functions_.engine()}) {
    engine->set_time_limit_ms(server_.config->lua_time_limit);
    engine->set_memory_limit(static_cast<size_t>(server_.config->lua_memory_limit));
  }
}

template <typename RunFn>
void ScriptBridge::RunChecked(CommandContext& ctx, const scripting::ScriptFlags& flags,
                              bool read_only_command, std::string_view function_name,
                              Args command, Args keys, RunFn&& run_engine) {
  // Redis's scriptPrepareForRun: only scripts with a shebang (and functions) declare whether
  // they write.
  if (flags.has_shebang && !flags.no_writes && read_only_command) {
    ReplyError(ctx, Err(std::string(resp::kScriptWriteFlagUnderRo)));
    return;
  }
  ScriptRun& run = server_.script;
  run = ScriptRun{};
  run.active = true;
  run.read_only = read_only_command || (flags.has_shebang && flags.no_writes);
  run.client = &client_;
  run.caller_id = ctx.client.id;
  run.start_ms = ctx.now_ms;
  run.function_name = function_name;
  run.command = command;
  run.keys = keys;
  client_.protocol = resp::ProtocolVersion::kResp2;
  // A script starts in its caller's database; its SELECTs change its own, not the caller's.
  client_.db = ctx.client.db;
  client_.user = ctx.client.user;  // its commands are checked against the caller's ACL

  // An error the script re-raises (or returns) from redis.call was counted when its command
  // answered it: the EVAL fails without counting it again, as in Redis.
  for (const scripting::ScriptError& error : run_engine()) {
    if (error.repeats_command_error) {
      server_.stats.errors.CountRepeated();
    } else {
      server_.stats.errors.Count(error.line);
    }
  }

  std::vector<std::string> poked = std::move(run.poked_keys);
  const bool poked_all = run.poked_all;
  run = ScriptRun{};
  // BLOCK waiters on keys the script wrote are served now, after it (as Redis serves clients
  // blocked on keys after the command), never in the middle of it.
  if (server_.limiter_queues != nullptr) {
    int64_t now_us = server_.clock->NowMicros();
    if (poked_all) {
      server_.limiter_queues->PokeAll(now_us);
    } else {
      for (const std::string& key : poked) server_.limiter_queues->Poke(key, now_us);
    }
  }
  on_finished_();
}

void ScriptBridge::Run(CommandContext& ctx, const scripting::Script& script, bool read_only_command,
                       Args keys, Args argv) {
  RunChecked(ctx, script.flags, read_only_command, /*function_name=*/{}, /*command=*/{}, keys,
             [&] { return engine_.Run(script, keys, argv, ctx.reply); });
}

void ScriptBridge::RunFunction(CommandContext& ctx, const scripting::LibraryFunction& function,
                               bool read_only_command, Args command, Args keys, Args args) {
  RunChecked(ctx, function.flags, read_only_command, function.name, command, keys, [&] {
    return functions_.engine().RunFunction(function, keys, args, ctx.reply);
  });
}

std::optional<bool> ScriptBridge::DeclaresWrites(const CommandSpec& spec, Args args) const {
  if (args.size() < 2) return std::nullopt;
  std::optional<scripting::ScriptFlags> flags;
  if (spec.name.starts_with("fcall")) {
    if (const scripting::LibraryFunction* f = functions_.FindFunction(args[1])) flags = f->flags;
  } else if (spec.name.starts_with("evalsha")) {
    if (const scripting::Script* script = engine_.Find(args[1])) flags = script->flags;
  } else {
    // EVAL: the body's shebang, which is also what a cached copy of it holds.
    StatusOr<scripting::Shebang> shebang = scripting::ParseShebang(args[1]);
    if (shebang.ok()) flags = shebang->flags;
  }
  if (!flags || !flags->has_shebang) return std::nullopt;
  return !flags->no_writes;
}

void ScriptBridge::Kill(CommandContext& ctx, bool function_kill) {
  const bool function_runs = functions_.engine().running();
  if (!engine_.running() && !function_runs) {
    ReplyError(ctx, {Code::kNotBusy, std::string(resp::kNotBusyMsg)});
  } else if (server_.script.wrote) {
    ReplyError(ctx, {Code::kUnkillable, std::string(resp::kUnkillableMsg)});
  } else if (function_runs != function_kill) {
    ReplyError(ctx, {Code::kBusy, std::string(function_runs ? resp::kBusyFunctionMsg
                                                             : resp::kBusyMsg)});
  } else {
    (function_runs ? functions_.engine() : engine_).Kill();
    ctx.reply.Ok();
  }
}

resp::Value ScriptBridge::Call(std::span<const std::string_view> args,
                               resp::ProtocolVersion protocol) {
  capture_.set_protocol(protocol);
  client_.protocol = protocol;
  server_.dispatcher->Dispatch(client_, args, capture_);
  resp::Value reply = capture_.Take();
  capture_.Clear();  // every command replies once, but nothing may leak into the next call
  return reply;
}

void ScriptBridge::WhileBusy(int64_t elapsed_ms, bool first) {
  if (first) {
    server_.script.busy = true;
    spdlog::warn(
        "Slow script detected: still in execution after {} milliseconds. You can try killing "
        "the script using the SCRIPT KILL command.",
        elapsed_ms);
  }
  serve_others_();
}

std::optional<bool> ScriptBridge::AclAllows(std::span<const std::string_view> args) {
  const CommandSpec* spec = server_.commands->Find(args[0]);
  const RequestSubcommand named = LookupRequestSubcommand(spec, args);
  if (spec == nullptr || (named.given && named.sub == nullptr)) return std::nullopt;
  const AclCommandIds& ids = server_.acl->ids();
  // As Redis, no arity check: where the arguments do not fit the command, its keys and
  // channels cannot be found, and only the command is judged.
  if (!ArityMatches(named.sub != nullptr ? named.sub->arity : spec->arity, args.size())) {
    return CheckAclCommand(*client_.user, ids, *spec, named.sub).ok();
  }
  return CheckAcl(*client_.user, ids, *spec, named.sub, args).ok();
}

void ScriptBridge::Log(scripting::LogLevel level, std::string_view message) {
  switch (level) {
    case scripting::LogLevel::kDebug:
      spdlog::trace("{}", message);
      return;
    case scripting::LogLevel::kVerbose:
      spdlog::debug("{}", message);
      return;
    case scripting::LogLevel::kNotice:
      spdlog::info("{}", message);
      return;
    case scripting::LogLevel::kWarning:
      spdlog::warn("{}", message);
      return;
  }
}

}  // namespace sluice::server
