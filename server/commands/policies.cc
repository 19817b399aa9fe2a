// Named policies (contract section 5): RL.POLICY SET|GET|DEL|LIST, RL.TAKE, RL.STATUS,
// RL.RESET.

#include <spdlog/spdlog.h>

#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/limiter_run.h"
#include "server/dispatcher.h"
#include "server/limiter_store.h"
#include "server/policy_store.h"
#include "server/policy_take.h"

namespace sluice::server {
namespace {

bool IsOptionKeyword(std::string_view word) {
  return EqualsIgnoreCase(word, "COST") || EqualsIgnoreCase(word, "BLOCK");
}

// ---- RL.POLICY ----------------------------------------------------------------------------

void PolicySetSub(CommandContext& ctx, Args args) {
  std::string_view name = args[2];
  if (ReplyIfError(ctx, ValidateNewPolicyName(name))) return;
  auto definition = ParsePolicyDefinition(name, args.subspan(3));
  if (ReplyIfError(ctx, definition.status())) return;
  const PolicyRegistry::Entry* existing = ctx.server.policies.Find(name);
  std::string before = existing ? existing->definition.Canonical() : "";
  if (ReplyIfError(ctx, ctx.server.policies.Set(*definition, ctx.now_us))) return;
  StorePolicy(ctx.engine(), *ctx.server.policies.Find(name));
  ctx.engine().SetLimiterExpiryHold(ctx.server.policies.hold());
  if (before.empty()) {
    spdlog::info("Policy '{}' defined: {}", name, definition->Canonical());
  } else if (before != definition->Canonical()) {
    spdlog::info("Policy '{}' changed: {} -> {}", name, before, definition->Canonical());
    // Requests waiting (BLOCK) on the policy are decided under the new definition.
    ctx.server.dispatcher->PokeWaiters(std::nullopt, ctx.now_us);
  }
  ctx.reply.Ok();
}

void PolicyGetSub(CommandContext& ctx, Args args) {
  const PolicyRegistry::Entry* entry = ctx.server.policies.Find(args[2]);
  if (entry == nullptr) {
    ctx.reply.Null();
    return;
  }
  const PolicyDefinition& d = entry->definition;
  ctx.reply.Map(7);
  ctx.reply.Bulk("name");
  ctx.reply.Bulk(d.name);
  ctx.reply.Bulk("algorithm");
  ctx.reply.Bulk(algorithms::AlgorithmName(d.algorithm));
  ctx.reply.Bulk("args");
  ReplyBulks(ctx, d.args);
  ctx.reply.Bulk("allowed");
  ctx.reply.Int(static_cast<int64_t>(entry->counters.allowed));
  ctx.reply.Bulk("refused");
  ctx.reply.Int(static_cast<int64_t>(entry->counters.refused));
  ctx.reply.Bulk("blocked");
  ctx.reply.Int(static_cast<int64_t>(entry->counters.blocked));
  ctx.reply.Bulk("timed_out");
  ctx.reply.Int(static_cast<int64_t>(entry->counters.timed_out));
}

void PolicyDelSub(CommandContext& ctx, Args args) {
  bool existed = ctx.server.policies.Delete(args[2]);
  if (existed) {
    EraseStoredPolicy(ctx.engine(), args[2]);
    ctx.engine().SetLimiterExpiryHold(ctx.server.policies.hold());
    spdlog::info("Policy '{}' deleted", args[2]);
    ctx.server.dispatcher->PokeWaiters(std::nullopt, ctx.now_us);  // its waiters get an error
  }
  ctx.reply.Int(existed ? 1 : 0);
}

void PolicyListSub(CommandContext& ctx, Args) {
  std::vector<std::string> names = ctx.server.policies.Names();
  ReplyBulks(ctx, names);
}

void PolicyHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "SET <name> <algorithm> <arg> [<arg> ...]",
      "    Define or change the policy <name>. <algorithm> is one of FIXEDWINDOW, SLIDINGLOG,",
      "    SLIDINGWINDOW, TOKENBUCKET, LEAKYBUCKET, GCRA, with the arguments of its RL.* command.",
      "GET <name>",
      "    Return the policy's algorithm, arguments and counters, or nil.",
      "DEL <name>",
      "    Remove the policy. Return 1 if it existed, else 0.",
      "LIST",
      "    Return the names of the policies."};
  ReplyHelp(ctx, "RL.POLICY", kLines);
}

constexpr Subcommand kPolicySubcommands[] = {
    {"set", -5, PolicySetSub},  {"get", 3, PolicyGetSub},   {"del", 3, PolicyDelSub},
    {"list", 2, PolicyListSub}, {"help", 2, PolicyHelpSub},
};

void PolicyCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kPolicySubcommands);
}

// ---- RL.TAKE / RL.STATUS / RL.RESET -----------------------------------------------------------

size_t CountPolicyNames(Args after_key) {
  size_t n = 0;
  while (n < after_key.size() && !IsOptionKeyword(after_key[n])) ++n;
  return n;
}

// RL.TAKE key policy [policy ...] [COST n] [BLOCK ms]
void TakeCommand(CommandContext& ctx, Args args) {
  Args after_key = args.subspan(2);
  size_t name_count = CountPolicyNames(after_key);
  if (name_count == 0) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  auto options = ParseLimiterOptions(after_key.subspan(name_count));
  auto call = PolicyTakeCall::Make(ctx.server.policies, after_key.first(name_count),
                                   options.ok() ? options->cost : 1);
  // An unknown policy is reported before bad options, as the names come first.
  if (ReplyIfError(ctx, call.status())) return;
  if (ReplyIfError(ctx, options.status())) return;
  RunLimiter(ctx, args[0], args[1], std::move(call).value(), options->block_ms);
}

// RL.STATUS key policy [policy ...]: RL.TAKE with COST 0, which counts nothing.
void StatusCommand(CommandContext& ctx, Args args) {
  auto call = PolicyTakeCall::Make(ctx.server.policies, args.subspan(2), 0);
  if (ReplyIfError(ctx, call.status())) return;
  auto stored = ReadLimiterState(ctx.engine(), args[1], ctx.now_ms);
  if (ReplyIfError(ctx, stored.status())) return;
  auto outcome = (*call)->Decide(*stored, ctx.now_us);
  if (ReplyIfError(ctx, outcome.status())) return;
  ReplyVerdict(ctx.reply, outcome->verdict);
}

// RL.RESET key [policy ...]: the number of policy states removed. Without policies every
// state under the key goes (a key of a plain RL.* command counts as one).
void PolicyResetCommand(CommandContext& ctx, Args args) {
  auto stored = ReadLimiterRecord(ctx.engine(), args[1], ctx.now_ms);
  if (ReplyIfError(ctx, stored.status())) return;
  if (!stored->live) {
    ctx.reply.Int(0);
    return;
  }
  const uint32_t stored_bytes = stored->stored_bytes();
  auto states = PolicyStates::Decode(stored->live->payload);
  if (!states.ok()) {  // a plain RL.* limiter: only a reset of everything removes it
    bool all = args.size() == 2;
    if (all) ctx.engine().Delete(args[1]);
    NotifyLimiterEvent(ctx, args[0], args[1], [all] { return all; });
    ctx.reply.Int(all ? 1 : 0);
    return;
  }
  states->DropExpired(ctx.now_ms, ctx.server.policies.change_hold().get());
  size_t removed = 0;
  if (args.size() == 2) {
    removed = states->entries.size();
    states->entries.clear();
  } else {
    for (std::string_view name : args.subspan(2)) removed += states->Remove(name);
  }
  // Every state gone (expired ones too) deletes the key: a write, whatever `removed` says.
  NotifyLimiterEvent(ctx, args[0], args[1], [&] { return states->entries.empty() || removed > 0; });
  if (states->entries.empty()) {
    ctx.engine().Delete(args[1]);
  } else if (removed > 0) {
    LimiterOutcome outcome;
    outcome.write_state = true;
    outcome.state = states->Encode();
    outcome.expire_at_ms = states->ExpireAtMs();
    StageLimiterState(ctx.engine(), args[1], outcome, stored_bytes);
  }
  ctx.reply.Int(static_cast<int64_t>(removed));
}

}  // namespace

void RegisterPolicyCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register(
      {"rl.policy", -2, F::kWrite, 0, 0, 0, PolicyCommand, "limiter", kPolicySubcommands});
  // Their replies depend on when they are asked, as the RL.* commands' (limiters.cc); RL.RESET's
  // count and RL.POLICY's replies do not, no more than DEL's.
  table.Register(WithTips(
      {"rl.take", -3, F::kWrite | F::kFast | F::kBlocking, 1, 1, 1, TakeCommand, "limiter"},
      kNondeterministic));
  table.Register(
      WithTips({"rl.status", -3, F::kReadOnly | F::kFast, 1, 1, 1, StatusCommand, "limiter"},
               kNondeterministic));
  table.Register({"rl.reset", -2, F::kWrite | F::kFast, 1, 1, 1, PolicyResetCommand, "limiter"});
}

}  // namespace sluice::server
