#pragma once

// A Prometheus-style histogram with fixed buckets, for the time one limiter decision takes.
// Fixed bounds keep Observe() to a short scan and no allocation on the command path.

#include <array>
#include <cstdint>

namespace sluice::server {

class LatencyHistogram {
 public:
  // Upper bounds in nanoseconds: 1 us .. 100 ms; anything slower lands in +Inf.
  static constexpr std::array<uint64_t, 12> kBoundsNs = {
      1'000,   2'500,   5'000,     10'000,    25'000,     50'000,
      100'000, 250'000, 1'000'000, 5'000'000, 25'000'000, 100'000'000};

  void Observe(uint64_t ns) {
    size_t i = 0;
    while (i < kBoundsNs.size() && ns > kBoundsNs[i]) ++i;
    counts_[i]++;
    sum_ns_ += ns;
    count_++;
  }

  // Observations in bucket i alone (not cumulative); i == kBoundsNs.size() is +Inf.
  uint64_t bucket(size_t i) const { return counts_[i]; }
  uint64_t count() const { return count_; }
  uint64_t sum_ns() const { return sum_ns_; }

 private:
  std::array<uint64_t, kBoundsNs.size() + 1> counts_{};
  uint64_t sum_ns_ = 0;
  uint64_t count_ = 0;
};

}  // namespace sluice::server
