#include "algorithms/sliding_log.h"

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

TEST(SlidingLogTest, Table) {
  Key<SlidingLogState, SlidingLogParams> key({3, 1000});
  PlayTable(key, 3,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 1, true, 2, -1, 1000},
                {300, 2, true, 0, -1, 1000},
                {500, 1, false, 0, 500, 800},  // the entry of t=0 leaves at 1000
                {500, 3, false, 0, 800, 800},  // needs t=0 and t=300 gone: 1300
                {999, 1, false, 0, 1, 301},
                {1000, 1, true, 0, -1, 1000},   // (0, 1000] holds 300 (2) + 1000 (1)
                {1000, 4, false, 0, -1, 1000},  // above the limit: never
                {1299, 0, true, 0, -1, 701},
                {1300, 0, true, 2, -1, 700},  // the 2 units of t=300 left
                {1300, 2, true, 0, -1, 1000},
                {2300, 0, true, 3, -1, 0},  // everything left: fresh
            });
}

TEST(SlidingLogTest, SameMicrosecondSharesAnEntryAndPruningBoundsTheLog) {
  SlidingLogParams params{5, 1000};
  SlidingLogState state;
  int64_t now = AtMs(0);
  for (int i = 0; i < 5; ++i) {
    StatusOr<SlidingLogDecision> d = Decide(&state, params, now, 1);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(d->allowed);
    state = d->state;
  }
  ASSERT_EQ(state.entries.size(), 1u);
  EXPECT_EQ(state.entries[0].cost, 5);
  // A long stream at the rate limit never grows the log past `limit` entries.
  for (int i = 0; i < 1000; ++i) {
    now += 200 * 1000 + 1;
    StatusOr<SlidingLogDecision> d = Decide(&state, params, now, 1);
    ASSERT_TRUE(d.ok());
    if (d->write_state) state = d->state;
    ASSERT_LE(state.entries.size(), 5u);
  }
  EXPECT_LT(state.Encode().size(), 40u);
}

TEST(SlidingLogTest, EncodingRoundTripsAndRejectsGarbage) {
  SlidingLogState state{{{AtMs(0), 3}, {AtMs(0) + 1, 1}, {AtMs(999), 7}}};
  StatusOr<SlidingLogState> back = SlidingLogState::Decode(state.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, state);
  std::string bytes = state.Encode();
  bytes[2] = '\x7f';  // claims 127 entries
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
}

TEST(SlidingLogTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"1000000", "1"};
  EXPECT_TRUE(ParseSlidingLogParams(ok).ok());
  std::vector<std::string_view> too_big = {"1000001", "1000"};
  EXPECT_EQ(ParseSlidingLogParams(too_big).status().message(), kMsgSlidingLogTooLarge);
  std::vector<std::string_view> negative = {"-1", "1000"};
  EXPECT_EQ(ParseSlidingLogParams(negative).status().message(), "limit must be a positive integer");
}

TEST(SlidingLogTest, RescaleKeepsLoggedUnits) {
  SlidingLogState state{{{AtMs(0), 2}, {AtMs(500), 2}}};
  // A shorter window drops what is outside it; a lower limit applies to the rest.
  StatusOr<Rescaled<SlidingLogState>> r = Rescale(state, {10, 1000}, {2, 400}, AtMs(600));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  ASSERT_EQ(r->state.entries.size(), 1u);
  EXPECT_EQ(r->expire_at_us, AtMs(900));
  StatusOr<SlidingLogDecision> d = Decide(&r->state, {2, 400}, AtMs(600), 1);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->retry_after_ms, 300);
  r = Rescale(state, {10, 1000}, {10, 50}, AtMs(600));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

}  // namespace
}  // namespace sluice::algorithms
