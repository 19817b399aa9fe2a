// The paced load generator's latency histogram: bucket layout and percentiles.

#include "bench/paced/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace sluice::bench {
namespace {

TEST(LatencyHistogram, ExactBelowTwiceTheSubBucketCount) {
  for (uint64_t v = 0; v < 256; ++v) {
    EXPECT_EQ(LatencyHistogram::BucketOf(v), v);
    EXPECT_EQ(LatencyHistogram::HighestInBucket(v), v);
  }
}

TEST(LatencyHistogram, BucketsAreContiguousAndWithinOnePercent) {
  // Walking the values in order, bucket indexes never skip and each bucket's highest value
  // is the last value mapped to it.
  size_t previous = 0;
  for (uint64_t v = 1; v < (uint64_t{1} << 20); ++v) {
    size_t b = LatencyHistogram::BucketOf(v);
    ASSERT_TRUE(b == previous || b == previous + 1) << v;
    if (b != previous) {
      ASSERT_EQ(LatencyHistogram::HighestInBucket(previous), v - 1) << v;
    }
    ASSERT_LE(LatencyHistogram::HighestInBucket(b) - v, v / 128) << v;
    previous = b;
  }
  EXPECT_EQ(LatencyHistogram::BucketOf(LatencyHistogram::kMaxTrackableUs), 2559u);
  EXPECT_EQ(LatencyHistogram::HighestInBucket(2559), LatencyHistogram::kMaxTrackableUs);
}

TEST(LatencyHistogram, PercentilesOfOneToAThousand) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 1000; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.ValueAtPercentile(0), 1u);
  EXPECT_EQ(h.ValueAtPercentile(10), 100u);  // exact range
  // 500 shares a bucket of width 2 with 501, 990 and 999 one of width 4 with 988..991 and
  // 996..999: each is reported as its bucket's highest value.
  EXPECT_EQ(h.ValueAtPercentile(50), 501u);
  EXPECT_EQ(h.ValueAtPercentile(99), 991u);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999u);
  EXPECT_EQ(h.ValueAtPercentile(100), 1000u);  // capped at the largest value recorded
  EXPECT_EQ(h.max(), 1000u);
}

TEST(LatencyHistogram, OneSlowRequestInAThousandIsItsP999) {
  LatencyHistogram h;
  for (int i = 0; i < 998; ++i) h.Record(300);
  h.Record(2'000'000);  // 2 s
  h.Record(5'000'000);
  EXPECT_EQ(h.ValueAtPercentile(99), 301u);  // 300's bucket is 300..301
  EXPECT_EQ(h.ValueAtPercentile(99.8), 301u);
  EXPECT_NEAR(h.ValueAtPercentile(99.9), 2'000'000.0, 2'000'000.0 / 128);
  EXPECT_EQ(h.ValueAtPercentile(100), 5'000'000u);
}

TEST(LatencyHistogram, EmptyAndOutOfRange) {
  LatencyHistogram h;
  EXPECT_EQ(h.ValueAtPercentile(99), 0u);
  h.Record(uint64_t{1} << 40);  // clamped, not out of bounds
  EXPECT_EQ(h.max(), LatencyHistogram::kMaxTrackableUs);
  EXPECT_EQ(h.ValueAtPercentile(50), LatencyHistogram::kMaxTrackableUs);
}

TEST(LatencyHistogram, AgreesWithSortingWithinOnePercent) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(6.0, 1.5);  // median ~400 us, a long tail
  LatencyHistogram h;
  std::vector<uint64_t> values;
  for (int i = 0; i < 100'000; ++i) {
    auto v = static_cast<uint64_t>(latency(rng));
    h.Record(v);
    values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    auto rank = static_cast<size_t>(std::ceil(p * values.size() / 100 - 1e-9));
    double exact = static_cast<double>(values[rank - 1]);
    double got = static_cast<double>(h.ValueAtPercentile(p));
    EXPECT_GE(got, exact) << p;
    EXPECT_LE(got, exact * (1 + 1.0 / 128)) << p;
  }
}

}  // namespace
}  // namespace sluice::bench
