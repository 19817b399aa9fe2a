#pragma once

// How long each call of one command took, for Redis 7.0's latency tracking (INFO latencystats,
// LATENCY HISTOGRAM): an HDR-style histogram of 2 significant digits from 1,024 ns to 1 s, as
// Redis keeps per command, so percentiles and buckets come out in Redis's units (a bucket is
// named by the largest value it holds). Values outside the range count at its ends, as Redis's.
// Recording is a bit scan and an increment; the counts (20 KB) exist once a call was recorded.

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace sluice::server {

class CommandLatency {
 public:
  static constexpr uint64_t kMinNanos = 1024;           // Redis's LATENCY_HISTOGRAM_MIN_VALUE
  static constexpr uint64_t kMaxNanos = 1'000'000'000;  // and LATENCY_HISTOGRAM_MAX_VALUE

  // Inline: every command's call ends here.
  void Record(uint64_t nanos) {
    if (counts_ == nullptr) counts_ = std::make_unique<std::array<uint64_t, kBuckets>>();
    ++(*counts_)[IndexOf(nanos)];
    ++calls_;
  }

  uint64_t calls() const { return calls_; }
  // The value (ns) below which `percentile` percent of the calls fall, as HdrHistogram's
  // hdr_value_at_percentile: the largest value of the bucket that reaches that share (for 0,
  // the smallest value of the first bucket with a call).
  uint64_t ValueAtPercentile(double percentile) const;
  // LATENCY HISTOGRAM's points: at 1,024 ns and each power of two above, up to the largest
  // value recorded, (the largest value of the bucket the power of two starts, in whole
  // microseconds; calls up to it), leaving out those no call was added at.
  std::vector<std::pair<uint64_t, uint64_t>> CumulativeMicros() const;

 private:
  static constexpr int kSubBucketBits = 7;  // 128 linear steps per power of two: 2 digits
  static constexpr int kFirstPower = 10;    // 2^10 = kMinNanos
  static constexpr int kLastPower = 29;     // kMaxNanos < 2^30
  static constexpr size_t kBuckets =
      static_cast<size_t>(kLastPower - kFirstPower + 1) << kSubBucketBits;

  static size_t IndexOf(uint64_t nanos) {
    const uint64_t value = nanos < kMinNanos ? kMinNanos : nanos > kMaxNanos ? kMaxNanos : nanos;
    const int power = std::bit_width(value) - 1;
    const uint64_t step = value >> (power - kSubBucketBits);  // 128..255
    return (static_cast<size_t>(power - kFirstPower) << kSubBucketBits) +
           static_cast<size_t>(step - (uint64_t{1} << kSubBucketBits));
  }
  static uint64_t SmallestIn(size_t index);
  static uint64_t LargestIn(size_t index);

  uint64_t calls_ = 0;
  std::unique_ptr<std::array<uint64_t, kBuckets>> counts_;
};

}  // namespace sluice::server
