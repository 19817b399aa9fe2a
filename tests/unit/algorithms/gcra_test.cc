// RL.GCRA and CL.THROTTLE: redis-cell's decisions (and its tests, README and e2e example),
// Dragonfly's CL.THROTTLE test sequence, with redis-cell's rounding.

#include "algorithms/gcra.h"

#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

#include "algorithms/messages.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::AtMs;
using testing::Key;
using testing::kT0Us;
using testing::PlayTable;

using Reply = std::array<int64_t, 5>;

// redis-cell-impl/src/lib.rs `it_rate_limits`: limit 5 (max_burst 4), 1 per second.
TEST(GcraTest, RedisCellRateLimitsTable) {
  Key<GcraState, GcraParams> key({4, 1, 1000});
  PlayTable(key, 5,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 6, false, 5, -1, 0},  // never larger than the maximum
                {0, 1, true, 4, -1, 1000},
                {0, 1, true, 3, -1, 2000},
                {0, 1, true, 2, -1, 3000},
                {0, 1, true, 1, -1, 4000},
                {0, 1, true, 0, -1, 5000},
                {0, 1, false, 0, 1000, 5000},
                {3000, 1, true, 2, -1, 3000},
                {3100, 1, true, 1, -1, 3900},
                {4000, 1, true, 1, -1, 4000},
                {8000, 1, true, 4, -1, 1000},
                {9500, 1, true, 4, -1, 1000},
                {9500, 0, true, 4, -1, 1000},     // zero volume peeks
                {9500, 2, true, 2, -1, 3000},     // high volume uses more
                {9500, 5, false, 2, 3000, 3000},  // large requests cannot exceed limits
            });
}

TEST(GcraTest, ExactNanoseconds) {
  // 3 per second: T = 333,333,333 ns; the ms outputs round the exact ns values up.
  GcraParams params{2, 3, 1000};
  StatusOr<GcraDecision> d = Decide(nullptr, params, kT0Us, 3);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->allowed);
  EXPECT_EQ(d->state.tat_ns, kT0Us * 1000 + 999'999'999);
  EXPECT_EQ(d->reset_after_ns, 999'999'999);
  EXPECT_EQ(d->reset_after_ms, 1000);
  EXPECT_EQ(d->expire_at_us, kT0Us + 1'000'000);
  StatusOr<GcraDecision> refused = Decide(&d->state, params, kT0Us, 1);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->allowed);
  EXPECT_EQ(refused->retry_after_ns, 333'333'333);
  EXPECT_EQ(refused->retry_after_ms, 334);
  EXPECT_EQ(refused->throttle.retry_after_s, 1);  // 0.333 s: 0 s plus one
}

// CL.THROTTLE replies.
Reply Throttle(Key<GcraState, ThrottleParams>& key, int64_t t_ms, int64_t quantity) {
  return key.Call(AtMs(t_ms), quantity).throttle.ToArray();
}

TEST(ClThrottleTest, ReadmeExample) {
  // CL.THROTTLE user123 15 30 60 -> 0 16 15 -1 2
  Key<GcraState, ThrottleParams> key({15, 30, 60});
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 16, 15, -1, 2}));
}

TEST(ClThrottleTest, EndToEndExample) {
  // redis-cell tests/e2e.rs: CL.THROTTLE user123 0 1 2 1.
  Key<GcraState, ThrottleParams> key({0, 1, 2});
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 1, 0, -1, 2}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{1, 1, 0, 2, 2}));
  EXPECT_EQ(Throttle(key, 2000, 1), (Reply{0, 1, 0, -1, 2}));
}

