#include "server/limiter_call.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/sliding_log.h"
#include "algorithms/sliding_window.h"
#include "algorithms/token_bucket.h"

namespace sluice::server {
namespace {

namespace alg = sluice::algorithms;
using alg::AlgorithmTag;

// An algorithm that can decide on its encoded state without decoding it (the sliding log,
// whose state grows with its limit) provides DecideOnEncoding for its parameters.
template <typename Params>
concept DecidesOnEncoding = requires(std::string_view encoded, const Params& params) {
  alg::DecideOnEncoding(encoded, params, int64_t{0}, int64_t{0});
};
static_assert(DecidesOnEncoding<alg::SlidingLogParams>);
static_assert(!DecidesOnEncoding<alg::TokenBucketParams>);

template <typename Params, typename State, AlgorithmTag kTag>
class AlgorithmCall final : public LimiterCall {
 public:
  AlgorithmCall(Params params, int64_t cost) : params_(params), cost_(cost) {}

  int64_t cost() const override { return cost_; }
  std::optional<AlgorithmTag> algorithm() const override { return kTag; }

  StatusOr<LimiterOutcome> Decide(std::optional<std::string_view> stored,
                                  int64_t now_us) const override {
    if constexpr (DecidesOnEncoding<Params>) {
      if (stored) {
        if (auto decided = alg::DecideOnEncoding(*stored, params_, now_us, cost_)) {
          LimiterOutcome outcome = Outcome(decided->decision, std::move(decided->encoded));
          outcome.pruned_state = std::move(decided->pruned);
          return outcome;
        }
      }
    }
    std::optional<State> state;
    if (stored) {
      auto decoded = State::Decode(*stored);
      if (!decoded.ok()) return decoded.status();
      state = std::move(decoded).value();
    }
    auto decision = alg::Decide(state ? &*state : nullptr, params_, now_us, cost_);
    if (!decision.ok()) return decision.status();
    return Outcome(*decision);
  }

  std::unique_ptr<LimiterCall> WithCost(int64_t cost) const override {
    return std::make_unique<AlgorithmCall>(params_, cost);
  }

 private:
  LimiterOutcome Outcome(const alg::Decision<State>& decision) const {
    return Outcome(decision, decision.write_state ? decision.state.Encode() : std::string());
  }

  // `encoded` is the new state's encoding, when the decision writes one.
  LimiterOutcome Outcome(const alg::Decision<State>& decision, std::string encoded) const {
    LimiterOutcome outcome;
    outcome.verdict = decision.verdict();
    if (cost_ == 0) {
      // COST 0 inspects: always "allowed", even when a lowered limit is already exceeded.
      outcome.verdict.allowed = true;
      outcome.verdict.retry_after_ms = -1;
    }
    outcome.write_state = decision.write_state;
    outcome.state = std::move(encoded);
    outcome.expire_at_ms = decision.ExpireAtMs();
    return outcome;
  }

  Params params_;
  int64_t cost_;
};

template <typename Params, typename State, typename Parser>
StatusOr<RescaledState> Rescale(Parser parse, std::span<const std::string_view> old_args,
                                std::span<const std::string_view> new_args,
                                std::string_view encoded, int64_t now_us) {
  StatusOr<Params> old_params = parse(old_args);
  if (!old_params.ok()) return old_params.status();
  StatusOr<Params> new_params = parse(new_args);
  if (!new_params.ok()) return new_params.status();
  auto state = State::Decode(encoded);
  if (!state.ok()) return state.status();
  auto rescaled = alg::Rescale(*state, *old_params, *new_params, now_us);
  if (!rescaled.ok()) return rescaled.status();
  RescaledState result;
  result.keep = rescaled->keep;
  if (result.keep) {
    result.state = rescaled->state.Encode();
    result.expire_at_ms = rescaled->ExpireAtMs();
  }
  return result;
}

// Clients send the same parameters call after call, and checking them costs a third of a
// token bucket's decision (three integers, then the rate's gcd), so each algorithm keeps the
// last parameters it accepted, keyed by their exact bytes. Parsing is a pure function of the
// bytes: an answer from here is the one parsing would give.
template <typename Params>
class LastAcceptedParams {
 public:
  template <typename Parser>
  StatusOr<Params> Parse(Parser parse, std::span<const std::string_view> args) {
    if (params_ && std::ranges::equal(args_, args)) return *params_;
    StatusOr<Params> parsed = parse(args);
    if (parsed.ok()) {
      args_.assign(args.begin(), args.end());
      params_ = *parsed;
    }
    return parsed;
  }

