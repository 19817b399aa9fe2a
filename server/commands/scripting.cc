// EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT (LOAD EXISTS FLUSH KILL HELP). The Lua engine and the
// run itself live in ScriptBridge (server/script_bridge.h); this file parses and replies.
//
// EVAL and EVALSHA are write commands to the dispatcher: when the batch holding a script's
// writes cannot be logged, the EVAL reply becomes -MISCONF like any write's. WATCH sees the
// keys a script actually writes (each redis.call write touches its keys), as in Redis.

#include <string>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/script_bridge.h"

namespace sluice::server {
namespace {

struct EvalArgs {
  std::string_view body_or_sha;
  Args keys;
  Args argv;
};

// EVAL script numkeys [key ...] [arg ...]
StatusOr<EvalArgs> ParseEval(Args args) {
  int64_t numkeys = 0;
  if (!ParseInt64(args[2], &numkeys)) return NotIntegerError();
  StatusOr<ScriptInputs> inputs = SplitScriptInputs(args, numkeys);
  if (!inputs.ok()) return inputs.status();
  return EvalArgs{args[1], inputs->keys, inputs->argv};
}

Status NoScriptError() { return {Code::kNoScript, std::string(resp::kNoScriptMsg)}; }

// The EVAL after a refused SCRIPT DEBUG YES|SYNC, which Redis would debug: not run at all.
// EVALSHA gets Redis's own refusal and leaves the request standing, as in Redis.
void RefuseDebuggedEval(CommandContext& ctx, bool by_sha) {
  if (by_sha) {
    ReplyError(ctx, Err("Please use EVAL instead of EVALSHA for debugging"));
    return;
  }
  ctx.client.script_debug_refused = false;
  ReplyError(ctx, Err("sluice has no Lua debugger (SCRIPT DEBUG): the script was not run"));
}

void ExecEval(CommandContext& ctx, Args args, bool by_sha, bool read_only) {
  // EVALSHA refuses a SHA of the wrong length before looking at numkeys, as Redis.
  if (by_sha && args[1].size() != 40) {
    ReplyError(ctx, NoScriptError());
    return;
  }
  if (ctx.client.script_debug_refused) {
    RefuseDebuggedEval(ctx, by_sha);
    return;
  }
  StatusOr<EvalArgs> parsed = ParseEval(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  scripting::ScriptEngine& engine = ctx.server.scripts->engine();
  const scripting::Script* script = nullptr;
  if (by_sha) {
    script = engine.FindToRun(parsed->body_or_sha);
    if (script == nullptr) {
      ReplyError(ctx, NoScriptError());
      return;
    }
  } else {
    StatusOr<const scripting::Script*> loaded =
        engine.Load(parsed->body_or_sha, scripting::ScriptOrigin::kEval);
    if (ReplyIfError(ctx, loaded.status())) return;
    script = *loaded;
  }
  ctx.server.scripts->Run(ctx, *script, read_only, parsed->keys, parsed->argv);
}

void EvalCommand(CommandContext& ctx, Args args) { ExecEval(ctx, args, false, false); }
void EvalShaCommand(CommandContext& ctx, Args args) { ExecEval(ctx, args, true, false); }
void EvalRoCommand(CommandContext& ctx, Args args) { ExecEval(ctx, args, false, true); }
void EvalShaRoCommand(CommandContext& ctx, Args args) { ExecEval(ctx, args, true, true); }

void ScriptLoadSub(CommandContext& ctx, Args args) {
  StatusOr<const scripting::Script*> loaded = ctx.server.scripts->engine().Load(args[2]);
  if (ReplyIfError(ctx, loaded.status())) return;
  ctx.reply.Bulk((*loaded)->sha);
}

void ExistsSub(CommandContext& ctx, Args args) {
  scripting::ScriptEngine& engine = ctx.server.scripts->engine();
  ctx.reply.Array(static_cast<int64_t>(args.size() - 2));
  for (size_t i = 2; i < args.size(); ++i) ctx.reply.Int(engine.Find(args[i]) ? 1 : 0);
}

// SCRIPT FLUSH [ASYNC|SYNC]: the cache is small, so both modes flush at once.
void ScriptFlushSub(CommandContext& ctx, Args args) {
  bool mode_ok = args.size() == 2 || (args.size() == 3 && (EqualsIgnoreCase(args[2], "sync") ||
                                                           EqualsIgnoreCase(args[2], "async")));
  if (!mode_ok) {
    ReplyError(ctx, Err(std::string(resp::kScriptFlushOption)));
    return;
  }
  ctx.server.scripts->engine().Flush();
  ctx.reply.Ok();
}

void ScriptKillSub(CommandContext& ctx, Args) {
  ctx.server.scripts->Kill(ctx, /*function_kill=*/false);
}

// No debugger in sluice: SCRIPT DEBUG NO is the state it is always in. YES or SYNC is
// refused, and so is the EVAL it was meant for (RefuseDebuggedEval).
void DebugSub(CommandContext& ctx, Args args) {
  // Redis's debugger talks to the client directly, so it refuses to start with replies still
  // to send (a pipeline's, or EXEC's), before it looks at the mode.
  const PushSink* session = ctx.client.push_sink;
  if (session != nullptr && session->HasUnsentReplies()) {
    ReplyError(ctx, Err("SCRIPT DEBUG must be called outside a pipeline"));
    return;
  }
  if (EqualsIgnoreCase(args[2], "no")) {
    ctx.client.script_debug_refused = false;
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(args[2], "yes") || EqualsIgnoreCase(args[2], "sync")) {
    ctx.client.script_debug_refused = true;
    ReplyError(ctx, Err("SCRIPT DEBUG is not supported by sluice"));
  } else {
    ReplyError(ctx, Err("Use SCRIPT DEBUG YES/SYNC/NO"));
  }
}

void ScriptHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it."};
  ReplyHelp(ctx, "SCRIPT", kLines);
}

// Redis's tips: the script cache is every node's own.
constexpr Subcommand kScriptSubcommands[] = {
    WithTips({"load", 3, ScriptLoadSub}, kOnAllNodes),
    WithTips({"exists", -3, ExistsSub},
             {CommandTip::kRequestAllShards, CommandTip::kResponseAggLogicalAnd}),
    WithTips({"flush", -2, ScriptFlushSub}, kOnAllNodes),
    WithTips({"kill", 2, ScriptKillSub},
             {CommandTip::kRequestAllShards, CommandTip::kResponseOneSucceeded}),
    {"debug", 3, DebugSub},
    {"help", 2, ScriptHelpSub},
};

void ScriptCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kScriptSubcommands);
}

}  // namespace

