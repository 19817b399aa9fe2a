#include "algorithms/token_bucket.h"

#include "algorithms/codec.h"

namespace sluice::algorithms {

namespace {
constexpr std::string_view kTokensName = "tokens";
}  // namespace

Status Validate(const TokenBucketParams& params) {
  return BucketRateOf(params, kTokensName).status();
}

StatusOr<TokenBucketParams> ParseTokenBucketParams(std::span<const std::string_view> args) {
  return ParseBucketParams<TokenBucketParams>(args, kTokensName);
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
  return DecideTypedBucket(state, params, kTokensName, now_us, cost);
}

StatusOr<Rescaled<TokenBucketState>> Rescale(const TokenBucketState& state,
                                             const TokenBucketParams& old_params,
                                             const TokenBucketParams& new_params, int64_t now_us) {
  return RescaleTypedBucket(state, old_params, new_params, kTokensName, now_us);
}

}  // namespace sluice::algorithms
