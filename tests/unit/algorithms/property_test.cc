// Property tests over random request streams (seeded, reproducible): random parameters,
// random costs (0, within, above the limit) and random clock steps (same microsecond up to
// many windows). Every call is checked against the contract's generic rules:
//   - remaining in [0, limit]; COST 0 is allowed and writes nothing; COST > limit is refused
//     with retry_after -1; a refused request writes nothing; state is written iff counted;
//   - retry_after is tight: the same request at now + retry_after is allowed, and at
//     now + retry_after - 1 ms it is not;
//   - at and after its reported expiry, a state behaves exactly like a fresh key;
//   - reset_after_ms is the time to that expiry, rounded up; encode/decode round-trips;
// and against an independent oracle of each algorithm's definition (sliding log: the exact
// window sum; fixed and sliding window: counts per window; buckets: a rational token count;
// GCRA: the debt formulation), plus admission bounds over every interval.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/sliding_log.h"
#include "algorithms/sliding_window.h"
#include "algorithms/smooth.h"
#include "algorithms/token_bucket.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::kT0Us;

constexpr int kSeeds = 25;
constexpr int kSteps = 1200;

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

template <typename T>
T Pick(std::mt19937_64& rng, std::initializer_list<T> values) {
  return *(values.begin() + Uniform(rng, 0, static_cast<int64_t>(values.size()) - 1));
}

// A clock step: often none or tiny, sometimes around `scale_us`, rarely far beyond it.
int64_t Step(std::mt19937_64& rng, int64_t scale_us) {
  switch (Uniform(rng, 0, 9)) {
    case 0:
    case 1:
    case 2:
      return 0;
    case 3:
    case 4:
      return Uniform(rng, 1, 1500);
    case 5:
    case 6:
    case 7:
      return Uniform(rng, 1, std::max<int64_t>(1, scale_us / 4));
    case 8:
      return Uniform(rng, scale_us / 4, 2 * scale_us + 1);
    default:
      return Uniform(rng, 2 * scale_us, 10 * scale_us + 1);
  }
}

int64_t Cost(std::mt19937_64& rng, int64_t limit) {
  switch (Uniform(rng, 0, 9)) {
    case 0:
      return 0;
    case 1:
      return Uniform(rng, limit + 1, 2 * limit + 1);
    case 2:
    case 3:
      return Uniform(rng, 1, limit);
    default:
      return 1;
  }
}

std::string Where(uint64_t seed, int step, int64_t now, int64_t cost) {
  return "seed " + std::to_string(seed) + " step " + std::to_string(step) + " now " +
         std::to_string(now - kT0Us) + "us cost " + std::to_string(cost);
}

// The contract's generic rules for one call; returns false (after reporting) on a failure.
template <typename State, typename Params, typename D>
bool CheckGeneric(const State* state, const Params& params, int64_t now, int64_t cost, const D& d,
                  std::mt19937_64& rng, const std::string& where) {
  const Verdict& v = d.verdict();
  EXPECT_GE(v.remaining, 0) << where;
  EXPECT_LE(v.remaining, v.limit) << where;
  EXPECT_GE(v.reset_after_ms, 0) << where;
  if (cost == 0) {
    EXPECT_TRUE(v.allowed) << where;
  }
  if (cost > v.limit) {
    EXPECT_FALSE(v.allowed) << where;
    EXPECT_EQ(v.retry_after_ms, -1) << where;
  }
  if (v.allowed) {
    EXPECT_EQ(v.retry_after_ms, -1) << where;
  }
  if (!v.allowed && cost <= v.limit) {
    EXPECT_GE(v.retry_after_ms, 1) << where;
  }
  EXPECT_EQ(d.write_state, v.allowed && cost > 0) << where;
  if (d.write_state) {
    EXPECT_EQ(v.reset_after_ms, MsUntil(d.expire_at_us, now)) << where;
    EXPECT_GT(d.expire_at_us, now) << where;
    StatusOr<State> back = State::Decode(d.state.Encode());
    EXPECT_TRUE(back.ok()) << where;
    if (back.ok()) {
      EXPECT_EQ(*back, d.state) << where;
    }
  } else if (state == nullptr) {
    EXPECT_EQ(v.reset_after_ms, 0) << where;
  }

  // Tight retry_after.
  if (!v.allowed && v.retry_after_ms >= 1) {
    auto at = Decide(state, params, now + v.retry_after_ms * 1000, cost);
    auto before = Decide(state, params, now + (v.retry_after_ms - 1) * 1000, cost);
    EXPECT_TRUE(at.ok() && before.ok()) << where;
    if (at.ok() && before.ok()) {
      EXPECT_TRUE(at->allowed) << where << " retry " << v.retry_after_ms << " not enough";
      EXPECT_FALSE(before->allowed) << where << " retry " << v.retry_after_ms << " not tight";
    }
  }

  // At (and after) its expiry a state is a fresh key. Check the state the key holds after
  // this call: the new one if written, else the old one.
  const State* held = d.write_state ? &d.state : state;
  if (held != nullptr) {
    const int64_t expiry = d.expire_at_us;
    for (int64_t t : {expiry, expiry + Uniform(rng, 1, 5'000'000)}) {
      for (int64_t c : {int64_t{0}, int64_t{1}, Uniform(rng, 1, v.limit + 1)}) {
        auto aged = Decide(held, params, t, c);
        auto fresh = Decide(static_cast<const State*>(nullptr), params, t, c);
        EXPECT_TRUE(aged.ok() && fresh.ok()) << where;
        if (!aged.ok() || !fresh.ok()) continue;
        EXPECT_EQ(aged->verdict(), fresh->verdict()) << where << " at expiry+" << (t - expiry);
        EXPECT_EQ(aged->write_state, fresh->write_state) << where;
        if (aged->write_state) {
          EXPECT_EQ(aged->state, fresh->state) << where;
        }
      }
    }
  }
  return !::testing::Test::HasFailure();
}