TEST(ClThrottleTest, DragonflySequenceWithRedisCellRounding) {
  // Dragonfly's string_family_test.cc ClThrottle (max_burst 4, 1 per 10 s). Dragonfly adds
  // one second to every positive duration (it expects 11, 21, ... and retry 11); redis-cell
  // adds one only for a sub-second part of at least 1 ms, so whole seconds stay whole.
  Key<GcraState, ThrottleParams> key({4, 1, 10});
  EXPECT_EQ(Throttle(key, 0, 6), (Reply{1, 5, 5, -1, 0}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 5, 4, -1, 10}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 5, 3, -1, 20}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 5, 2, -1, 30}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 5, 1, -1, 40}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{0, 5, 0, -1, 50}));
  EXPECT_EQ(Throttle(key, 0, 1), (Reply{1, 5, 0, 10, 50}));
  EXPECT_EQ(Throttle(key, 30000, 1), (Reply{0, 5, 2, -1, 30}));
  EXPECT_EQ(Throttle(key, 31000, 1), (Reply{0, 5, 1, -1, 39}));
  EXPECT_EQ(Throttle(key, 40000, 1), (Reply{0, 5, 1, -1, 40}));
  EXPECT_EQ(Throttle(key, 80000, 1), (Reply{0, 5, 4, -1, 10}));
  EXPECT_EQ(Throttle(key, 95000, 1), (Reply{0, 5, 4, -1, 10}));
  EXPECT_EQ(Throttle(key, 95000, 0), (Reply{0, 5, 4, -1, 10}));
  EXPECT_EQ(Throttle(key, 95000, 2), (Reply{0, 5, 2, -1, 30}));
  EXPECT_EQ(Throttle(key, 95000, 5), (Reply{1, 5, 2, 30, 30}));

  // Emission interval 2000 ns, cost 2: reset after 4 us is 0 s for redis-cell (1 in Dragonfly).
  Key<GcraState, ThrottleParams> bar({4, 500000, 1});
  EXPECT_EQ(Throttle(bar, 0, 2), (Reply{0, 5, 3, -1, 0}));
}

TEST(ClThrottleTest, RemainingIsRedisCellsMicrosecondQuotient) {
  // 3 per second, burst 2: T = 333,333,333 ns. 333,333 us after one request the exact
  // remaining is 2.999999 (RL.GCRA: 2), while redis-cell divides whole microseconds,
  // 999,999 / 333,333 = 3 (CL.THROTTLE: 3).
  StatusOr<GcraDecision> first = Decide(nullptr, ThrottleParams{2, 3, 1}, kT0Us, 1);
  ASSERT_TRUE(first.ok());
  StatusOr<GcraDecision> peek = Decide(&first->state, ThrottleParams{2, 3, 1}, kT0Us + 333333, 0);
  ASSERT_TRUE(peek.ok());
  EXPECT_EQ(peek->remaining, 2);
  EXPECT_EQ(peek->throttle.remaining, 3);
}

