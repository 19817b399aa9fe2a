// Native limiter commands (contract section 4): RL.FIXEDWINDOW RL.SLIDINGLOG RL.SLIDINGWINDOW
// RL.TOKENBUCKET RL.LEAKYBUCKET RL.GCRA (five-field replies, COST, BLOCK), CL.THROTTLE
// (redis-cell's reply) and RL.SMOOTH (Guava's wait). The math is in algorithms/.

#include "algorithms/gcra.h"
#include "algorithms/smooth.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/limiter_run.h"
#include "server/limiter_call.h"
#include "server/limiter_queues.h"
#include "server/limiter_stats.h"
#include "server/limiter_store.h"

namespace sluice::server {
namespace {

using algorithms::AlgorithmTag;

// RL.<ALGORITHM> key <params...> [COST n] [BLOCK ms]
template <AlgorithmTag kTag>
void RateLimitCommand(CommandContext& ctx, Args args) {
  const size_t param_count = LimiterParamCount(kTag);
  auto options = ParseLimiterOptions(args.subspan(2 + param_count));
  auto call = MakeLimiterCall(kTag, args.subspan(2, param_count),
                              options.ok() ? options->cost : 1);
  // Positional arguments are checked first, as they come first.
  if (ReplyIfError(ctx, call.status())) return;
  if (ReplyIfError(ctx, options.status())) return;
  RunLimiter(ctx, args[0], args[1], std::move(call).value(), options->block_ms);
}

// The part CL.THROTTLE and RL.SMOOTH share (their replies are their own): reads and decodes
// the key's State, decides with `decide`, and stages the outcome (`command` names its event).
template <typename State, typename DecideFn>
auto DecideOnStoredState(CommandContext& ctx, std::string_view command, std::string_view key,
                         DecideFn decide) -> decltype(decide(static_cast<const State*>(nullptr))) {
  auto stored = ReadLimiterRecord(ctx.engine(), key, ctx.now_ms);
  if (!stored.ok()) return stored.status();
  std::optional<State> state;
  if (stored->live) {
    auto decoded = State::Decode(stored->live->payload);
    if (!decoded.ok()) return decoded.status();
    state = *decoded;
  }
  auto decision = decide(state ? &*state : nullptr);
  if (!decision.ok()) return decision.status();
  LimiterOutcome outcome;
  outcome.write_state = decision->write_state;
  if (outcome.write_state) outcome.state = decision->state.Encode();
  outcome.expire_at_ms = decision->ExpireAtMs();
  const bool staged = StageLimiterOutcome(ctx.engine(), key, *stored, outcome);
  NotifyLimiterEvent(ctx, command, key, [staged] { return staged; });
  return decision;
}

// CL.THROTTLE key max_burst count period [quantity]: redis-cell's command and reply.
void ThrottleCommand(CommandContext& ctx, Args args) {
  auto request = algorithms::ParseThrottleArgs(args.subspan(2));
  if (ReplyIfError(ctx, request.status())) return;
  ctx.decided = true;
  auto decision = DecideOnStoredState<algorithms::GcraState>(
      ctx, args[0], args[1], [&](const algorithms::GcraState* state) {
        return algorithms::Decide(state, request->params, ctx.now_us, request->quantity);
      });
  if (ReplyIfError(ctx, decision.status())) return;
  RecordDecision(ctx.server, args[1], AlgorithmTag::kGcra, decision->throttle.limited == 0);
  ctx.reply.IntArray(decision->throttle.ToArray());
}

// RL.SMOOTH key permits_per_second [MAXBURST s] [WARMUP ms [COLDFACTOR f]] [COST n]
// [TIMEOUT ms]: Guava's RateLimiter; replies the ms to wait, or nil past TIMEOUT.
void SmoothCommand(CommandContext& ctx, Args args) {
  auto request = algorithms::ParseSmoothArgs(args.subspan(2));
  if (ReplyIfError(ctx, request.status())) return;
  ctx.decided = true;
  auto decision = DecideOnStoredState<algorithms::SmoothState>(
      ctx, args[0], args[1], [&](const algorithms::SmoothState* state) {
        return algorithms::Decide(state, request->params, ctx.now_us, request->cost,
                                  request->timeout_ms);
      });
  if (ReplyIfError(ctx, decision.status())) return;
  RecordDecision(ctx.server, args[1], AlgorithmTag::kSmooth, decision->granted);
  if (decision->granted) {
    ctx.reply.Int(decision->wait_ms);
  } else {
    ctx.reply.Null();
  }
}

}  // namespace

void RegisterLimiterCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kLimiter = F::kWrite | F::kFast | F::kBlocking;
  // Each reply depends on when it is asked (retry_after, reset_after, RL.SMOOTH's wait), as
  // TTL's does: Redis's nondeterministic_output (docs/notes.md, session 35).
  table.Register(WithTips({"rl.fixedwindow", -4, kLimiter, 1, 1, 1,
                           RateLimitCommand<AlgorithmTag::kFixedWindow>, "limiter"},
                          kNondeterministic));
  table.Register(WithTips({"rl.slidinglog", -4, kLimiter, 1, 1, 1,
                           RateLimitCommand<AlgorithmTag::kSlidingLog>, "limiter"},
                          kNondeterministic));
  table.Register(WithTips({"rl.slidingwindow", -4, kLimiter, 1, 1, 1,
                           RateLimitCommand<AlgorithmTag::kSlidingWindow>, "limiter"},
                          kNondeterministic));
  table.Register(WithTips({"rl.tokenbucket", -5, kLimiter, 1, 1, 1,
                           RateLimitCommand<AlgorithmTag::kTokenBucket>, "limiter"},
                          kNondeterministic));
  table.Register(WithTips({"rl.leakybucket", -5, kLimiter, 1, 1, 1,
                           RateLimitCommand<AlgorithmTag::kLeakyBucket>, "limiter"},
                          kNondeterministic));
  table.Register(
      WithTips({"rl.gcra", -5, kLimiter, 1, 1, 1, RateLimitCommand<AlgorithmTag::kGcra>, "limiter"},
               kNondeterministic));
  table.Register(
      WithTips({"cl.throttle", -5, F::kWrite | F::kFast, 1, 1, 1, ThrottleCommand, "limiter"},
               kNondeterministic));
  table.Register(
      WithTips({"rl.smooth", -3, F::kWrite | F::kFast, 1, 1, 1, SmoothCommand, "limiter"},
               kNondeterministic));
}

}  // namespace sluice::server