// Drives one key through a random stream; `oracle(now, cost, verdict)` checks the verdict
// against an independent model and records admissions.
template <typename State, typename Params, typename Oracle>
void RunStream(const Params& params, uint64_t seed, int64_t scale_us, int64_t limit,
               Oracle&& oracle) {
  std::mt19937_64 rng(seed);
  std::optional<std::string> stored;
  int64_t expire_at_ms = 0;
  int64_t now = kT0Us + Uniform(rng, 0, 999'999);
  for (int i = 0; i < kSteps; ++i) {
    now += Step(rng, scale_us);
    const int64_t cost = Cost(rng, limit);
    const std::string where = Where(seed, i, now, cost);
    if (stored && now / 1000 > expire_at_ms) stored.reset();  // the storage drops it
    std::optional<State> state;
    if (stored) {
      StatusOr<State> decoded = State::Decode(*stored);
      ASSERT_TRUE(decoded.ok()) << where;
      ASSERT_EQ(decoded->Encode(), *stored) << where;
      state = *decoded;
    }
    const State* ptr = state ? &*state : nullptr;
    auto d = Decide(ptr, params, now, cost);
    ASSERT_TRUE(d.ok()) << where << ": " << d.status().message();
    if (!CheckGeneric(ptr, params, now, cost, *d, rng, where)) return;
    oracle(now, cost, d->verdict(), where);
    if (::testing::Test::HasFailure()) return;
    if (d->write_state) {
      stored = d->state.Encode();
      expire_at_ms = d->ExpireAtMs();
    }
  }
}

struct Admission {
  int64_t at_us;
  int64_t cost;
};

// sum(cost in [t_i, t_j]) * per_unit <= burst + (t_j - t_i) * per_us, for all i <= j.
void CheckIntervals(const std::vector<Admission>& admitted, Int128 per_unit, Int128 burst,
                    Int128 per_us, const std::string& what) {
  for (size_t i = 0; i < admitted.size(); ++i) {
    Int128 sum = 0;
    for (size_t j = i; j < admitted.size(); ++j) {
      sum += admitted[j].cost;
      Int128 elapsed = static_cast<Int128>(admitted[j].at_us) - admitted[i].at_us;
      if (sum * per_unit > burst + elapsed * per_us) {
        ADD_FAILURE() << what << ": admissions " << i << ".." << j << " exceed the rate";
        return;
      }
    }
  }
}

TEST(PropertyTest, SlidingLogIsTheExactWindowSum) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    SlidingLogParams params{Pick<int64_t>(rng, {1, 2, 5, 13, 40}),
                            Pick<int64_t>(rng, {1, 3, 100, 1000, 60000})};
    const int64_t w = params.window_ms * 1000;
    std::deque<Admission> log;
    RunStream<SlidingLogState>(
        params, seed, w, params.limit,
        [&](int64_t now, int64_t cost, const Verdict& v, const std::string& where) {
          while (!log.empty() && log.front().at_us <= now - w) log.pop_front();
          int64_t used = 0;
          for (const Admission& a : log) used += a.cost;
          const bool fits = cost <= params.limit && used + cost <= params.limit;
          ASSERT_EQ(v.allowed, fits) << where;
          ASSERT_EQ(v.remaining, std::max<int64_t>(0, params.limit - used - (fits ? cost : 0)))
              << where;
          if (fits && cost > 0) log.push_back({now, cost});
        });
  }
}

