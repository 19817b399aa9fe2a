// RL.SMOOTH: Guava's SmoothBursty / SmoothWarmingUp, checked against the real Guava (vectors
// generated from Guava 31.1) and against the behaviour Guava's own tests document.

#include "algorithms/smooth.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/messages.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::kT0Us;

struct GuavaStep {
  int64_t sleep_us;
  int64_t permits;
  int64_t timeout_ms;  // -1: acquire (no TIMEOUT)
  bool granted;
  int64_t wait_us;
};

struct GuavaScenario {
  const char* name;
  double permits_per_second;
  double max_burst_seconds;
  int64_t warmup_ms;
  double cold_factor;
  std::vector<GuavaStep> steps;
};

const std::vector<GuavaScenario>& GuavaScenarios() {
  static const std::vector<GuavaScenario> kScenarios = {
#include "guava_smooth_vectors.inc"
  };
  return kScenarios;
}

// A caller of one limiter: keeps the state (round-tripped through its encoding) and the clock,
// and waits as told, as Guava's acquire() does.
class Caller {
 public:
  Caller(SmoothParams params, SmoothState state) : params_(params), state_(state) {}

  SmoothDecision Acquire(int64_t permits, std::optional<int64_t> timeout_ms = std::nullopt) {
    StatusOr<SmoothDecision> d = Decide(&state_, params_, now_, permits, timeout_ms);
    EXPECT_TRUE(d.ok()) << d.status().message();
    if (!d.ok()) return {};
    if (d->write_state) {
      StatusOr<SmoothState> back = SmoothState::Decode(d->state.Encode());
      EXPECT_TRUE(back.ok());
      EXPECT_EQ(*back, d->state);
      state_ = d->state;
    }
    if (d->granted) now_ += d->wait_us;
    return *d;
  }
  int64_t AcquireWait(int64_t permits) { return Acquire(permits).wait_us; }
  void Sleep(int64_t us) { now_ += us; }
  void SetRate(const SmoothParams& params) {
    StatusOr<Rescaled<SmoothState>> r = Rescale(state_, params_, params, now_);
    ASSERT_TRUE(r.ok()) << r.status().message();
    StatusOr<SmoothState> fresh = FreshSmoothState(params, now_);
    ASSERT_TRUE(fresh.ok());
    state_ = r->keep ? r->state : *fresh;
    params_ = params;
  }
  int64_t now() const { return now_; }
  const SmoothState& state() const { return state_; }

 private:
  SmoothParams params_;
  SmoothState state_;
  int64_t now_ = kT0Us;
};

Caller GuavaCreated(SmoothParams params) {
  StatusOr<SmoothState> s = GuavaCreatedState(params, kT0Us);
  EXPECT_TRUE(s.ok());
  return Caller(params, s.ok() ? *s : SmoothState{});
}

Caller FreshKey(SmoothParams params) {
  StatusOr<SmoothState> s = FreshSmoothState(params, kT0Us);
  EXPECT_TRUE(s.ok());
  return Caller(params, s.ok() ? *s : SmoothState{});
}

std::vector<int64_t> AcquireEach(Caller& caller, int n, int64_t permits = 1) {
  std::vector<int64_t> waits;
  waits.reserve(n);
  for (int i = 0; i < n; ++i) waits.push_back(caller.AcquireWait(permits));
  return waits;
}

TEST(SmoothTest, MatchesGuavaVectors) {
  for (const GuavaScenario& sc : GuavaScenarios()) {
    SmoothParams params{sc.permits_per_second, sc.max_burst_seconds, sc.warmup_ms, sc.cold_factor};
    Caller caller = GuavaCreated(params);
    int index = 0;
    for (const GuavaStep& step : sc.steps) {
      caller.Sleep(step.sleep_us);
      std::optional<int64_t> timeout;
      if (step.timeout_ms >= 0) timeout = step.timeout_ms;
      SmoothDecision d = caller.Acquire(step.permits, timeout);
      EXPECT_EQ(d.granted, step.granted) << sc.name << " step " << index;
      EXPECT_EQ(d.wait_us, step.wait_us) << sc.name << " step " << index;
      EXPECT_EQ(d.wait_ms, CeilUsToMs(step.wait_us)) << sc.name << " step " << index;
      ++index;
    }
  }
}

