#include "algorithms/leaky_bucket.h"

#include "algorithms/codec.h"

namespace sluice::algorithms {

namespace {
constexpr std::string_view kLeaksName = "leaks";
}  // namespace

Status Validate(const LeakyBucketParams& params) {
  return BucketRateOf(params, kLeaksName).status();
}

StatusOr<LeakyBucketParams> ParseLeakyBucketParams(std::span<const std::string_view> args) {
  return ParseBucketParams<LeakyBucketParams>(args, kLeaksName);
}

std::string LeakyBucketState::Encode() const {
  return EncodeBucketLevel(AlgorithmTag::kLeakyBucket, level);
}

StatusOr<LeakyBucketState> LeakyBucketState::Decode(std::string_view bytes) {
  StatusOr<BucketLevel> level = DecodeBucketLevel(AlgorithmTag::kLeakyBucket, bytes);
  if (!level.ok()) return level.status();
  return LeakyBucketState{*level};
}

StatusOr<LeakyBucketDecision> Decide(const LeakyBucketState* state, const LeakyBucketParams& params,
                                     int64_t now_us, int64_t cost) {
  return DecideTypedBucket(state, params, kLeaksName, now_us, cost);
}

StatusOr<Rescaled<LeakyBucketState>> Rescale(const LeakyBucketState& state,
                                             const LeakyBucketParams& old_params,
                                             const LeakyBucketParams& new_params, int64_t now_us) {
  return RescaleTypedBucket(state, old_params, new_params, kLeaksName, now_us);
}

}  // namespace sluice::algorithms
