#include "server/metrics/instantaneous_rate.h"

#include <numeric>

namespace sluice::server {

void InstantaneousRate::Sample(uint64_t total, int64_t now_ms) {
  if (started_) {
    const int64_t elapsed_ms = now_ms - last_ms_;
    // A counter never shrinks, but CONFIG RESETSTAT sets it back to zero: count that as none.
    const uint64_t grown = total >= last_total_ ? total - last_total_ : 0;
    samples_[next_] = elapsed_ms > 0 ? grown * 1000 / static_cast<uint64_t>(elapsed_ms) : 0;
    next_ = (next_ + 1) % kSamples;
  }
  started_ = true;
  last_total_ = total;
  last_ms_ = now_ms;
}

uint64_t InstantaneousRate::PerSecond() const {
  return std::accumulate(samples_.begin(), samples_.end(), uint64_t{0}) / kSamples;
}

}  // namespace sluice::server
