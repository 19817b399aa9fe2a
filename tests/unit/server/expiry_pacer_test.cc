// The active expiry cycle's pace (server/expiry_pacer.h), with each step's end and length given
// explicitly (no clock, no sleeping).

#include "server/expiry_pacer.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sluice::server {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// Steps back to back from `now`, each `took` long and deleting all it may, while the pacer
// answers "at once": how many ran, with `now` left at the end of the last.
int RunFullStepsAtOnce(ExpiryPacer& pacer, nanoseconds took, nanoseconds& now,
                       nanoseconds& last_wait) {
  int steps = 0;
  do {
    now += took;
    last_wait = pacer.WaitAfterStep(StepFound::kMore, took, now);
    ++steps;
  } while (last_wait == nanoseconds(0) && steps < 100000);
  return steps;
}

TEST(ExpiryPacerTest, WhatAStepFound) {
  EXPECT_EQ(FoundInStep(0, 20, false), StepFound::kNothing);
  EXPECT_EQ(FoundInStep(1, 20, false), StepFound::kSome);
  EXPECT_EQ(FoundInStep(19, 20, false), StepFound::kSome);
  EXPECT_EQ(FoundInStep(20, 20, false), StepFound::kMore);
  // A run of tombstones after some finds: more is likely behind it.
  EXPECT_EQ(FoundInStep(3, 20, true), StepFound::kMore);
  EXPECT_EQ(FoundInStep(20, 20, true), StepFound::kMore);
  // Tombstones alone: the pacer decides from how lately anything was found.
  EXPECT_EQ(FoundInStep(0, 20, true), StepFound::kTombstones);
}

TEST(ExpiryPacerTest, IdleAndPartlyBusySteps) {
  ExpiryPacer pacer;
  nanoseconds now = milliseconds(5000);
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kNothing, microseconds(30), now), milliseconds(100));
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kSome, microseconds(30), now += milliseconds(100)),
            milliseconds(10));
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kSome, microseconds(30), now += milliseconds(10)),
            milliseconds(10));
}

TEST(ExpiryPacerTest, FullStepsRunAtOnceForTheWindowsBudget) {
  ExpiryPacer pacer;
  nanoseconds now = milliseconds(5000);
  nanoseconds wait{};
  // 100 us steps run at once until they have used the budget; then the old pace, a step every
  // 10 ms, for the rest of the 100 ms window, which began when the first step began.
  const nanoseconds step = microseconds(100);
  const int steps_in_budget = static_cast<int>(ExpiryPacer::kWindowBudget / step);
  const nanoseconds window_start = now;
  EXPECT_EQ(RunFullStepsAtOnce(pacer, step, now, wait), steps_in_budget);
  EXPECT_EQ(now, window_start + ExpiryPacer::kWindowBudget);
  EXPECT_EQ(wait, ExpiryPacer::kBusyInterval);
  while (now + wait + step < window_start + ExpiryPacer::kWindow) {
    now += wait + step;
    ASSERT_EQ(pacer.WaitAfterStep(StepFound::kMore, step, now), ExpiryPacer::kBusyInterval);
  }
  // The next window: as many at once again.
  now = window_start + ExpiryPacer::kWindow;
  EXPECT_EQ(RunFullStepsAtOnce(pacer, step, now, wait), steps_in_budget);
  EXPECT_EQ(wait, ExpiryPacer::kBusyInterval);
}

TEST(ExpiryPacerTest, TimeBetweenStepsIsNotCountedAgainstTheBudget) {
  // Requests served between steps take loop time the budget does not count: steps of a fifth
  // of the budget, each followed by as much other work, spend it at the fifth step, when
  // twice the budget has passed on the clock.
  ExpiryPacer pacer;
  const nanoseconds step = ExpiryPacer::kWindowBudget / 5;
  nanoseconds now = milliseconds(5000);
  const nanoseconds window_start = now + step;  // the first step's start
  for (int i = 0; i < 4; ++i) {
    now += 2 * step;
    ASSERT_EQ(pacer.WaitAfterStep(StepFound::kMore, step, now), nanoseconds(0)) << i;
  }
  now += 2 * step;
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kMore, step, now), ExpiryPacer::kBusyInterval);
  // A step after the window's end starts the next window, with the whole budget.
  now = window_start + ExpiryPacer::kWindow;
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kMore, step, now + step), nanoseconds(0));
}

TEST(ExpiryPacerTest, SlowFullStepsNeverGoBelowTheOldPace) {
  // Steps of 5 ms (a sync under always, a memtable switch): before the pacer, a full step was
  // followed after 10 ms whatever it took, 66 steps in a second. None may wait longer now.
  ExpiryPacer pacer;
  nanoseconds now = milliseconds(5000);
  const nanoseconds end = now + std::chrono::seconds(1);
  int steps = 0;
  while (true) {
    now += milliseconds(5);
    if (now > end) break;
    const nanoseconds wait = pacer.WaitAfterStep(StepFound::kMore, milliseconds(5), now);
    ASSERT_LE(wait, ExpiryPacer::kBusyInterval) << steps;
    now += wait;
    ++steps;
  }
  EXPECT_GE(steps, 66);
}

TEST(ExpiryPacerTest, TombstonesAreCrossedAtOnceForASecondAfterAFind) {
  ExpiryPacer pacer;
  nanoseconds now = milliseconds(5000);
  const nanoseconds step = microseconds(50);
  // Nothing found yet: a run of tombstones is no sign of work.
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kTombstones, step, now), ExpiryPacer::kIdleInterval);
  // Right after a step that found expired keys, the run is crossed at once...
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kSome, step, now += milliseconds(100)),
            ExpiryPacer::kBusyInterval);
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kTombstones, step, now += milliseconds(10)),
            nanoseconds(0));
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kTombstones, step,
                                now += ExpiryPacer::kTombstonesAfterFinds - milliseconds(20)),
            nanoseconds(0));
  // ...but a second without a find ends that: a key space of tombstones alone, until a
  // compaction, must not hold the cycle at its busy pace.
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kTombstones, step, now += milliseconds(20)),
            ExpiryPacer::kIdleInterval);
}

TEST(ExpiryPacerTest, AStepLongerThanTheWindowWaitsABusyPause) {
  ExpiryPacer pacer;
  nanoseconds now = milliseconds(5000);
  now += milliseconds(150);  // held up by a slow disk
  EXPECT_EQ(pacer.WaitAfterStep(StepFound::kMore, milliseconds(150), now), milliseconds(10));
}

}  // namespace
}  // namespace sluice::server
