// RL.TOKENBUCKET and RL.LEAKYBUCKET (one exact machine, bucket_core.h).

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "algorithms/bucket_core.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/messages.h"
#include "algorithms/token_bucket.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::AtMs;
using testing::Key;
using testing::PlayTable;

TEST(TokenBucketTest, Table) {
  Key<TokenBucketState, TokenBucketParams> key({10, 1, 1000});  // 1 token per second
  PlayTable(key, 10,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 10, true, 0, -1, 10000},  // starts full
                {0, 1, false, 0, 1000, 10000},
                {500, 1, false, 0, 500, 9500},  // half a token
                {1000, 1, true, 0, -1, 10000},
                {3500, 0, true, 2, -1, 7500},  // 2.5 tokens, rounded down
                {3500, 3, false, 2, 500, 7500},
                {3500, 11, false, 2, -1, 7500},  // above the capacity: never
                {3500, 2, true, 0, -1, 9500},
                {13500, 0, true, 10, -1, 0},  // full again: fresh
            });
}

TEST(TokenBucketTest, FractionalRateIsExact) {
  // 3 tokens per second: a token every 333.333... ms, represented exactly.
  Key<TokenBucketState, TokenBucketParams> key({5, 3, 1000});
  PlayTable(key, 5,
            {
                {0, 5, true, 0, -1, 1667},  // 5/3 s = 1666.67 ms, rounded up
                {0, 1, false, 0, 334, 1667},
                {333, 1, false, 0, 1, 1334},  // 333.333 ms: 1 ms more
                {334, 1, true, 0, -1, 1666},  // 4.998 tokens missing: 1666.000 ms
            });
  // No drift: one call per ms for 100 s admits exactly the 300 tokens refilled.
  int allowed = 0;
  for (int64_t t = 335; t <= 100334; ++t) {
    if (key.Call(AtMs(t), 1).allowed) ++allowed;
  }
  EXPECT_EQ(allowed, 300);
}

TEST(LeakyBucketTest, FunnelFifteenThenOneEveryTwoSeconds) {
  // capacity 15, leaking 30 per 60 s: 15 at once, then one every 2 s.
  Key<LeakyBucketState, LeakyBucketParams> key({15, 30, 60000});
  for (int i = 0; i < 15; ++i) {
    LeakyBucketDecision d = key.Call(AtMs(0), 1);
    EXPECT_TRUE(d.allowed) << i;
    EXPECT_EQ(d.remaining, 14 - i);
    EXPECT_EQ(d.reset_after_ms, (i + 1) * 2000);
  }
  PlayTable(key, 15,
            {
                {0, 1, false, 0, 2000, 30000},
                {1999, 1, false, 0, 1, 28001},
                {2000, 1, true, 0, -1, 30000},
                {3999, 1, false, 0, 1, 28001},
                {4000, 1, true, 0, -1, 30000},
                {4000, 16, false, 0, -1, 30000},  // can never fit
                {6000, 1, true, 0, -1, 30000},
                {36000, 0, true, 15, -1, 0},  // drained: fresh
            });
  // Full again, then a steady stream at exactly the leak rate is always admitted.
  EXPECT_TRUE(key.Call(AtMs(40000), 15).allowed);
  for (int k = 1; k <= 10; ++k) {
    EXPECT_TRUE(key.Call(AtMs(40000 + 2000 * k), 1).allowed) << k;
    EXPECT_FALSE(key.Call(AtMs(40000 + 2000 * k), 1).allowed) << k;
  }
}

