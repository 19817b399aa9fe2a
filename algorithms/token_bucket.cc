#include "algorithms/token_bucket.h"

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

namespace {

StatusOr<BucketRate> RateOf(const TokenBucketParams& params) {
  if (params.capacity < 1) return PositiveIntegerError("capacity");
  if (params.tokens < 1) return PositiveIntegerError("tokens");
  if (params.period_ms < 1) return PositiveIntegerError("period_ms");
  return MakeBucketRate(params.capacity, params.tokens, params.period_ms);
}

}  // namespace

Status Validate(const TokenBucketParams& params) { return RateOf(params).status(); }

StatusOr<TokenBucketParams> ParseTokenBucketParams(std::span<const std::string_view> args) {
  if (args.size() != 3) return SyntaxError();
  StatusOr<int64_t> capacity = ParsePositiveArg(args[0], "capacity");
  if (!capacity.ok()) return capacity.status();
  StatusOr<int64_t> amount = ParsePositiveArg(args[1], "tokens");
  if (!amount.ok()) return amount.status();
  StatusOr<int64_t> period = ParsePositiveArg(args[2], "period_ms");
  if (!period.ok()) return period.status();
  TokenBucketParams params{*capacity, *amount, *period};
  SLUICE_RETURN_IF_ERROR(Validate(params));
  return params;
}

std::string TokenBucketState::Encode() const {
  return EncodeBucketLevel(AlgorithmTag::kTokenBucket, level);
}

StatusOr<TokenBucketState> TokenBucketState::Decode(std::string_view bytes) {
  StatusOr<BucketLevel> level = DecodeBucketLevel(AlgorithmTag::kTokenBucket, bytes);
  if (!level.ok()) return level.status();
  return TokenBucketState{*level};
}

StatusOr<TokenBucketDecision> Decide(const TokenBucketState* state, const TokenBucketParams& params,
                                     int64_t now_us, int64_t cost) {
  StatusOr<BucketRate> rate = RateOf(params);
  if (!rate.ok()) return rate.status();
  StatusOr<Decision<BucketLevel>> core =
      DecideBucket(state != nullptr ? &state->level : nullptr, *rate, now_us, cost);
  if (!core.ok()) return core.status();
  TokenBucketDecision d;
  static_cast<Verdict&>(d) = core->verdict();
  d.write_state = core->write_state;
  d.state.level = core->state;
  d.expire_at_us = core->expire_at_us;
  return d;
}

StatusOr<Rescaled<TokenBucketState>> Rescale(const TokenBucketState& state,
                                             const TokenBucketParams& old_params,
                                             const TokenBucketParams& new_params, int64_t now_us) {
  StatusOr<BucketRate> old_rate = RateOf(old_params);
  if (!old_rate.ok()) return old_rate.status();
  StatusOr<BucketRate> new_rate = RateOf(new_params);
  if (!new_rate.ok()) return new_rate.status();
  StatusOr<Rescaled<BucketLevel>> core = RescaleBucket(state.level, *old_rate, *new_rate, now_us);
  if (!core.ok()) return core.status();
  return Rescaled<TokenBucketState>{core->keep, TokenBucketState{core->state}, core->expire_at_us};
}

}  // namespace sluice::algorithms
