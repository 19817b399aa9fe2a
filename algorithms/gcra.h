#pragma once

// GCRA, the generic cell rate algorithm (ITU-T I.371), as redis-cell's CL.THROTTLE computes
// it (brandur/redis-cell, redis-cell-impl/src/lib.rs RateLimiter::rate_limit and
// redis-cell/src/lib.rs ThrottleCommand). One algorithm and one state serve
//   RL.GCRA key max_burst count period_ms [COST n]   (period in ms)
//   CL.THROTTLE key max_burst count period [quantity] (period in s; redis-cell's reply)
//
// All in integer nanoseconds (now_ns = now_us * 1000), with Q = COST:
//   T     = floor(period_ns / count)     emission interval (0 is an error)
//   limit = max_burst + 1,  tau = T * limit              delay variation tolerance
//   tat   = max(stored tat, now)          theoretical arrival time (fresh key: now)
//   new_tat = tat + T * Q;  allow_at = new_tat - tau;  diff = now - allow_at
//   limited = diff < 0
//     limited: retry = (T * Q <= tau) ? -diff : -1 (never), ttl = tat - now, state unchanged
//     allowed: ttl = new_tat - now, store new_tat (the key expires at new_tat)
//   next = tau - ttl;  remaining = next > -T ? next / T : 0;  reset = ttl
//
// RL.GCRA replies in ms, rounded up, and remaining = floor(next / T) exactly in ns.
// CL.THROTTLE replies [limited, limit, remaining, retry_s, reset_s] as redis-cell does:
// remaining = (f64)(next in whole us) / (f64)(T in whole us) truncated, and each duration in
// whole seconds (truncated) plus one if its sub-second part has at least 1 whole ms.
//
// Where sluice departs from redis-cell (all documented in the report):
//  - a stored tat already in the past counts as `now` (redis-cell's key has expired by then;
//    a stale tat would give it a negative reset_after on a refused request);
//  - CL.THROTTLE remaining when T < 1 us: redis-cell divides by zero us (i64::MAX or 0);
//    sluice uses the exact ns quotient;
//  - T is floor(period_ns / count) in integers, as the contract says; redis-cell divides in
//    f64, which is the same for periods up to 2^53 ns (~104 days);
//  - negative arguments are refused (redis-cell accepts them; Dragonfly refuses them);
//  - COST 0 never writes the key (redis-cell rewrites the same tat).
// Dragonfly's CL.THROTTLE (src/server/string_family.cc) differs from redis-cell in its second
// rounding (it adds 1 s whenever the duration is positive: 11 s where redis-cell says 10 s)
// and in its error texts ("value is not an integer or out of range", lowercase "zero rates are
// not supported"). sluice follows redis-cell.
//
// Policy change (RL.GCRA policies): the consumed fraction of the tolerance is kept:
// tat' = now + ceil((tat - now) * tau' / tau).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

// RL.GCRA (and RL.POLICY ... GCRA) parameters.
struct GcraParams {
  int64_t max_burst = 0;  // >= 0
  int64_t count = 0;      // >= 1
  int64_t period_ms = 0;  // >= 1
};

// CL.THROTTLE parameters: the period is in seconds.
struct ThrottleParams {
  int64_t max_burst = 0;
  int64_t count = 0;
  int64_t period_s = 0;
};

// The derived rate; every value fits 64 bits (else an overflow error at construction).
struct GcraRate {
  int64_t emission_ns = 0;   // T
  int64_t limit = 0;         // max_burst + 1
  int64_t tolerance_ns = 0;  // tau = T * limit
};

// "max_burst must be a non-negative integer", "count must be a positive integer",
// "period_ms must be a positive integer", the zero-interval error, overflow.
StatusOr<GcraRate> MakeGcraRate(const GcraParams& params);
// redis-cell's checks: "Zero rates are not supported" (count or period 0, or T < 1 ns);
// negative values are refused with "<name> must be a ... integer".
StatusOr<GcraRate> MakeGcraRate(const ThrottleParams& params);
Status Validate(const GcraParams& params);
Status Validate(const ThrottleParams& params);

// `max_burst count period_ms` (the arguments after the key).
StatusOr<GcraParams> ParseGcraParams(std::span<const std::string_view> args);

// CL.THROTTLE's arguments after the key: `max_burst count period [quantity]`, parsed as
// redis-cell does (Rust's i64 parser: "Couldn't parse as integer: <arg>").
struct ThrottleRequest {
  ThrottleParams params;
  int64_t quantity = 1;
};
StatusOr<ThrottleRequest> ParseThrottleArgs(std::span<const std::string_view> args);

struct GcraState {
  int64_t tat_ns = 0;  // theoretical arrival time, ns since the epoch

  std::string Encode() const;
  static StatusOr<GcraState> Decode(std::string_view bytes);
  bool operator==(const GcraState&) const = default;
};

// CL.THROTTLE's reply, as redis-cell computes it.
struct ThrottleReply {
  int64_t limited = 0;  // 1 refused, 0 allowed
  int64_t limit = 0;
  int64_t remaining = 0;
  int64_t retry_after_s = -1;
  int64_t reset_after_s = 0;

  std::array<int64_t, 5> ToArray() const {
    return {limited, limit, remaining, retry_after_s, reset_after_s};
  }
  bool operator==(const ThrottleReply&) const = default;
};

struct GcraDecision : Decision<GcraState> {
  ThrottleReply throttle;       // the same decision in CL.THROTTLE's terms
  int64_t retry_after_ns = -1;  // exact; -1 if allowed or never
  int64_t reset_after_ns = 0;   // exact
};

// RL.GCRA.
StatusOr<GcraDecision> Decide(const GcraState* state, const GcraParams& params, int64_t now_us,
                              int64_t cost);
// CL.THROTTLE (read `throttle` for the reply; the Verdict fields are filled too).
StatusOr<GcraDecision> Decide(const GcraState* state, const ThrottleParams& params, int64_t now_us,
                              int64_t quantity);
// Both, on an already derived rate.
StatusOr<GcraDecision> DecideGcra(const GcraState* state, const GcraRate& rate, int64_t now_us,
                                  int64_t cost);

StatusOr<Rescaled<GcraState>> Rescale(const GcraState& state, const GcraParams& old_params,
                                      const GcraParams& new_params, int64_t now_us);

// redis-cell's duration-to-seconds rounding: whole seconds, plus one if the sub-second part
// holds at least 1 whole ms (so 1.0009 s -> 1, 1.001 s -> 2, -1 s -> -1).
int64_t CellSeconds(int64_t duration_ns);

}  // namespace sluice::algorithms