TEST(BucketTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"100", "10", "1000"};
  EXPECT_TRUE(ParseTokenBucketParams(ok).ok());
  EXPECT_TRUE(ParseLeakyBucketParams(ok).ok());
  std::vector<std::string_view> zero_capacity = {"0", "10", "1000"};
  EXPECT_EQ(ParseTokenBucketParams(zero_capacity).status().message(),
            "capacity must be a positive integer");
  std::vector<std::string_view> bad_tokens = {"1", "1.5", "1000"};
  EXPECT_EQ(ParseTokenBucketParams(bad_tokens).status().message(),
            "tokens must be a positive integer");
  EXPECT_EQ(ParseLeakyBucketParams(bad_tokens).status().message(),
            "leaks must be a positive integer");
  std::vector<std::string_view> bad_period = {"1", "1", "+5"};
  EXPECT_EQ(ParseLeakyBucketParams(bad_period).status().message(),
            "period_ms must be a positive integer");
  // capacity * period_us does not fit 64 bits.
  std::vector<std::string_view> huge = {"9223372036854775807", "1", "1000"};
  EXPECT_EQ(ParseTokenBucketParams(huge).status().message(), kMsgOverflow);
}

TEST(BucketTest, RateIsReducedByTheGcdOfAmountAndPeriod) {
  struct Case {
    int64_t amount, period_ms, unit, drain;
  };
  for (const Case& c : std::vector<Case>{
           {10, 1000, 100000, 1},  // the amount divides the period (in us): gcd = amount
           {4, 3, 750, 1},
           {7, 1000, 1000000, 7},  // coprime
           {6, 1, 500, 3},         // gcd 2, neither divides the other
           {3000, 1, 1, 3},        // the period divides the amount
       }) {
    auto rate = MakeBucketRate(10, c.amount, c.period_ms);
    ASSERT_TRUE(rate.ok());
    EXPECT_EQ(rate->unit, c.unit) << c.amount << " per " << c.period_ms << " ms";
    EXPECT_EQ(rate->drain, c.drain) << c.amount << " per " << c.period_ms << " ms";
  }
}

TEST(BucketTest, StatesOfTheTwoBucketsAreDifferentTypes) {
  TokenBucketState token{{AtMs(0), 5, 1}};
  StatusOr<LeakyBucketState> as_leaky = LeakyBucketState::Decode(token.Encode());
  ASSERT_FALSE(as_leaky.ok());
  EXPECT_EQ(as_leaky.status().code(), Code::kWrongType);
  StatusOr<TokenBucketState> back = TokenBucketState::Decode(token.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, token);
}

TEST(BucketTest, RescaleKeepsConsumedFraction) {
  TokenBucketParams old_params{10, 1, 1000};
  StatusOr<TokenBucketDecision> d = Decide(nullptr, old_params, AtMs(0), 4);  // 40% consumed
  ASSERT_TRUE(d.ok());
  StatusOr<Rescaled<TokenBucketState>> r = Rescale(d->state, old_params, {20, 1, 1000}, AtMs(0));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  StatusOr<TokenBucketDecision> after = Decide(&r->state, {20, 1, 1000}, AtMs(0), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->remaining, 12);  // 60% of 20
  r = Rescale(d->state, old_params, {5, 1, 100}, AtMs(0));
  ASSERT_TRUE(r.ok());
  after = Decide(&r->state, {5, 1, 100}, AtMs(0), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->remaining, 3);
  EXPECT_EQ(after->reset_after_ms, 200);  // 2 tokens at 10 per second
  // Refilled by then: nothing to keep.
  r = Rescale(d->state, old_params, {20, 1, 1000}, AtMs(4000));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

TEST(BucketTest, ChangedParametersKeepConsumedTokens) {
  // RL.TOKENBUCKET passes its parameters on every call; when they change, the tokens already
  // taken stay taken (re-read in the new unit), capped at the new capacity.
  StatusOr<TokenBucketDecision> d = Decide(nullptr, TokenBucketParams{10, 1, 1000}, AtMs(0), 4);
  ASSERT_TRUE(d.ok());
  StatusOr<TokenBucketDecision> after = Decide(&d->state, {10, 1, 3000}, AtMs(0), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->remaining, 6);
  EXPECT_EQ(after->reset_after_ms, 12000);
  after = Decide(&d->state, {3, 1, 1000}, AtMs(0), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->remaining, 0);
  EXPECT_EQ(after->reset_after_ms, 3000);
}

}  // namespace
}  // namespace sluice::algorithms