// Guava RateLimiterTest.testWarmUp: R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50.
TEST(SmoothTest, WarmUpRampsFromColdToStable) {
  Caller caller = FreshKey({2.0, 1.0, 4000, 3.0});  // a fresh key is Guava's cold start
  const std::vector<int64_t> cold = {0, 1375000, 1125000, 875000, 625000, 500000, 500000, 500000};
  EXPECT_EQ(AcquireEach(caller, 8), cold);
  caller.Sleep(500000 + 4000000);  // repay the last acquire, then cold again
  EXPECT_EQ(AcquireEach(caller, 8), cold);
  caller.Sleep(500000 + 2000000);  // not cold: it would take another 2 s
  EXPECT_EQ(AcquireEach(caller, 8),
            (std::vector<int64_t>{0, 500000, 500000, 500000, 500000, 500000, 500000, 500000}));
}

// Guava testWarmUpWithColdFactor: R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20.
TEST(SmoothTest, WarmUpWithColdFactor) {
  Caller caller = FreshKey({5.0, 1.0, 4000, 10.0});
  EXPECT_EQ(AcquireEach(caller, 8),
            (std::vector<int64_t>{0, 1752500, 1257500, 762500, 300227, 200000, 200000, 200000}));
}

// Guava testWarmUpAndUpdate: setRate keeps the debt and rescales the stored permits.
TEST(SmoothTest, WarmUpAndUpdate) {
  Caller caller = FreshKey({2.0, 1.0, 4000, 3.0});
  AcquireEach(caller, 8);
  caller.Sleep(4500000);
  EXPECT_EQ(AcquireEach(caller, 3), (std::vector<int64_t>{0, 1375000, 1125000}));
  caller.SetRate({4.0, 1.0, 4000, 3.0});
  EXPECT_EQ(caller.AcquireWait(1), 875000);  // the debt of the last acquire, at the old rate
  EXPECT_EQ(AcquireEach(caller, 4), (std::vector<int64_t>{343750, 281250, 250000, 250000}));
  caller.Sleep(4250000);
  EXPECT_EQ(AcquireEach(caller, 11),
            (std::vector<int64_t>{0, 718750, 656250, 593750, 531250, 468750, 406250, 343750, 281250,
                                  250000, 250000}));
}

// Guava testBurstyAndUpdate (a limiter as Guava creates it: empty).
TEST(SmoothTest, BurstyAndUpdate) {
  Caller caller = GuavaCreated({1.0, 1.0, 0, 3.0});
  EXPECT_EQ(caller.AcquireWait(1), 0);
  EXPECT_EQ(caller.AcquireWait(1), 1000000);
  caller.SetRate({2.0, 1.0, 0, 3.0});
  EXPECT_EQ(caller.AcquireWait(1), 1000000);  // repays the previous, at the old rate
  EXPECT_EQ(caller.AcquireWait(2), 500000);
  EXPECT_EQ(caller.AcquireWait(4), 1000000);
  EXPECT_EQ(caller.AcquireWait(1), 2000000);
}

// Guava testOneSecondBurst: 5 qps after a second of rest (which is sluice's fresh key).
TEST(SmoothTest, FreshBurstyKeyIsFull) {
  Caller caller = FreshKey({5.0, 1.0, 0, 3.0});
  EXPECT_EQ(caller.AcquireWait(1), 0);
  EXPECT_EQ(caller.AcquireWait(1), 0);
  EXPECT_EQ(caller.AcquireWait(3), 0);
  EXPECT_EQ(caller.AcquireWait(1), 0);       // a burst of 5 permits, then one more is free...
  EXPECT_EQ(caller.AcquireWait(1), 200000);  // ...and this caller pays for it
}