TEST(PropertyTest, FixedWindowCountsPerWindow) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    FixedWindowParams params{Pick<int64_t>(rng, {1, 3, 10, 50}),
                             Pick<int64_t>(rng, {1, 7, 250, 1000, 60000})};
    const int64_t w = params.window_ms * 1000;
    int64_t start = 0;
    int64_t count = 0;
    bool live = false;
    std::vector<Admission> admitted;
    RunStream<FixedWindowState>(
        params, seed, w, params.limit,
        [&](int64_t now, int64_t cost, const Verdict& v, const std::string& where) {
          if (live && now >= start + w) live = false;
          const int64_t used = live ? count : 0;
          const bool fits = cost <= params.limit && used + cost <= params.limit;
          ASSERT_EQ(v.allowed, fits) << where;
          ASSERT_EQ(v.remaining, params.limit - used - (fits ? cost : 0)) << where;
          if (v.allowed && !live) {
            ASSERT_EQ(v.retry_after_ms, -1) << where;
          }
          if (!v.allowed && cost <= params.limit) {
            ASSERT_EQ(v.retry_after_ms, MsUntil(start + w, now)) << where;
          }
          if (fits && cost > 0) {
            if (!live) {
              live = true;
              start = now;
              count = 0;
            }
            count += cost;
            admitted.push_back({now, cost});
          }
        });
    // Each window admits at most the limit (the oracle above); so any span shorter than a
    // window, which meets at most two windows, admits at most 2 x limit.
    for (size_t i = 0; i < admitted.size(); ++i) {
      int64_t sum = 0;
      for (size_t j = i; j < admitted.size() && admitted[j].at_us - admitted[i].at_us < w; ++j) {
        sum += admitted[j].cost;
      }
      ASSERT_LE(sum, 2 * params.limit) << "seed " << seed;
    }
  }
}

TEST(PropertyTest, SlidingWindowFollowsTheWeightedRule) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 1299709);
    SlidingWindowParams params{Pick<int64_t>(rng, {1, 3, 10, 50}),
                               Pick<int64_t>(rng, {1, 3, 250, 1000, 60000})};
    const int64_t w = params.window_ms * 1000;
    std::map<int64_t, int64_t> per_window;  // window index -> admitted units
    RunStream<SlidingWindowState>(
        params, seed, w, params.limit,
        [&](int64_t now, int64_t cost, const Verdict& v, const std::string& where) {
          const int64_t index = FloorDiv(now, w);
          const Int128 curr = per_window[index];
          const Int128 prev = per_window[index - 1];
          const Int128 e = now - index * w;
          const Int128 lhs = prev * (w - e) + (curr + cost) * w;
          const bool fits = cost <= params.limit && lhs <= static_cast<Int128>(params.limit) * w;
          ASSERT_EQ(v.allowed, fits) << where;
          const Int128 after = curr + (fits ? cost : 0);
          const Int128 room = static_cast<Int128>(params.limit) * w - prev * (w - e) - after * w;
          ASSERT_EQ(v.remaining, room > 0 ? static_cast<int64_t>(room / w) : 0) << where;
          if (fits) per_window[index] += cost;
          // No aligned window ever holds more than the limit.
          ASSERT_LE(per_window[index], params.limit) << where;
        });
  }
}

