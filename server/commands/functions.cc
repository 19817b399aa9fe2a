// FCALL FCALL_RO FUNCTION (LOAD DELETE FLUSH LIST STATS KILL DUMP RESTORE HELP): Redis 7.0's
// functions. The libraries live in ScriptBridge (scripting/function_libraries.h), a run goes
// through the same path as EVAL's (ScriptBridge::RunFunction), and every change of the
// libraries is staged in the system family (server/function_store.h) with the command's batch.

#include <string>

#include "common/ascii.h"
#include "common/glob_match.h"
#include "common/string2ll.h"
#include "resp/error_messages.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/function_payload.h"
#include "server/function_store.h"
#include "server/script_bridge.h"

namespace sluice::server {
namespace {

using scripting::FunctionLibraries;
using scripting::Library;
using scripting::LibraryFunction;

FunctionLibraries& Libraries(CommandContext& ctx) { return ctx.server.scripts->functions(); }

// FCALL function numkeys [key ...] [arg ...]: Redis looks the function up before the count.
void ExecFcall(CommandContext& ctx, Args args, bool read_only) {
  const LibraryFunction* function = Libraries(ctx).FindFunction(args[1]);
  if (function == nullptr) {
    ReplyError(ctx, Err("Function not found"));
    return;
  }
  int64_t numkeys = 0;
  if (!ParseInt64(args[2], &numkeys)) {
    ReplyError(ctx, Err("Bad number of keys provided"));
    return;
  }
  StatusOr<ScriptInputs> inputs = SplitScriptInputs(args, numkeys);
  if (ReplyIfError(ctx, inputs.status())) return;
  ctx.server.scripts->RunFunction(ctx, *function, read_only, args, inputs->keys, inputs->argv);
}

void FcallCommand(CommandContext& ctx, Args args) { ExecFcall(ctx, args, false); }
void FcallRoCommand(CommandContext& ctx, Args args) { ExecFcall(ctx, args, true); }

struct LoadArgs {
  bool replace = false;
  std::string_view code;
};

// FUNCTION LOAD [REPLACE] code
StatusOr<LoadArgs> ParseLoad(Args args) {
  LoadArgs parsed;
  size_t i = 2;
  for (; i + 1 < args.size(); ++i) {
    if (!EqualsIgnoreCase(args[i], "replace")) {
      return Err("Unknown option given: " + std::string(args[i]));
    }
    parsed.replace = true;
  }
  if (i >= args.size()) return Err("Function code is missing");
  parsed.code = args[i];
  return parsed;
}

void FunctionLoadSub(CommandContext& ctx, Args args) {
  StatusOr<LoadArgs> parsed = ParseLoad(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  StatusOr<std::string> name = Libraries(ctx).Load(parsed->code, parsed->replace);
  if (ReplyIfError(ctx, name.status())) return;
  StoreLibrary(ctx.engine(), Libraries(ctx).libraries().find(*name)->second);
  ctx.reply.Bulk(*name);
}

void DeleteSub(CommandContext& ctx, Args args) {
  if (!Libraries(ctx).Delete(args[2])) {
    ReplyError(ctx, Err("Library not found"));
    return;
  }
  EraseStoredLibrary(ctx.engine(), args[2]);
  ctx.reply.Ok();
}

// FUNCTION FLUSH [ASYNC|SYNC]: the libraries are small, so both modes flush at once.
void FunctionFlushSub(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  if (args.size() == 3 && !EqualsIgnoreCase(args[2], "sync") &&
      !EqualsIgnoreCase(args[2], "async")) {
    ReplyError(ctx, Err("FUNCTION FLUSH only supports SYNC|ASYNC option"));
    return;
  }
  Libraries(ctx).Flush();
  if (ReplyIfError(ctx, StoreAllLibraries(ctx.engine(), Libraries(ctx)))) return;
  ctx.reply.Ok();
}

void ReplyFunction(CommandContext& ctx, const LibraryFunction& f) {
  ctx.reply.Map(3);
  ctx.reply.Bulk("name");
  ctx.reply.Bulk(f.name);
  ctx.reply.Bulk("description");
  if (f.description) {
    ctx.reply.Bulk(*f.description);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Bulk("flags");
  const std::pair<bool, std::string_view> flags[] = {
      {f.flags.no_writes, "no-writes"},
      {f.flags.allow_oom, "allow-oom"},
      {f.flags.allow_stale, "allow-stale"},
      {f.flags.no_cluster, "no-cluster"},
      {f.flags.allow_cross_slot_keys, "allow-cross-slot-keys"}};
  int64_t count = 0;
  for (const auto& [set, name] : flags) count += set ? 1 : 0;
  ctx.reply.Set(count);
  for (const auto& [set, name] : flags) {
    if (set) ctx.reply.Simple(name);
  }
}

struct ListArgs {
  bool with_code = false;
  std::optional<std::string_view> pattern;  // LIBRARYNAME, matched ignoring case as Redis
};

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]
StatusOr<ListArgs> ParseList(Args args) {
  ListArgs parsed;
  for (size_t i = 2; i < args.size(); ++i) {
    if (!parsed.with_code && EqualsIgnoreCase(args[i], "withcode")) {
      parsed.with_code = true;
    } else if (!parsed.pattern && EqualsIgnoreCase(args[i], "libraryname")) {
      if (i + 1 >= args.size()) return Err("library name argument was not given");
      parsed.pattern = args[++i];
    } else {
      return Err("Unknown argument " + std::string(args[i]));
    }
  }
  return parsed;
}

void FunctionListSub(CommandContext& ctx, Args args) {
  StatusOr<ListArgs> parsed = ParseList(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  const auto& [with_code, pattern] = *parsed;
  std::vector<const Library*> shown;
  for (const auto& [name, library] : Libraries(ctx).libraries()) {
    if (!pattern || GlobMatch(*pattern, name, /*nocase=*/true)) shown.push_back(&library);
  }
  ctx.reply.Array(static_cast<int64_t>(shown.size()));
  for (const Library* library : shown) {
    ctx.reply.Map(with_code ? 4 : 3);
    ctx.reply.Bulk("library_name");
    ctx.reply.Bulk(library->name);
    ctx.reply.Bulk("engine");
    ctx.reply.Bulk("LUA");
    ctx.reply.Bulk("functions");
    ctx.reply.Array(static_cast<int64_t>(library->functions.size()));
    for (const LibraryFunction& f : library->functions) ReplyFunction(ctx, f);
    if (with_code) {
      ctx.reply.Bulk("library_code");
      ctx.reply.Bulk(library->code);
    }
  }
}

// FUNCTION STATS: the running function (a running EVAL is -BUSY, as Redis 7.0) and the engine.
void StatsSub(CommandContext& ctx, Args) {
  const ScriptRun& run = ctx.server.script;
  if (run.active && run.function_name.empty()) {
    ReplyError(ctx, {Code::kBusy, std::string(resp::kBusyMsg)});
    return;
  }
  ctx.reply.Map(2);
  ctx.reply.Bulk("running_script");
  if (!run.active) {
    ctx.reply.Null();
  } else {
    ctx.reply.Map(3);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(run.function_name);
    ctx.reply.Bulk("command");
    ctx.reply.Array(static_cast<int64_t>(run.command.size()));
    for (std::string_view arg : run.command) ctx.reply.Bulk(arg);
    ctx.reply.Bulk("duration_ms");
    ctx.reply.Int(ctx.now_ms - run.start_ms);
  }
  ctx.reply.Bulk("engines");
  ctx.reply.Map(1);
  ctx.reply.Bulk("LUA");
  ctx.reply.Map(2);
  ctx.reply.Bulk("libraries_count");
  ctx.reply.Int(static_cast<int64_t>(Libraries(ctx).libraries().size()));
  ctx.reply.Bulk("functions_count");
  ctx.reply.Int(static_cast<int64_t>(Libraries(ctx).function_count()));
}

void FunctionKillSub(CommandContext& ctx, Args) {
  ctx.server.scripts->Kill(ctx, /*function_kill=*/true);
}

void DumpSub(CommandContext& ctx, Args) {
  std::vector<std::string_view> codes;
  for (const auto& [name, library] : Libraries(ctx).libraries()) codes.push_back(library.code);
  ctx.reply.Bulk(EncodeFunctionPayload(codes));
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
StatusOr<scripting::RestorePolicy> ParseRestorePolicy(Args args) {
  if (args.size() > 4) return Err(resp::SubcommandSyntaxError(args[1], args[0]));
  if (args.size() < 4 || EqualsIgnoreCase(args[3], "append")) {
    return scripting::RestorePolicy::kAppend;
  }
  if (EqualsIgnoreCase(args[3], "flush")) return scripting::RestorePolicy::kFlush;
  if (EqualsIgnoreCase(args[3], "replace")) return scripting::RestorePolicy::kReplace;
  return Err("Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
}

void RestoreSub(CommandContext& ctx, Args args) {
  StatusOr<scripting::RestorePolicy> policy = ParseRestorePolicy(args);
  if (ReplyIfError(ctx, policy.status())) return;
  StatusOr<std::vector<std::string>> codes = DecodeFunctionPayload(args[2]);
  if (ReplyIfError(ctx, codes.status())) return;
  if (ReplyIfError(ctx, Libraries(ctx).Restore(*codes, *policy))) return;
  if (ReplyIfError(ctx, StoreAllLibraries(ctx.engine(), Libraries(ctx)))) return;
  ctx.reply.Ok();
}

void FunctionHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored "
      "using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library)."};
  ReplyHelp(ctx, "FUNCTION", kLines);
}

// LOAD, DELETE, FLUSH and RESTORE write (their libraries are staged with the batch, and the
// reply becomes -MISCONF when it cannot be logged); KILL and STATS must answer at once while a
// busy script's writes wait for their commit.
// Redis's tips: the changes go to every shard, and must succeed on all of them.
constexpr Subcommand kFunctionSubcommands[] = {
    WithTips({"load", -3, FunctionLoadSub, false, true}, kOnAllShards),
    WithTips({"delete", 3, DeleteSub, false, true}, kOnAllShards),
    WithTips({"flush", -2, FunctionFlushSub, false, true}, kOnAllShards),
    WithTips({"list", -2, FunctionListSub}, kInAnyOrder),
    WithTips({"stats", 2, StatsSub}, {CommandTip::kNondeterministicOutput,
                                      CommandTip::kRequestAllShards, CommandTip::kResponseSpecial}),
    WithTips({"kill", 2, FunctionKillSub},
             {CommandTip::kRequestAllShards, CommandTip::kResponseOneSucceeded}),
    {"dump", 2, DumpSub},
    WithTips({"restore", -3, RestoreSub, false, true}, kOnAllShards),
    {"help", 2, FunctionHelpSub},
};

void FunctionCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kFunctionSubcommands);
}

}  // namespace

// Redis's categories: FCALL is not a @write command to ACLs, nor FCALL_RO a @read one.
constexpr std::string_view kFcallCategories[] = {"@slow", "@scripting"};

void RegisterFunctionCommands(CommandTable& table) {
  using F = CommandFlags;
  CommandSpec fcall{"fcall", -3, kScriptCallFlags, 0, 0, 0, FcallCommand, "scripting"};
  fcall.acl_categories = kFcallCategories;
  table.Register(fcall);
  CommandSpec fcall_ro = fcall;
  fcall_ro.name = "fcall_ro";
  fcall_ro.flags = kScriptCallRoFlags;
  fcall_ro.handler = FcallRoCommand;
  table.Register(fcall_ro);
  // kAllowBusy for KILL and STATS only: the dispatcher refuses the others while busy.
  table.Register({"function", -2, F::kNoScript | F::kAllowBusy, 0, 0, 0, FunctionCommand,
                  "scripting", kFunctionSubcommands});
}

}  // namespace sluice::server
