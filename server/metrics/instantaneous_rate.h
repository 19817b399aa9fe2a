#pragma once

// INFO's instantaneous_ops_per_sec and instantaneous_{input,output}_kbps, computed as Redis
// 7.0 does: every cron run (100 ms) samples how fast a growing counter grew since the last
// run, and the field is the mean of the last 16 samples (1.6 s; zeros until there are 16).

#include <array>
#include <cstddef>
#include <cstdint>

namespace sluice::server {

class InstantaneousRate {
 public:
  // `total`: the counter now; `now_ms`: a monotonic clock. The first call only sets the base.
  void Sample(uint64_t total, int64_t now_ms);
  // Units per second, as an integer (Redis's getInstantaneousMetric).
  uint64_t PerSecond() const;

 private:
  static constexpr size_t kSamples = 16;
  std::array<uint64_t, kSamples> samples_{};
  size_t next_ = 0;
  bool started_ = false;
  uint64_t last_total_ = 0;
  int64_t last_ms_ = 0;
};

// The three rates INFO stats reports.
struct InstantaneousRates {
  InstantaneousRate ops;
  InstantaneousRate input_bytes;
  InstantaneousRate output_bytes;
};

}  // namespace sluice::server
