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
#include <span>
#include <string>
#include <string_view>

#include "algorithms/codec.h"
#include "algorithms/decision.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"
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

// The typed faces of the core, shared by the token bucket and the leaky bucket, whose params
// are {capacity, amount, period_ms} (the amount is called tokens or leaks) and whose states
// wrap one BucketLevel. `amount_name` names the amount in error messages.
template <typename Params>
StatusOr<BucketRate> BucketRateOf(const Params& params, std::string_view amount_name) {
  const auto& [capacity, amount, period_ms] = params;
  if (capacity < 1) return PositiveIntegerError("capacity");
  if (amount < 1) return PositiveIntegerError(amount_name);
  if (period_ms < 1) return PositiveIntegerError("period_ms");
  return MakeBucketRate(capacity, amount, period_ms);
}

// `capacity amount period_ms` (the arguments after the key).
template <typename Params>
StatusOr<Params> ParseBucketParams(std::span<const std::string_view> args,
                                   std::string_view amount_name) {
  if (args.size() != 3) return SyntaxError();
  StatusOr<int64_t> capacity = ParsePositiveArg(args[0], "capacity");
  if (!capacity.ok()) return capacity.status();
  StatusOr<int64_t> amount = ParsePositiveArg(args[1], amount_name);
  if (!amount.ok()) return amount.status();
  StatusOr<int64_t> period = ParsePositiveArg(args[2], "period_ms");
  if (!period.ok()) return period.status();
  Params params{*capacity, *amount, *period};
  SLUICE_RETURN_IF_ERROR(BucketRateOf(params, amount_name).status());
  return params;
}

template <typename State, typename Params>
StatusOr<Decision<State>> DecideTypedBucket(const State* state, const Params& params,
                                            std::string_view amount_name, int64_t now_us,
                                            int64_t cost) {
  StatusOr<BucketRate> rate = BucketRateOf(params, amount_name);
  if (!rate.ok()) return rate.status();
  StatusOr<Decision<BucketLevel>> core =
      DecideBucket(state != nullptr ? &state->level : nullptr, *rate, now_us, cost);
  if (!core.ok()) return core.status();
  Decision<State> d;
  static_cast<Verdict&>(d) = core->verdict();
  d.write_state = core->write_state;
  d.state.level = core->state;
  d.expire_at_us = core->expire_at_us;
  return d;
}

template <typename State, typename Params>
StatusOr<Rescaled<State>> RescaleTypedBucket(const State& state, const Params& old_params,
                                             const Params& new_params, std::string_view amount_name,
                                             int64_t now_us) {
  StatusOr<BucketRate> old_rate = BucketRateOf(old_params, amount_name);
  if (!old_rate.ok()) return old_rate.status();
  StatusOr<BucketRate> new_rate = BucketRateOf(new_params, amount_name);
  if (!new_rate.ok()) return new_rate.status();
  StatusOr<Rescaled<BucketLevel>> core = RescaleBucket(state.level, *old_rate, *new_rate, now_us);
  if (!core.ok()) return core.status();
  return Rescaled<State>{core->keep, State{core->state}, core->expire_at_us};
}

}  // namespace sluice::algorithms
