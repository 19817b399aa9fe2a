#pragma once

// RL.SMOOTH key permits_per_second [MAXBURST seconds] [WARMUP ms [COLDFACTOR f]] [COST n]
// [TIMEOUT ms]: Guava's RateLimiter (google/guava, util/concurrent/SmoothRateLimiter.java and
// RateLimiter.java) run on the server, SmoothBursty by default, SmoothWarmingUp with WARMUP.
//
// State: storedPermits (double) and nextFreeTicketMicros (the moment the limiter is next free).
//   stableInterval = 1e6 / permits_per_second  (us)
//   SmoothBursty:    maxPermits = maxBurstSeconds * permits_per_second,
//                    coolDownInterval = stableInterval, stored permits cost nothing
//   SmoothWarmingUp: coldInterval = coldFactor * stableInterval,
//                    thresholdPermits = 0.5 * warmup / stableInterval,
//                    maxPermits = thresholdPermits + 2 * warmup / (stableInterval + coldInterval),
//                    slope = (coldInterval - stableInterval) / (maxPermits - thresholdPermits),
//                    coolDownInterval = warmup / maxPermits; a stored permit above the
//                    threshold costs the trapezoid under the line stable -> cold, below it
//                    costs stableInterval, so the interval ramps from coldFactor x down to 1x
//   resync(now):  if now > nextFree: stored = min(max, stored + (now - nextFree) / coolDown),
//                 nextFree = now
//   reserve(Q):   resync; wait = max(nextFree - now, 0); spend = min(Q, stored);
//                 nextFree += waitTime(stored, spend) + (long)((Q - spend) * stableInterval);
//                 stored -= spend      -- a large request goes at once, the next caller pays
//   TIMEOUT t:    granted iff nextFree - t <= now (tryAcquire: the request's size is not
//                 counted, only when the limiter is next free); else nil, nothing reserved
//   reply:        wait in ms, rounded up
//
// Guava computes in doubles and so does sluice, operation for operation, so waits match
// Guava's to the microsecond (its (long) casts truncate; where Guava would saturate a long,
// sluice answers the overflow error). Deviations:
//  - a fresh SmoothBursty key starts FULL (stored = maxPermits), where Guava starts empty, so
//    that an expired key and a never-seen key behave the same (a fresh SmoothWarmingUp key is
//    Guava's own cold start: stored = maxPermits);
//  - COST 0 inspects: it reports the wait and reserves nothing (Guava refuses 0 permits);
//  - WARMUP must be >= 1 ms and COLDFACTOR >= 1 (Guava accepts 0 and anything, then computes
//    NaN); the rate must be finite (no Double.POSITIVE_INFINITY limiter).
// The key expires when the stored permits are back at maxPermits and nextFree has passed.
// Policy-style change (Rescale): Guava's setRate: resync, then stored permits are rescaled by
// maxPermits' / maxPermits, and the debt in nextFree is kept.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

struct SmoothParams {
  double permits_per_second = 0;   // > 0, finite
  double max_burst_seconds = 1.0;  // >= 0 (SmoothBursty)
  int64_t warmup_ms = 0;           // 0: SmoothBursty; >= 1: SmoothWarmingUp
  double cold_factor = 3.0;        // >= 1 (SmoothWarmingUp)
};

Status Validate(const SmoothParams& params);

// RL.SMOOTH's arguments after the key, options in any order, each at most once.
struct SmoothRequest {
  SmoothParams params;
  int64_t cost = 1;
  std::optional<int64_t> timeout_ms;
};
StatusOr<SmoothRequest> ParseSmoothArgs(std::span<const std::string_view> args);

struct SmoothState {
  double stored_permits = 0;
  int64_t next_free_us = 0;

  std::string Encode() const;
  static StatusOr<SmoothState> Decode(std::string_view bytes);
  bool operator==(const SmoothState&) const = default;
};

struct SmoothDecision {
  bool granted = false;  // false: the wait would pass TIMEOUT; reply nil, nothing reserved
  int64_t wait_us = 0;   // how long the caller must wait before proceeding
  int64_t wait_ms = 0;   // the reply: wait_us rounded up
  bool write_state = false;
  SmoothState state{};
  int64_t expire_at_us = 0;  // when the (new or unchanged) state equals a fresh key's

  int64_t ExpireAtMs() const { return CeilUsToMs(expire_at_us); }
};

StatusOr<SmoothDecision> Decide(const SmoothState* state, const SmoothParams& params,
                                int64_t now_us, int64_t cost,
                                std::optional<int64_t> timeout_ms = std::nullopt);

StatusOr<Rescaled<SmoothState>> Rescale(const SmoothState& state, const SmoothParams& old_params,
                                        const SmoothParams& new_params, int64_t now_us);

// The state of a fresh key (sluice: full) and of a Guava limiter just created (SmoothBursty
// empty, SmoothWarmingUp cold), for tests that replay Guava's own examples.
StatusOr<SmoothState> FreshSmoothState(const SmoothParams& params, int64_t now_us);
StatusOr<SmoothState> GuavaCreatedState(const SmoothParams& params, int64_t now_us);

}  // namespace sluice::algorithms
