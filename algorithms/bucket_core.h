#pragma once

// The exact machine shared by the token bucket and the leaky bucket. Both are one level that
// drains continuously at a rational rate and a request that fits iff level + COST <= capacity
// (a token bucket's missing tokens are a leaky bucket's water). To keep it exact the level is
// an integer in "units": with g = gcd(amount, period_us),
//
//   unit  p = period_us / g        level units per token
//   drain n = amount / g           level units drained per microsecond
//
// so `amount` tokens per `period_us` is exactly n units per us, and after any number of calls
// the level is exact (no drift). The level is stored with its unit p, so a call whose
// parameters changed re-reads it in the new unit (rounding up, keeping the absolute number of
// consumed tokens, capped at the capacity).
//
//   level(now) = max(0, level - n * (now - updated))
//   allow      = level + COST * p <= capacity * p
//   remaining  = capacity - ceil(level / p)
//   retry      = ceil((level - (capacity - COST) * p) / n) us
//   fresh at   = updated + ceil(level / n)    (the level is 0 again: the key expires)

#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms/codec.h"
#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

struct BucketRate {
  int64_t capacity = 0;  // tokens
  int64_t unit = 1;      // p
  int64_t drain = 1;     // n
};

// Checks capacity * p fits 64 bits (else the overflow error).
StatusOr<BucketRate> MakeBucketRate(int64_t capacity, int64_t amount, int64_t period_ms);

struct BucketLevel {
  int64_t updated_us = 0;
  int64_t level = 0;  // in units of `unit`
  int64_t unit = 1;   // the p the level was computed with
  bool operator==(const BucketLevel&) const = default;
};

std::string EncodeBucketLevel(AlgorithmTag tag, const BucketLevel& level);
StatusOr<BucketLevel> DecodeBucketLevel(AlgorithmTag tag, std::string_view bytes);

StatusOr<Decision<BucketLevel>> DecideBucket(const BucketLevel* state, const BucketRate& rate,
                                             int64_t now_us, int64_t cost);

// Keeps the consumed fraction of capacity: level' = ceil(level * C' * p' / (C * p)).
StatusOr<Rescaled<BucketLevel>> RescaleBucket(const BucketLevel& state, const BucketRate& old_rate,
                                              const BucketRate& new_rate, int64_t now_us);

}  // namespace sluice::algorithms