TEST(ClThrottleTest, CellSecondsRounding) {
  EXPECT_EQ(CellSeconds(0), 0);
  EXPECT_EQ(CellSeconds(999'999), 0);        // under 1 ms
  EXPECT_EQ(CellSeconds(1'000'000), 1);      // 1 ms
  EXPECT_EQ(CellSeconds(1'000'000'000), 1);  // whole second
  EXPECT_EQ(CellSeconds(1'000'999'999), 1);  // 1.000999 s
  EXPECT_EQ(CellSeconds(1'001'000'000), 2);
  EXPECT_EQ(CellSeconds(-1'000'000'000), -1);  // the "never" sentinel
}

TEST(ClThrottleTest, ParseArgs) {
  std::vector<std::string_view> ok = {"15", "30", "60"};
  StatusOr<ThrottleRequest> r = ParseThrottleArgs(ok);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->params.max_burst, 15);
  EXPECT_EQ(r->quantity, 1);
  std::vector<std::string_view> lenient = {"+15", "030", "60", "+2"};  // Rust's i64 parser
  r = ParseThrottleArgs(lenient);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->params.count, 30);
  EXPECT_EQ(r->quantity, 2);

  auto error = [](std::vector<std::string_view> args) {
    return ParseThrottleArgs(args).status().message();
  };
  EXPECT_EQ(error({"15", "abc", "60"}), "Couldn't parse as integer: abc");
  EXPECT_EQ(error({"15", "30", "60", "1.5"}), "Couldn't parse as integer: 1.5");
  EXPECT_EQ(error({"10", "1", "0"}), "Zero rates are not supported");
  EXPECT_EQ(error({"10", "0", "1"}), "Zero rates are not supported");
  EXPECT_EQ(error({"10", "2000000000", "1"}), "Zero rates are not supported");  // T < 1 ns
  EXPECT_EQ(error({"-1", "1", "1"}), "max_burst must be a non-negative integer");
  EXPECT_EQ(error({"1", "-1", "1"}), "count must be a positive integer");
  EXPECT_EQ(error({"1", "1", "-1"}), "period must be a positive integer");
  EXPECT_EQ(error({"1", "1", "1", "-1"}), "quantity must be a non-negative integer");
  EXPECT_EQ(error({"1", "1"}), "wrong number of arguments for 'cl.throttle' command");
  EXPECT_EQ(error({"1", "1", "10000000000"}), kMsgOverflow);  // 1e10 s in ns
}

TEST(GcraTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"0", "1", "1"};
  EXPECT_TRUE(ParseGcraParams(ok).ok());
  auto error = [](std::vector<std::string_view> args) {
    return ParseGcraParams(args).status().message();
  };
  EXPECT_EQ(error({"-1", "1", "1000"}), "max_burst must be a non-negative integer");
  EXPECT_EQ(error({"1", "0", "1000"}), "count must be a positive integer");
  EXPECT_EQ(error({"1", "1", "0"}), "period_ms must be a positive integer");
  EXPECT_EQ(error({"1", "1000001", "1"}), kMsgGcraZeroInterval);
  EXPECT_EQ(error({"1", "1", "9223372036854775807"}), kMsgOverflow);
  EXPECT_EQ(error({"9223372036854775807", "1", "1"}), kMsgOverflow);
  EXPECT_EQ(error({"1000000000000", "1", "1000"}), kMsgOverflow);  // tau = T * limit
}

TEST(GcraTest, StaleStateIsFresh) {
  // A stored tat in the past (the key not yet dropped) behaves exactly as no key.
  GcraParams params{4, 1, 1000};
  GcraState stale{kT0Us * 1000 - 5'000'000};
  for (int64_t cost : {0, 1, 5, 6}) {
    StatusOr<GcraDecision> a = Decide(&stale, params, kT0Us, cost);
    StatusOr<GcraDecision> b = Decide(nullptr, params, kT0Us, cost);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(a->verdict(), b->verdict()) << cost;
    EXPECT_EQ(a->throttle, b->throttle) << cost;
    EXPECT_EQ(a->state, b->state) << cost;
  }
}

TEST(GcraTest, RescaleKeepsConsumedFraction) {
  GcraParams old_params{4, 1, 1000};              // tau 5 s
  GcraState state{kT0Us * 1000 + 2'000'000'000};  // 2 s of debt: 40% consumed
  StatusOr<Rescaled<GcraState>> r = Rescale(state, old_params, {9, 1, 1000}, kT0Us);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  EXPECT_EQ(r->state.tat_ns, kT0Us * 1000 + 4'000'000'000);
  StatusOr<GcraDecision> d = Decide(&r->state, GcraParams{9, 1, 1000}, kT0Us, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->remaining, 6);
  r = Rescale(state, old_params, {9, 1, 1000}, kT0Us + 2'000'000);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

TEST(GcraTest, EncodingIsSharedByBothCommands) {
  Key<GcraState, GcraParams> gcra({0, 1, 1000});
  EXPECT_TRUE(gcra.Call(AtMs(0), 1).allowed);
  StatusOr<GcraDecision> d = Decide(nullptr, GcraParams{0, 1, 1000}, AtMs(0), 1);
  ASSERT_TRUE(d.ok());
  StatusOr<GcraState> back = GcraState::Decode(d->state.Encode());
  ASSERT_TRUE(back.ok());
  StatusOr<GcraDecision> throttled = Decide(&*back, ThrottleParams{0, 1, 1}, AtMs(0), 1);
  ASSERT_TRUE(throttled.ok());
  EXPECT_EQ(throttled->throttle.ToArray(), (Reply{1, 1, 0, 1, 1}));
  EXPECT_LE(d->state.Encode().size(), 12u);
}

}  // namespace
}  // namespace sluice::algorithms