// The token and leaky buckets against a plain rational model: tokens scaled by period_us.
template <typename State, typename Params>
void CheckBucket(const char* name, uint64_t salt) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * salt);
    const int64_t capacity = Pick<int64_t>(rng, {1, 2, 7, 15, 50});
    const int64_t amount = Pick<int64_t>(rng, {1, 3, 7, 30, 1000});
    const int64_t period_ms = Pick<int64_t>(rng, {1, 3, 1000, 7000, 60000});
    Params params{capacity, amount, period_ms};
    const Int128 period_us = static_cast<Int128>(period_ms) * 1000;
    const Int128 full = capacity * period_us;  // scaled tokens of a full bucket
    Int128 tokens = full;
    int64_t last = 0;
    bool started = false;
    std::vector<Admission> admitted;
    const int64_t scale = std::max<int64_t>(
        1, static_cast<int64_t>(capacity * period_us / amount));  // time to refill fully
    RunStream<State>(
        params, seed, scale, capacity,
        [&](int64_t now, int64_t cost, const Verdict& v, const std::string& where) {
          if (started) tokens = std::min(full, tokens + static_cast<Int128>(amount) * (now - last));
          started = true;
          last = now;
          const Int128 need = static_cast<Int128>(cost) * period_us;
          const bool fits = cost <= capacity && need <= tokens;
          ASSERT_EQ(v.allowed, fits) << name << " " << where;
          if (fits) tokens -= need;
          ASSERT_EQ(v.remaining, static_cast<int64_t>(tokens / period_us)) << name << " " << where;
          if (!v.allowed && cost <= capacity) {  // the exact wait for the missing tokens
            const Int128 wait_us = (need - tokens + amount - 1) / amount;
            ASSERT_EQ(v.retry_after_ms, static_cast<int64_t>((wait_us + 999) / 1000))
                << name << " " << where;
          }
          const Int128 refill_us = ((full - tokens) + amount - 1) / amount;
          ASSERT_EQ(v.reset_after_ms, static_cast<int64_t>((refill_us + 999) / 1000))
              << name << " " << where;
          if (fits && cost > 0) admitted.push_back({now, cost});
        });
    // Over any interval: admitted <= capacity + rate * elapsed.
    CheckIntervals(admitted, period_us, full, amount, name);
  }
}

TEST(PropertyTest, TokenBucketIsExact) {
  CheckBucket<TokenBucketState, TokenBucketParams>("token", 15485863);
}

TEST(PropertyTest, LeakyBucketIsExact) {
  CheckBucket<LeakyBucketState, LeakyBucketParams>("leaky", 32452843);
}

