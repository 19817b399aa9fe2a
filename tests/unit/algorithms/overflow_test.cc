// Huge arguments, extreme clocks and corrupt states give an error Status, never UB or a
// wrapped value (this binary runs under UBSan with -fno-sanitize-recover: UB aborts it).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/messages.h"
#include "algorithms/sliding_log.h"
#include "algorithms/sliding_window.h"
#include "algorithms/smooth.h"
#include "algorithms/token_bucket.h"

namespace sluice::algorithms {
namespace {

constexpr int64_t kNow = 1'700'000'000'000'000;

TEST(OverflowTest, NamedCases) {
  // now + window
  EXPECT_EQ(Decide(nullptr, FixedWindowParams{1, kInt64Max / 1000}, kNow, 1).status().message(),
            kMsgOverflow);
  EXPECT_EQ(Decide(nullptr, SlidingLogParams{1, 1000}, kInt64Max - 5, 1).status().message(),
            kMsgOverflow);
  EXPECT_EQ(Decide(nullptr, SlidingLogParams{1, 1000}, kInt64Min + 5, 1).status().message(),
            kMsgOverflow);
  // cost x interval
  EXPECT_EQ(Decide(nullptr, GcraParams{0, 1, 1000}, kNow, kInt64Max).status().message(),
            kMsgOverflow);
  EXPECT_EQ(Decide(nullptr, ThrottleParams{0, 1, 1}, kNow, kInt64Max / 100).status().message(),
            kMsgOverflow);
  // now in ns
  EXPECT_EQ(Decide(nullptr, GcraParams{0, 1, 1000}, kInt64Max / 999, 1).status().message(),
            kMsgOverflow);
  // capacity * period_us
  EXPECT_EQ(Validate(TokenBucketParams{kInt64Max / 1000, 1, 2}).message(), kMsgOverflow);
  EXPECT_EQ(Validate(LeakyBucketParams{1, 1, kInt64Max}).message(), kMsgOverflow);
  // A fill time beyond 64 bits of microseconds.
  EXPECT_EQ(Decide(nullptr, TokenBucketParams{kInt64Max / 1'000'000, 1, 1000}, kNow,
                   kInt64Max / 1'000'000)
                .status()
                .message(),
            kMsgOverflow);
  // Sliding window expiry at start + 2W.
  EXPECT_EQ(Decide(nullptr, SlidingWindowParams{1, kInt64Max / 1000}, kNow, 1).status().message(),
            kMsgOverflow);
  // A far-future tat seen from a clock before the epoch: tat - now does not fit.
  GcraState far{kInt64Max - 1};
  EXPECT_EQ(Decide(&far, GcraParams{0, 1, 1000}, -1, 0).status().message(), kMsgOverflow);
  // Huge costs above the limit are simply refused (no arithmetic on them).
  StatusOr<FixedWindowDecision> refused =
      Decide(nullptr, FixedWindowParams{5, 1000}, kNow, kInt64Max);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->allowed);
  EXPECT_EQ(refused->retry_after_ms, -1);
  StatusOr<TokenBucketDecision> refused_bucket =
      Decide(nullptr, TokenBucketParams{5, 1, 1000}, kNow, kInt64Max);
  ASSERT_TRUE(refused_bucket.ok());
  EXPECT_FALSE(refused_bucket->allowed);
}

constexpr int64_t kEdges[] = {kInt64Min,
                              kInt64Min + 1,
                              -1'000'000'000'000'000'000,
                              -1,
                              0,
                              1,
                              2,
                              3,
                              999,
                              1000,
                              1'000'000,
                              1'000'000'000'000,
                              kNow,
                              1'000'000'000'000'000'000,
                              kInt64Max / 1'000'000,
                              kInt64Max / 1000,
                              kInt64Max / 2,
                              kInt64Max - 1,
                              kInt64Max};

int64_t Edge(std::mt19937_64& rng) {
  if (rng() % 4 == 0) return static_cast<int64_t>(rng());
  return kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
}

// Whatever the inputs: an error, or a verdict within the contract's ranges.
template <typename State, typename Params>
void Fuzz(std::mt19937_64& rng, const Params& params, const State& state) {
  const int64_t now = Edge(rng);
  const int64_t cost = Edge(rng);
  for (const State* s : {static_cast<const State*>(nullptr), &state}) {
    auto d = Decide(s, params, now, cost);
    if (!d.ok()) continue;
    EXPECT_GE(d->remaining, 0);
    EXPECT_LE(d->remaining, d->limit);
    EXPECT_GE(d->reset_after_ms, 0);
    EXPECT_GE(d->retry_after_ms, -1);
  }
  if constexpr (requires { Rescale(state, params, params, now); }) {
    auto r = Rescale(state, params, params, now);
    (void)r;
  }
}

TEST(OverflowTest, EdgeValuesNeverMisbehave) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    Fuzz(rng, FixedWindowParams{Edge(rng), Edge(rng)}, FixedWindowState{Edge(rng), Edge(rng)});
    Fuzz(rng, SlidingWindowParams{Edge(rng), Edge(rng)},
         SlidingWindowState{Edge(rng), Edge(rng), Edge(rng)});
    Fuzz(rng, SlidingLogParams{static_cast<int64_t>(rng() % 20), Edge(rng)},
         SlidingLogState{{{Edge(rng), static_cast<int64_t>(rng() % 5 + 1)}}});
    Fuzz(rng, TokenBucketParams{Edge(rng), Edge(rng), Edge(rng)},
         TokenBucketState{{Edge(rng), Edge(rng) & kInt64Max, (Edge(rng) & kInt64Max) | 1}});
    Fuzz(rng, LeakyBucketParams{Edge(rng), Edge(rng), Edge(rng)},
         LeakyBucketState{{Edge(rng), Edge(rng) & kInt64Max, (Edge(rng) & kInt64Max) | 1}});
    Fuzz(rng, GcraParams{Edge(rng), Edge(rng), Edge(rng)}, GcraState{Edge(rng)});
    Fuzz(rng, ThrottleParams{Edge(rng), Edge(rng), Edge(rng)}, GcraState{Edge(rng)});
  }
}

TEST(OverflowTest, SmoothEdgeValues) {
  std::mt19937_64 rng(11);
  const double rates[] = {1e-300, 1e-12, 0.001, 1.0, 1e9, 1e300, -1.0, 0.0};
  for (int i = 0; i < 20000; ++i) {
    SmoothParams params;
    params.permits_per_second = rates[rng() % 8];
    params.max_burst_seconds = rates[rng() % 8];
    if (rng() % 2 == 0) {
      params.warmup_ms = Edge(rng);
      params.cold_factor = rates[rng() % 8];
    }
    SmoothState state{rates[rng() % 6], Edge(rng)};
    const int64_t now = Edge(rng);
    std::optional<int64_t> timeout;
    if (rng() % 2 == 0) timeout = Edge(rng);
    const SmoothState* states[] = {nullptr, &state};
    for (const SmoothState* s : states) {
      StatusOr<SmoothDecision> d = Decide(s, params, now, Edge(rng), timeout);
      if (d.ok()) {
        EXPECT_GE(d->wait_us, 0);
        EXPECT_GE(d->wait_ms, 0);
      }
    }
    auto r = Rescale(state, params, params, now);
    (void)r;
  }
}

}  // namespace
}  // namespace sluice::algorithms