// Redis's: a script is neither @read nor @write, whatever its flags say (its commands are checked
// one by one), so `+@all -@write` may run one.
constexpr std::string_view kScriptCategories[] = {"@slow", "@scripting"};

void RegisterScriptingCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kEval = kScriptCallFlags;
  const F kEvalRo = kScriptCallRoFlags;
  table.Register(
      WithAclCategories({"eval", -3, kEval, 0, 0, 0, EvalCommand, "scripting"}, kScriptCategories));
  table.Register(WithAclCategories({"evalsha", -3, kEval, 0, 0, 0, EvalShaCommand, "scripting"},
                                   kScriptCategories));
  table.Register(WithAclCategories({"eval_ro", -3, kEvalRo, 0, 0, 0, EvalRoCommand, "scripting"},
                                   kScriptCategories));
  table.Register(WithAclCategories(
      {"evalsha_ro", -3, kEvalRo, 0, 0, 0, EvalShaRoCommand, "scripting"}, kScriptCategories));
  // kAllowBusy for SCRIPT KILL only: the dispatcher refuses the other subcommands while busy.
  table.Register({"script", -2, F::kNoScript | F::kAllowBusy, 0, 0, 0, ScriptCommand, "scripting",
                  kScriptSubcommands});
}

}  // namespace sluice::server
