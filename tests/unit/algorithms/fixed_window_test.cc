#include "algorithms/fixed_window.h"

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

TEST(FixedWindowTest, Table) {
  Key<FixedWindowState, FixedWindowParams> key({3, 1000});
  PlayTable(key, 3,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 1, true, 2, -1, 1000},  // the window starts here: [0, 1000)
                {100, 1, true, 1, -1, 900},
                {200, 2, false, 1, 800, 800},  // 2 + 2 > 3: refused, not counted
                {200, 1, true, 0, -1, 800},
                {500, 1, false, 0, 500, 500},
                {500, 0, true, 0, -1, 500},  // COST 0 inspects
                {999, 1, false, 0, 1, 1},
                {1000, 0, true, 3, -1, 0},     // the window is over: a fresh key
                {1000, 4, false, 3, -1, 0},    // COST above the limit: never
                {1500, 3, true, 0, -1, 1000},  // a new window starts with this request
                {2499, 1, false, 0, 1, 1},
                {2500, 1, true, 2, -1, 1000},
            });
}

TEST(FixedWindowTest, SubMillisecondTimesRoundUp) {
  FixedWindowParams params{1, 1000};
  StatusOr<FixedWindowDecision> first = Decide(nullptr, params, AtMs(0) + 1, 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->expire_at_us, AtMs(1000) + 1);
  EXPECT_EQ(first->ExpireAtMs(), AtMs(1000) / 1000 + 1);
  StatusOr<FixedWindowDecision> second = Decide(&first->state, params, AtMs(500), 1);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->allowed);
  EXPECT_EQ(second->retry_after_ms, 501);  // 500.001 ms, rounded up
  EXPECT_EQ(second->reset_after_ms, 501);
}

TEST(FixedWindowTest, CountsNothingWithoutAKey) {
  FixedWindowParams params{2, 1000};
  for (int64_t cost : {0, 3}) {
    StatusOr<FixedWindowDecision> d = Decide(nullptr, params, AtMs(0), cost);
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->write_state) << cost;
    EXPECT_EQ(d->reset_after_ms, 0);
  }
}

TEST(FixedWindowTest, ALimitNear2To63RefusesWhereTheSumWouldOverflow) {
  Key<FixedWindowState, FixedWindowParams> key({kInt64Max, 1000});
  PlayTable(key, kInt64Max,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, kInt64Max - 1, true, 1, -1, 1000},
                {100, kInt64Max, false, 1, 900, 900},  // the count plus COST passes 2^63
                {200, 1, true, 0, -1, 800},
                {300, 1, false, 0, 700, 700},
            });
}

TEST(FixedWindowTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"10", "60000"};
  StatusOr<FixedWindowParams> p = ParseFixedWindowParams(ok);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->limit, 10);
  EXPECT_EQ(p->window_ms, 60000);

  std::vector<std::string_view> bad_limit = {"0", "1000"};
  EXPECT_EQ(ParseFixedWindowParams(bad_limit).status().message(),
            "limit must be a positive integer");
  std::vector<std::string_view> bad_window = {"1", "abc"};
  EXPECT_EQ(ParseFixedWindowParams(bad_window).status().message(),
            "window_ms must be a positive integer");
  std::vector<std::string_view> huge_window = {"1", "9223372036854775807"};
  EXPECT_EQ(ParseFixedWindowParams(huge_window).status().message(), kMsgOverflow);
  EXPECT_EQ(Decide(nullptr, FixedWindowParams{1, 1000}, AtMs(0), -1).status().message(), kMsgCost);
}

TEST(FixedWindowTest, RescaleKeepsCountedUnits) {
  FixedWindowParams old_params{10, 1000};
  FixedWindowState state{AtMs(0), 7};
  // A lower limit applies to the 7 units already counted.
  StatusOr<Rescaled<FixedWindowState>> r = Rescale(state, old_params, {5, 1000}, AtMs(300));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  StatusOr<FixedWindowDecision> d = Decide(&r->state, {5, 1000}, AtMs(300), 1);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->remaining, 0);
  EXPECT_EQ(d->retry_after_ms, 700);
  // A longer window keeps the start: it now ends at 2000.
  r = Rescale(state, old_params, {10, 2000}, AtMs(300));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->keep);
  EXPECT_EQ(r->expire_at_us, AtMs(2000));
  // A shorter window that is already over: fresh.
  r = Rescale(state, old_params, {10, 200}, AtMs(300));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

}  // namespace
}  // namespace sluice::algorithms