// Guava's class comment: 1 permit per second, unused: acquire(3) is served from stored
// permits, then acquire(10) takes the rest and the next caller pays for the fresh ones.
TEST(SmoothTest, LargeRequestsArePaidByTheNextCaller) {
  // Default MAXBURST 1 s: only 1 permit is stored, however long the key rested.
  Caller one = FreshKey({1.0, 1.0, 0, 3.0});
  EXPECT_EQ(one.AcquireWait(3), 0);         // 1 stored + 2 fresh: granted at once
  EXPECT_EQ(one.AcquireWait(10), 2000000);  // pays for the 2 fresh permits
  EXPECT_EQ(one.AcquireWait(1), 10000000);  // pays for the 10
  // MAXBURST 10: 10 stored permits after 10 s of rest (Guava's storedPermits == 10.0).
  Caller ten = FreshKey({1.0, 10.0, 0, 3.0});
  EXPECT_EQ(ten.AcquireWait(3), 0);   // 7.0 stored left
  EXPECT_EQ(ten.AcquireWait(10), 0);  // 7 stored + 3 fresh
  EXPECT_EQ(ten.AcquireWait(1), 3000000);
}

// Guava testTryAcquire_someWaitAllowed / noWaitAllowed (a limiter as Guava creates it).
TEST(SmoothTest, TimeoutCountsOnlyWhenTheLimiterIsNextFree) {
  Caller caller = GuavaCreated({5.0, 1.0, 0, 3.0});
  EXPECT_TRUE(caller.Acquire(1, 0).granted);
  EXPECT_TRUE(caller.Acquire(1, 200).granted);
  SmoothState before = caller.state();
  SmoothDecision refused = caller.Acquire(1, 100);
  EXPECT_FALSE(refused.granted);
  EXPECT_FALSE(refused.write_state);  // nothing reserved
  EXPECT_EQ(caller.state(), before);
  caller.Sleep(100000);
  EXPECT_TRUE(caller.Acquire(1, 100).granted);
  // The request's size does not matter, only when the limiter is next free.
  Caller big = FreshKey({1.0, 1.0, 0, 3.0});
  EXPECT_TRUE(big.Acquire(100, 0).granted);
  EXPECT_FALSE(big.Acquire(1, 98999).granted);
  EXPECT_TRUE(big.Acquire(1, 99000).granted);  // 99 s: the debt of the 99 fresh permits
}

TEST(SmoothTest, CostZeroInspects) {
  Caller caller = FreshKey({2.0, 1.0, 0, 3.0});
  caller.AcquireWait(5);  // 2 stored + 3 fresh: next free in 1.5 s
  SmoothDecision d = caller.Acquire(0);
  EXPECT_TRUE(d.granted);
  EXPECT_FALSE(d.write_state);
  EXPECT_EQ(d.wait_us, 1500000);
  EXPECT_EQ(d.wait_ms, 1500);
  StatusOr<SmoothDecision> fresh = Decide(nullptr, SmoothParams{2.0, 1.0, 0, 3.0}, kT0Us, 0);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->write_state);
  EXPECT_EQ(fresh->wait_ms, 0);
}

TEST(SmoothTest, WaitIsRoundedUpToMilliseconds) {
  Caller caller = GuavaCreated({3.0, 1.0, 0, 3.0});
  caller.AcquireWait(1);
  SmoothDecision d = caller.Acquire(1);
  EXPECT_EQ(d.wait_us, 333333);  // (long) (1 * 333333.33)
  EXPECT_EQ(d.wait_ms, 334);
}