 private:
  std::vector<std::string> args_;
  std::optional<Params> params_;
};

template <typename Params, typename State, AlgorithmTag kTag, typename Parser>
StatusOr<std::unique_ptr<LimiterCall>> Make(Parser parse, std::span<const std::string_view> args,
                                            int64_t cost) {
  // One per thread, so nothing is shared: commands and scripts all run on the loop thread.
  thread_local LastAcceptedParams<Params> last_accepted;
  StatusOr<Params> params = last_accepted.Parse(parse, args);
  if (!params.ok()) return params.status();
  return std::unique_ptr<LimiterCall>(
      std::make_unique<AlgorithmCall<Params, State, kTag>>(*params, cost));
}

}  // namespace

size_t LimiterParamCount(AlgorithmTag tag) {
  switch (tag) {
    case AlgorithmTag::kTokenBucket:
    case AlgorithmTag::kLeakyBucket:
    case AlgorithmTag::kGcra:
      return 3;
    case AlgorithmTag::kFixedWindow:
    case AlgorithmTag::kSlidingLog:
    case AlgorithmTag::kSlidingWindow:
      return 2;
    case AlgorithmTag::kSmooth:
      return 1;
    case AlgorithmTag::kPolicySet:
      break;
  }
  return 0;
}

StatusOr<std::unique_ptr<LimiterCall>> MakeLimiterCall(AlgorithmTag tag,
                                                       std::span<const std::string_view> params,
                                                       int64_t cost) {
  switch (tag) {
    case AlgorithmTag::kFixedWindow:
      return Make<alg::FixedWindowParams, alg::FixedWindowState, AlgorithmTag::kFixedWindow>(
          alg::ParseFixedWindowParams, params, cost);
    case AlgorithmTag::kSlidingLog:
      return Make<alg::SlidingLogParams, alg::SlidingLogState, AlgorithmTag::kSlidingLog>(
          alg::ParseSlidingLogParams, params, cost);
    case AlgorithmTag::kSlidingWindow:
      return Make<alg::SlidingWindowParams, alg::SlidingWindowState,
                  AlgorithmTag::kSlidingWindow>(alg::ParseSlidingWindowParams, params, cost);
    case AlgorithmTag::kTokenBucket:
      return Make<alg::TokenBucketParams, alg::TokenBucketState, AlgorithmTag::kTokenBucket>(
          alg::ParseTokenBucketParams, params, cost);
    case AlgorithmTag::kLeakyBucket:
      return Make<alg::LeakyBucketParams, alg::LeakyBucketState, AlgorithmTag::kLeakyBucket>(
          alg::ParseLeakyBucketParams, params, cost);
    case AlgorithmTag::kGcra:
      return Make<alg::GcraParams, alg::GcraState, AlgorithmTag::kGcra>(alg::ParseGcraParams,
                                                                        params, cost);
    case AlgorithmTag::kSmooth:
    case AlgorithmTag::kPolicySet:
      break;
  }
  return Err("unsupported algorithm");
}

StatusOr<int64_t> LimiterFreshWithinMs(AlgorithmTag tag, std::span<const std::string_view> params) {
  auto peek = MakeLimiterCall(tag, params, 0);
  if (!peek.ok()) return peek.status();
  auto fresh = (*peek)->Decide(std::nullopt, 0);
  if (!fresh.ok()) return fresh.status();
  auto full = (*peek)->WithCost(fresh->verdict.limit)->Decide(std::nullopt, 0);
  if (!full.ok()) return full.status();
  return full->expire_at_ms;
}

StatusOr<RescaledState> RescaleLimiterState(AlgorithmTag tag,
                                            std::span<const std::string_view> old_params,
                                            std::span<const std::string_view> new_params,
                                            std::string_view state, int64_t now_us) {
  switch (tag) {
    case AlgorithmTag::kFixedWindow:
      return Rescale<alg::FixedWindowParams, alg::FixedWindowState>(
          alg::ParseFixedWindowParams, old_params, new_params, state, now_us);
    case AlgorithmTag::kSlidingLog:
      return Rescale<alg::SlidingLogParams, alg::SlidingLogState>(
          alg::ParseSlidingLogParams, old_params, new_params, state, now_us);
    case AlgorithmTag::kSlidingWindow:
      return Rescale<alg::SlidingWindowParams, alg::SlidingWindowState>(
          alg::ParseSlidingWindowParams, old_params, new_params, state, now_us);
    case AlgorithmTag::kTokenBucket:
      return Rescale<alg::TokenBucketParams, alg::TokenBucketState>(
          alg::ParseTokenBucketParams, old_params, new_params, state, now_us);
    case AlgorithmTag::kLeakyBucket:
      return Rescale<alg::LeakyBucketParams, alg::LeakyBucketState>(
          alg::ParseLeakyBucketParams, old_params, new_params, state, now_us);
    case AlgorithmTag::kGcra:
      return Rescale<alg::GcraParams, alg::GcraState>(alg::ParseGcraParams, old_params,
                                                      new_params, state, now_us);
    default:
      break;
  }
  return Err("unsupported algorithm");
}

}  // namespace sluice::server
