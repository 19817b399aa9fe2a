#pragma once

// RL.LEAKYBUCKET key capacity leaks period_ms: the leaky bucket as a meter (a funnel): each
// request pours COST units in, the funnel leaks `leaks` units per `period_ms` continuously,
// and a request is allowed iff it does not overflow (Turner 1986; ITU-T I.371 shows it is the
// GCRA). E.g. capacity 15 leaking 30 per 60 s: 15 at once, then one every 2 s.
//
//   rate   = leaks / (period_ms * 1000) units per us
//   water(now) = max(0, water - rate * (now - updated))         (fresh key: 0, empty)
//   allow  = water + COST <= capacity          (COST > capacity: never; retry_after = -1)
//   remaining = floor(capacity - water)
//   retry  = (water + COST - capacity) / rate, rounded up to the microsecond
//   reset  = water / rate: the funnel is empty again and the key expires
//
// The arithmetic is the exact integer machine of bucket_core.h (shared with the token bucket).
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

struct LeakyBucketParams {
  int64_t capacity = 0;   // >= 1
  int64_t leaks = 0;      // >= 1, per period_ms
  int64_t period_ms = 0;  // >= 1
};

// "capacity must be a positive integer", ...; the overflow error if capacity * period_us
// (reduced by gcd(leaks, period_us)) does not fit 64 bits.
Status Validate(const LeakyBucketParams& params);
// `capacity leaks period_ms` (the arguments after the key).
StatusOr<LeakyBucketParams> ParseLeakyBucketParams(std::span<const std::string_view> args);

struct LeakyBucketState {
  // The water in the funnel (0 = empty = a fresh key).
  BucketLevel level;

  std::string Encode() const;
  static StatusOr<LeakyBucketState> Decode(std::string_view bytes);
  bool operator==(const LeakyBucketState&) const = default;
};

using LeakyBucketDecision = Decision<LeakyBucketState>;

StatusOr<LeakyBucketDecision> Decide(const LeakyBucketState* state, const LeakyBucketParams& params,
                                     int64_t now_us, int64_t cost);

StatusOr<Rescaled<LeakyBucketState>> Rescale(const LeakyBucketState& state,
                                             const LeakyBucketParams& old_params,
                                             const LeakyBucketParams& new_params, int64_t now_us);

}  // namespace sluice::algorithms