TEST(PropertyTest, GcraMatchesTheDebtModel) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 49979687);
    GcraParams params{Pick<int64_t>(rng, {0, 1, 4, 15, 40}), Pick<int64_t>(rng, {1, 3, 7, 30}),
                      Pick<int64_t>(rng, {1, 7, 1000, 3000, 60000})};
    const int64_t t = params.period_ms * 1'000'000 / params.count;  // emission interval, ns
    const int64_t limit = params.max_burst + 1;
    const Int128 tau = static_cast<Int128>(t) * limit;
    Int128 debt = 0;  // ns of schedule ahead of now: max(tat - now, 0)
    int64_t last = 0;
    bool started = false;
    std::vector<Admission> admitted;
    RunStream<GcraState>(
        params, seed, static_cast<int64_t>(tau / 1000) + 1, limit,
        [&](int64_t now, int64_t cost, const Verdict& v, const std::string& where) {
          if (started) debt = std::max<Int128>(0, debt - static_cast<Int128>(now - last) * 1000);
          started = true;
          last = now;
          const Int128 inc = static_cast<Int128>(t) * cost;
          const bool fits = debt + inc <= tau;
          ASSERT_EQ(v.allowed, fits) << where;
          if (fits) debt += inc;
          const Int128 next = tau - debt;
          ASSERT_EQ(v.remaining, next > 0 ? static_cast<int64_t>(next / t) : 0) << where;
          ASSERT_EQ(v.reset_after_ms, static_cast<int64_t>((debt + 999'999) / 1'000'000)) << where;
          if (!fits && inc <= tau) {
            ASSERT_EQ(v.retry_after_ms,
                      static_cast<int64_t>((debt + inc - tau + 999'999) / 1'000'000))
                << where;
          }
          if (fits && cost > 0) admitted.push_back({now, cost});
        });
    // Never faster than T beyond the burst: sum * T <= tau + elapsed (ns).
    CheckIntervals(admitted, t, tau, 1000, "gcra");
  }
}

TEST(PropertyTest, ClThrottleAgreesWithRlGcra) {
  // CL.THROTTLE with period P s and RL.GCRA with period P*1000 ms are one limiter: same
  // decisions; the reply differs only in units (and in remaining's rounding, by at most 1).
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 86028121);
    ThrottleParams throttle{Uniform(rng, 0, 20), Uniform(rng, 1, 40), Uniform(rng, 1, 90)};
    GcraParams gcra{throttle.max_burst, throttle.count, throttle.period_s * 1000};
    std::optional<GcraState> state;
    int64_t now = kT0Us;
    for (int i = 0; i < kSteps; ++i) {
      now += Step(rng, throttle.period_s * 1'000'000 / throttle.count);
      const int64_t q = Cost(rng, throttle.max_burst + 1);
      StatusOr<GcraDecision> a = Decide(state ? &*state : nullptr, throttle, now, q);
      StatusOr<GcraDecision> b = Decide(state ? &*state : nullptr, gcra, now, q);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->verdict(), b->verdict());
      const ThrottleReply& r = a->throttle;
      ASSERT_EQ(r.limited, a->allowed ? 0 : 1);
      ASSERT_EQ(r.limit, a->limit);
      ASSERT_GE(r.remaining, a->remaining);
      ASSERT_LE(r.remaining, a->remaining + 1);
      ASSERT_EQ(r.retry_after_s, a->retry_after_ns < 0 ? -1 : CellSeconds(a->retry_after_ns));
      ASSERT_EQ(r.reset_after_s, CellSeconds(a->reset_after_ns));
      if (a->write_state) state = a->state;
    }
  }
}

TEST(PropertyTest, SmoothInvariants) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937_64 rng(seed * 67867967);
    SmoothParams params;
    params.permits_per_second = Pick<double>(rng, {0.3, 1.0, 2.0, 7.5, 333.0});
    if (Uniform(rng, 0, 1) == 0) {
      params.max_burst_seconds = Pick<double>(rng, {0.0, 0.5, 1.0, 10.0});
    } else {
      params.warmup_ms = Pick<int64_t>(rng, {1, 500, 4000});
      params.cold_factor = Pick<double>(rng, {1.0, 3.0, 10.0});
    }
    const auto scale = static_cast<int64_t>(2e6 / params.permits_per_second);
    std::optional<SmoothState> state;
    int64_t expire_at_ms = 0;
    int64_t now = kT0Us;
    for (int i = 0; i < kSteps; ++i) {
      now += Step(rng, scale);
      const int64_t cost = Cost(rng, 5);
      std::optional<int64_t> timeout;
      if (Uniform(rng, 0, 2) == 0) timeout = Uniform(rng, 0, scale / 1000);
      const std::string where = Where(seed, i, now, cost);
      if (state && now / 1000 > expire_at_ms) state.reset();
      const SmoothState* ptr = state ? &*state : nullptr;
      StatusOr<SmoothDecision> d = Decide(ptr, params, now, cost, timeout);
      ASSERT_TRUE(d.ok()) << where << d.status().message();
      ASSERT_GE(d->wait_us, 0) << where;
      ASSERT_EQ(d->wait_ms, CeilUsToMs(d->wait_us)) << where;
      const int64_t next_free = ptr != nullptr ? ptr->next_free_us : now;
      const bool can = !timeout || next_free - *timeout * 1000 <= now;
      ASSERT_EQ(d->granted, can) << where;
      ASSERT_EQ(d->write_state, can && cost > 0) << where;
      if (d->granted) {
        ASSERT_EQ(d->wait_us, std::max<int64_t>(0, next_free - now)) << where;
      }
      const SmoothState* held = d->write_state ? &d->state : ptr;
      if (held != nullptr) {  // at its expiry, a fresh key
        for (int64_t t : {d->expire_at_us, d->expire_at_us + Uniform(rng, 1, 10'000'000)}) {
          StatusOr<SmoothDecision> aged = Decide(held, params, t, 3);
          StatusOr<SmoothDecision> fresh = Decide(nullptr, params, t, 3);
          ASSERT_TRUE(aged.ok() && fresh.ok()) << where;
          ASSERT_EQ(aged->wait_us, fresh->wait_us) << where;
          ASSERT_EQ(aged->state, fresh->state) << where;
        }
      }
      if (d->write_state) {
        StatusOr<SmoothState> back = SmoothState::Decode(d->state.Encode());
        ASSERT_TRUE(back.ok() && *back == d->state) << where;
        ASSERT_GE(d->expire_at_us, now) << where;
        state = d->state;
        expire_at_ms = d->ExpireAtMs();
      }
    }
  }
}

}  // namespace
}  // namespace sluice::algorithms
