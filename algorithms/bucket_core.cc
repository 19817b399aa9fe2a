#include "algorithms/bucket_core.h"

#include <algorithm>
#include <numeric>

#include "algorithms/messages.h"

namespace sluice::algorithms {

namespace {

// The level drained up to max(now, updated), in the rate's unit.
struct Current {
  int64_t at_us = 0;  // max(now, updated): a clock moved back never un-drains
  Int128 level = 0;   // in [0, capacity * p]
};

Current Drain(const BucketLevel* state, const BucketRate& rate, int64_t now_us) {
  Current c;
  c.at_us = now_us;
  if (state == nullptr) return c;
  Int128 level = state->level;
  if (state->unit != rate.unit) level = CeilDiv128(level * rate.unit, state->unit);
  level = std::min<Int128>(level, static_cast<Int128>(rate.capacity) * rate.unit);
  c.at_us = std::max(now_us, state->updated_us);
  Int128 drained =
      static_cast<Int128>(rate.drain) * (static_cast<Int128>(c.at_us) - state->updated_us);
  c.level = std::max<Int128>(0, level - drained);
  return c;
}

Int128 FreshAt(const Current& c, const BucketRate& rate) {
  return static_cast<Int128>(c.at_us) + CeilDiv128(c.level, rate.drain);
}

}  // namespace

StatusOr<BucketRate> MakeBucketRate(int64_t capacity, int64_t amount, int64_t period_ms) {
  Checked ck;
  const int64_t period_us = ck.Mul(period_ms, 1000);
  if (ck.failed() || capacity < 1 || amount < 1 || period_us < 1) return OverflowError();
  // Most amounts divide their period (10 tokens a second: 1,000,000 us), and then the gcd is
  // the amount: one division instead of std::gcd's loop of a step per bit.
  const int64_t g = period_us % amount == 0 ? amount : std::gcd(amount, period_us);
  BucketRate rate{capacity, period_us / g, amount / g};
  ck.Mul(capacity, rate.unit);
  if (ck.failed()) return OverflowError();
  return rate;
}

std::string EncodeBucketLevel(AlgorithmTag tag, const BucketLevel& level) {
  StateWriter w(tag);
  w.Signed(level.updated_us);
  w.Unsigned(static_cast<uint64_t>(level.level));
  w.Unsigned(static_cast<uint64_t>(level.unit));
  return std::move(w).Finish();
}

StatusOr<BucketLevel> DecodeBucketLevel(AlgorithmTag tag, std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(tag));
  BucketLevel s;
  uint64_t level = 0;
  uint64_t unit = 0;
  if (!r.Signed(&s.updated_us) || !r.Unsigned(&level) || !r.Unsigned(&unit) || !r.AtEnd() ||
      level > static_cast<uint64_t>(kInt64Max) || unit < 1 ||
      unit > static_cast<uint64_t>(kInt64Max)) {
    return CorruptStateError();
  }
  s.level = static_cast<int64_t>(level);
  s.unit = static_cast<int64_t>(unit);
  return s;
}

StatusOr<Decision<BucketLevel>> DecideBucket(const BucketLevel* state, const BucketRate& rate,
                                             int64_t now_us, int64_t cost) {
  if (cost < 0) return CostError();
  if (state != nullptr && (state->level < 0 || state->unit < 1)) return CorruptStateError();
  Checked ck;
  const Current c = Drain(state, rate, now_us);
  const Int128 capacity_units = static_cast<Int128>(rate.capacity) * rate.unit;
  auto remaining = [&](Int128 level) {
    return rate.capacity - static_cast<int64_t>(CeilDiv128(level, rate.unit));
  };

  Decision<BucketLevel> d;
  d.limit = rate.capacity;
  d.remaining = remaining(c.level);
  const Int128 fresh_at = FreshAt(c, rate);
  d.expire_at_us = ck.Narrow(fresh_at);
  d.reset_after_ms = MsUntil(fresh_at, now_us);
  if (cost > rate.capacity) {
    if (ck.failed()) return OverflowError();
    return d;  // can never be allowed
  }

  const Int128 cost_units = static_cast<Int128>(cost) * rate.unit;
  if (c.level + cost_units <= capacity_units) {
    d.allowed = true;
    Current next = c;
    next.level = c.level + cost_units;
    d.remaining = remaining(next.level);
    if (cost > 0) {
      d.write_state = true;
      d.state = {c.at_us, ck.Narrow(next.level), rate.unit};
      const Int128 next_fresh_at = FreshAt(next, rate);
      d.expire_at_us = ck.Narrow(next_fresh_at);
      d.reset_after_ms = MsUntil(next_fresh_at, now_us);
    }
    if (ck.failed()) return OverflowError();
    return d;
  }

  const Int128 excess = c.level + cost_units - capacity_units;  // > 0
  const Int128 retry_at = static_cast<Int128>(c.at_us) + CeilDiv128(excess, rate.drain);
  ck.Narrow(retry_at);
  d.retry_after_ms = MsUntil(retry_at, now_us);
  if (ck.failed()) return OverflowError();
  return d;
}

StatusOr<Rescaled<BucketLevel>> RescaleBucket(const BucketLevel& state, const BucketRate& old_rate,
                                              const BucketRate& new_rate, int64_t now_us) {
  if (state.level < 0 || state.unit < 1) return CorruptStateError();
  Checked ck;
  Current c = Drain(&state, old_rate, now_us);
  const Int128 old_units = static_cast<Int128>(old_rate.capacity) * old_rate.unit;
  const Int128 new_units = static_cast<Int128>(new_rate.capacity) * new_rate.unit;
  c.level = CeilDiv128(c.level * new_units, old_units);  // both factors < 2^63
  Rescaled<BucketLevel> r;
  if (c.level == 0) return r;  // fresh
  r.keep = true;
  r.state = {c.at_us, ck.Narrow(c.level), new_rate.unit};
  r.expire_at_us = ck.Narrow(FreshAt(c, new_rate));
  if (ck.failed()) return OverflowError();
  return r;
}

}  // namespace sluice::algorithms
