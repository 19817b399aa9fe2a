#include "algorithms/state_check.h"

#include "algorithms/codec.h"
#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/sliding_log.h"
#include "algorithms/sliding_window.h"
#include "algorithms/smooth.h"
#include "algorithms/token_bucket.h"

namespace sluice::algorithms {

bool IsAlgorithmState(std::string_view encoded) {
  const std::optional<AlgorithmTag> tag = PeekAlgorithm(encoded);
  if (!tag) return false;
  switch (*tag) {
    case AlgorithmTag::kFixedWindow: return FixedWindowState::Decode(encoded).ok();
    case AlgorithmTag::kSlidingLog: return SlidingLogState::Decode(encoded).ok();
    case AlgorithmTag::kSlidingWindow: return SlidingWindowState::Decode(encoded).ok();
    case AlgorithmTag::kTokenBucket: return TokenBucketState::Decode(encoded).ok();
    case AlgorithmTag::kLeakyBucket: return LeakyBucketState::Decode(encoded).ok();
    case AlgorithmTag::kGcra: return GcraState::Decode(encoded).ok();
    case AlgorithmTag::kSmooth: return SmoothState::Decode(encoded).ok();
    case AlgorithmTag::kPolicySet: return false;
  }
  return false;
}

}  // namespace sluice::algorithms
