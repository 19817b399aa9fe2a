#pragma once

// RL.TOKENBUCKET key capacity tokens period_ms: the bucket starts full, refills `tokens` per
// `period_ms` continuously, never above capacity; a request takes COST tokens if it can.
//
//   rate   = tokens / (period_ms * 1000) tokens per us
//   missing(now) = max(0, missing - rate * (now - updated))     (fresh key: 0, full)
//   allow  = missing + COST <= capacity        (COST > capacity: never; retry_after = -1)
//   remaining = floor(capacity - missing)
//   retry  = (missing + COST - capacity) / rate, rounded up to the microsecond
//   reset  = missing / rate: the bucket is full again and the key expires
//
// The arithmetic is the exact integer machine of bucket_core.h (shared with the leaky bucket).
// Policy change (contract section 5): the consumed fraction of capacity is kept, as Guava's
// RateLimiter.setRate rescales its stored permits: level' = ceil(level * C' * p' / (C * p)).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/bucket_core.h"
#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

struct TokenBucketParams {
  int64_t capacity = 0;   // >= 1
  int64_t tokens = 0;     // >= 1, per period_ms
  int64_t period_ms = 0;  // >= 1
};

// "capacity must be a positive integer", ...; the overflow error if capacity * period_us
// (reduced by gcd(tokens, period_us)) does not fit 64 bits.
Status Validate(const TokenBucketParams& params);
// `capacity tokens period_ms` (the arguments after the key).
StatusOr<TokenBucketParams> ParseTokenBucketParams(std::span<const std::string_view> args);

struct TokenBucketState {
  // The tokens missing from a full bucket (0 = full = a fresh key).
  BucketLevel level;

  std::string Encode() const;
  static StatusOr<TokenBucketState> Decode(std::string_view bytes);
  bool operator==(const TokenBucketState&) const = default;
};

using TokenBucketDecision = Decision<TokenBucketState>;

StatusOr<TokenBucketDecision> Decide(const TokenBucketState* state, const TokenBucketParams& params,
                                     int64_t now_us, int64_t cost);

StatusOr<Rescaled<TokenBucketState>> Rescale(const TokenBucketState& state,
                                             const TokenBucketParams& old_params,
                                             const TokenBucketParams& new_params, int64_t now_us);

}  // namespace sluice::algorithms
