#include "bench/paced/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sluice::bench {
namespace {

constexpr uint64_t kSubBuckets = uint64_t{1} << LatencyHistogram::kSubBucketBits;

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(BucketOf(kMaxTrackableUs) + 1) {}

size_t LatencyHistogram::BucketOf(uint64_t us) {
  if (us < kSubBuckets) return us;
  // Values in [2^e, 2^(e+1)) keep their top kSubBucketBits + 1 bits: `shift` low bits dropped.
  int shift = std::bit_width(us) - 1 - LatencyHistogram::kSubBucketBits;
  return (shift + 1) * kSubBuckets + ((us >> shift) - kSubBuckets);
}

uint64_t LatencyHistogram::HighestInBucket(size_t index) {
  if (index < 2 * kSubBuckets) return index;  // widths of 1 up to 2^(kSubBucketBits + 1)
  uint64_t shift = index / kSubBuckets - 1;
  uint64_t mantissa = index % kSubBuckets + kSubBuckets;
  return ((mantissa + 1) << shift) - 1;
}

void LatencyHistogram::Record(uint64_t us) {
  us = std::min(us, kMaxTrackableUs);
  ++buckets_[BucketOf(us)];
  ++count_;
  max_ = std::max(max_, us);
}

uint64_t LatencyHistogram::ValueAtPercentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // The epsilon keeps 99.9% of 1000 at rank 999 although 99.9 * 1000 is not exact in binary.
  double exact = p * static_cast<double>(count_) / 100.0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(exact - 1e-9));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::min(HighestInBucket(i), max_);
  }
  return max_;
}

}  // namespace sluice::bench
