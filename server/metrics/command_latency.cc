#include "server/metrics/command_latency.h"

#include <algorithm>

namespace sluice::server {

uint64_t CommandLatency::SmallestIn(size_t index) {
  const int power = static_cast<int>(index >> kSubBucketBits) + kFirstPower;
  const uint64_t step = (index & ((1u << kSubBucketBits) - 1)) + (1u << kSubBucketBits);
  return step << (power - kSubBucketBits);
}

uint64_t CommandLatency::LargestIn(size_t index) {
  const int power = static_cast<int>(index >> kSubBucketBits) + kFirstPower;
  return SmallestIn(index) + (uint64_t{1} << (power - kSubBucketBits)) - 1;
}

uint64_t CommandLatency::ValueAtPercentile(double percentile) const {
  if (calls_ == 0) return 0;
  const double share = std::min(percentile, 100.0) / 100.0;
  const auto wanted = std::max<uint64_t>(
      1, static_cast<uint64_t>(share * static_cast<double>(calls_) + 0.5));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += (*counts_)[i];
    if (seen < wanted) continue;
    return percentile == 0 ? SmallestIn(i) : LargestIn(i);
  }
  return LargestIn(kBuckets - 1);
}

std::vector<std::pair<uint64_t, uint64_t>> CommandLatency::CumulativeMicros() const {
  std::vector<std::pair<uint64_t, uint64_t>> points;
  if (calls_ == 0) return points;
  uint64_t seen = 0;
  size_t next = 0;  // the first bucket not counted in `seen` yet
  for (int power = kFirstPower; seen < calls_; ++power) {
    // The bucket that 2^power starts; past the range, one more (every call is below it).
    const size_t last = static_cast<size_t>(power - kFirstPower) << kSubBucketBits;
    const uint64_t before = seen;
    for (; next <= last && next < kBuckets; ++next) seen += (*counts_)[next];
    if (last >= kBuckets) seen = calls_;
    if (seen > before) points.emplace_back(LargestIn(last) / 1000, seen);
  }
  return points;
}

}  // namespace sluice::server