TEST(SmoothTest, KeyExpiresWhenFullAgain) {
  SmoothParams params{2.0, 1.0, 4000, 3.0};
  Caller caller = FreshKey(params);
  SmoothDecision last;
  for (int i = 0; i < 5; ++i) last = caller.Acquire(1);
  ASSERT_TRUE(last.write_state);
  const int64_t at = last.expire_at_us;
  for (int64_t t : {at, at + 1, at + 12345678}) {
    for (int64_t cost : {0, 1, 7}) {
      StatusOr<SmoothDecision> aged = Decide(&last.state, params, t, cost);
      StatusOr<SmoothDecision> fresh = Decide(nullptr, params, t, cost);
      ASSERT_TRUE(aged.ok());
      ASSERT_TRUE(fresh.ok());
      EXPECT_EQ(aged->wait_us, fresh->wait_us);
      EXPECT_EQ(aged->state, fresh->state);
      EXPECT_EQ(aged->expire_at_us, fresh->expire_at_us);
    }
  }
  // One microsecond earlier, the key is not yet back to full.
  StatusOr<SmoothDecision> before = Decide(&last.state, params, at - 1, 8);
  StatusOr<SmoothDecision> fresh = Decide(nullptr, params, at - 1, 8);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(before->state, fresh->state);
}

TEST(SmoothTest, ParseArgs) {
  auto parse = [](std::vector<std::string_view> args) { return ParseSmoothArgs(args); };
  StatusOr<SmoothRequest> r = parse({"2.5"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->params.permits_per_second, 2.5);
  EXPECT_EQ(r->params.max_burst_seconds, 1.0);
  EXPECT_EQ(r->params.warmup_ms, 0);
  EXPECT_EQ(r->cost, 1);
  EXPECT_FALSE(r->timeout_ms);
  r = parse({"10", "warmup", "5000", "COLDFACTOR", "4", "cost", "3", "Timeout", "250"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->params.warmup_ms, 5000);
  EXPECT_EQ(r->params.cold_factor, 4.0);
  EXPECT_EQ(r->cost, 3);
  EXPECT_EQ(r->timeout_ms, 250);
  r = parse({"0.5", "MAXBURST", "20"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->params.max_burst_seconds, 20.0);

  auto error = [&](std::vector<std::string_view> args) {
    return parse(std::move(args)).status().message();
  };
  EXPECT_EQ(error({"0"}), kMsgSmoothRate);
  EXPECT_EQ(error({"nan"}), kMsgSmoothRate);
  EXPECT_EQ(error({"inf"}), kMsgSmoothRate);
  EXPECT_EQ(error({"1", "MAXBURST", "-1"}), kMsgSmoothMaxBurst);
  EXPECT_EQ(error({"1", "WARMUP", "0"}), "warmup must be a positive integer");
  EXPECT_EQ(error({"1", "WARMUP", "10", "COLDFACTOR", "0.5"}), kMsgSmoothColdFactor);
  EXPECT_EQ(error({"1", "COST", "-1"}), "cost must be a non-negative integer");
  EXPECT_EQ(error({"1", "TIMEOUT", "x"}), "timeout must be a non-negative integer");
  EXPECT_EQ(error({"1", "COLDFACTOR", "2"}), kMsgSyntax);  // needs WARMUP
  EXPECT_EQ(error({"1", "MAXBURST", "2", "WARMUP", "10"}), kMsgSyntax);
  EXPECT_EQ(error({"1", "COST", "1", "COST", "2"}), kMsgSyntax);
  EXPECT_EQ(error({"1", "COST"}), kMsgSyntax);
  EXPECT_EQ(error({"1", "BLOCK", "10"}), kMsgSyntax);
}

TEST(SmoothTest, OverflowIsAnError) {
  // A rate so low that one permit's wait does not fit a 64-bit microsecond count.
  StatusOr<SmoothDecision> d = Decide(nullptr, SmoothParams{1e-14, 0.0, 0, 3.0}, kT0Us, 1);
  EXPECT_EQ(d.status().message(), kMsgOverflow);
  d = Decide(nullptr, SmoothParams{1e6, 1.0, 0, 3.0}, kT0Us, kInt64Max);
  EXPECT_EQ(d.status().message(), kMsgOverflow);
  EXPECT_EQ(Validate(SmoothParams{1.0, 1.0, kInt64Max, 3.0}).message(), kMsgOverflow);
  EXPECT_EQ(Validate(SmoothParams{1e-320, 1.0, 0, 3.0}).message(), kMsgOverflow);
}

}  // namespace
}  // namespace sluice::algorithms
