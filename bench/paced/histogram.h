#pragma once

// A latency histogram in microseconds with log-linear buckets, as HdrHistogram lays them out:
// exact below 2^kSubBucketBits us, then each power of two split into 2^kSubBucketBits equal
// buckets, so any recorded value is known to within 1/128 (< 0.8%) from 1 us up to a minute,
// in 20 KB, and recording is a few instructions (no allocation, no sorting).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::bench {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  // Larger values are recorded as this (about 67 s): far beyond any run's length.
  static constexpr uint64_t kMaxTrackableUs = (uint64_t{1} << 26) - 1;

  LatencyHistogram();

  void Record(uint64_t us);
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }

  // The smallest recorded value v such that at least p% of the values are <= v, reported as
  // the highest value of v's bucket (never above the largest value recorded). 0 when empty.
  uint64_t ValueAtPercentile(double p) const;

  static size_t BucketOf(uint64_t us);
  static uint64_t HighestInBucket(size_t index);

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t max_ = 0;
};

}  // namespace sluice::bench
