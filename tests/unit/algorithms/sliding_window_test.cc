#include "algorithms/sliding_window.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "algorithms/messages.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::AtMs;
using testing::Key;
using testing::PlayTable;

TEST(SlidingWindowTest, Table) {
  // Windows [0, 1000), [1000, 2000) ... from kT0, which is aligned to 1000 ms.
  Key<SlidingWindowState, SlidingWindowParams> key({10, 1000});
  PlayTable(key, 10,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 5, true, 5, -1, 2000},  // fresh after both windows: 2000
                {500, 5, true, 0, -1, 1500},
                {600, 1, false, 0, 500, 1400},  // next window at e=100: 10*900+1*1000
                {1099, 1, false, 0, 1, 901},
                {1100, 1, true, 0, -1, 1900},    // prev=10 at weight 0.9, curr=1
                {1500, 1, true, 3, -1, 1500},    // 10*500 + 2*1000 = 7000 <= 10000
                {1500, 4, false, 3, 100, 1500},  // 10*(W-e) + 6000 <= 10000 at e=600
                {1500, 11, false, 3, -1, 1500},  // above the limit: never
                {1999, 0, true, 7, -1, 1001},
                {2000, 0, true, 8, -1, 1000},  // prev=2 at full weight, curr=0
                {3000, 0, true, 10, -1, 0},    // fresh
            });
}

TEST(SlidingWindowTest, AClockMovedBackDecidesAsAtTheStatesWindow) {
  Key<SlidingWindowState, SlidingWindowParams> key({3, 1000});
  PlayTable(key, 3,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {2500, 2, true, 1, -1, 1500},
                {500, 1, true, 0, -1, 3500},      // 2 s back: the window [2000, 3000) still counts
                {2500, 3, false, 0, 1500, 1500},  // 3 of 3 were granted there: never 6
                {500, 1, false, 0, 2834, 3500},
                {3334, 1, true, 0, -1, 1666},  // the retry it was told: 3*0.666 + 1 <= 3
            });
}

TEST(SlidingWindowTest, ExactIntegerComparison) {
  // limit 3, W = 3 ms: prev=2 at e=1 ms weighs 2*2/3 = 1.333...; curr + 1 fits (2.333 <= 3)
  // but curr + 2 does not (3.333). No floating point anywhere.
  SlidingWindowParams params{3, 3};
  const int64_t base = AtMs(0) / 3000 * 3000;  // a window start
  SlidingWindowState state{base, 2, 0};
  StatusOr<SlidingWindowDecision> d = Decide(&state, params, base + 4000, 1);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->allowed);
  EXPECT_EQ(d->remaining, 0);  // floor(3 - 1.333 - 1) = 0
  d = Decide(&state, params, base + 4000, 2);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  // 2*(3000-e) + 2*3000 <= 9000  <=>  e >= 1500 us: t = 3 ms + 1.5 ms, 0.5 ms after now.
  EXPECT_EQ(d->retry_after_ms, 1);
}

TEST(SlidingWindowTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"100", "60000"};
  EXPECT_TRUE(ParseSlidingWindowParams(ok).ok());
  std::vector<std::string_view> bad = {"100", "0"};
  EXPECT_EQ(ParseSlidingWindowParams(bad).status().message(),
            "window_ms must be a positive integer");
  std::vector<std::string_view> arity = {"100"};
  EXPECT_EQ(ParseSlidingWindowParams(arity).status().code(), Code::kSyntax);
}

TEST(SlidingWindowTest, RescaleKeepsBothWindows) {
  SlidingWindowState state{AtMs(1000), 4, 6};
  StatusOr<Rescaled<SlidingWindowState>> r = Rescale(state, {10, 1000}, {5, 1000}, AtMs(1500));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  EXPECT_EQ(r->state, state);
  StatusOr<SlidingWindowDecision> d = Decide(&r->state, {5, 1000}, AtMs(1500), 1);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);  // 6*0.5 + 4 = 7 > 5
  // A 2 s window: re-stamped on its grid (kT0 is aligned to 2000 ms too).
  r = Rescale(state, {10, 1000}, {10, 2000}, AtMs(1500));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state.window_start_us, AtMs(0));
  EXPECT_EQ(r->expire_at_us, AtMs(4000));
  r = Rescale(state, {10, 1000}, {10, 1000}, AtMs(3000));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

}  // namespace
}  // namespace sluice::algorithms
