// INFO's instantaneous_* fields: Redis 7.0's mean of the last 16 cron samples, with the
// sampling times given explicitly (no sleeping).

#include "server/metrics/instantaneous_rate.h"

#include <gtest/gtest.h>

namespace sluice::server {
namespace {

TEST(InstantaneousRateTest, ZeroBeforeAnySample) {
  InstantaneousRate rate;
  EXPECT_EQ(rate.PerSecond(), 0u);
  rate.Sample(5000, 0);  // the first sample only sets the base
  EXPECT_EQ(rate.PerSecond(), 0u);
}

TEST(InstantaneousRateTest, MeanOfTheLastSixteenSamples) {
  InstantaneousRate rate;
  uint64_t total = 0;
  int64_t now_ms = 1000;
  rate.Sample(total, now_ms);
  // 100 per 100 ms = 1,000/s; after 8 of 16 samples the mean is half of it, as in Redis.
  for (int i = 0; i < 8; ++i) rate.Sample(total += 100, now_ms += 100);
  EXPECT_EQ(rate.PerSecond(), 500u);
  for (int i = 0; i < 8; ++i) rate.Sample(total += 100, now_ms += 100);
  EXPECT_EQ(rate.PerSecond(), 1000u);
  // 16 samples at 3,000/s push the old ones out.
  for (int i = 0; i < 16; ++i) rate.Sample(total += 300, now_ms += 100);
  EXPECT_EQ(rate.PerSecond(), 3000u);
}

TEST(InstantaneousRateTest, UnevenIntervalsAreScaledToPerSecond) {
  InstantaneousRate rate;
  rate.Sample(0, 0);
  rate.Sample(500, 250);  // 2,000/s
  rate.Sample(500, 250);  // no time passed: a zero sample, as Redis
  EXPECT_EQ(rate.PerSecond(), 2000u / 16);
}

TEST(InstantaneousRateTest, ACounterResetCountsAsNothing) {
  InstantaneousRate rate;
  rate.Sample(1'000'000, 0);
  rate.Sample(10, 100);  // CONFIG RESETSTAT set the counter back
  EXPECT_EQ(rate.PerSecond(), 0u);
  rate.Sample(110, 200);
  EXPECT_EQ(rate.PerSecond(), 1000u / 16);
}

}  // namespace
}  // namespace sluice::server
