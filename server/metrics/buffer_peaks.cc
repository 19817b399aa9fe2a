#include "server/metrics/buffer_peaks.h"

#include <algorithm>

namespace sluice::server {

namespace {

int64_t SecondOf(int64_t ms) { return ms >= 0 ? ms / 1000 : (ms - 999) / 1000; }

}  // namespace

void BufferPeaks::Tick(int64_t now_ms) {
  const int64_t second = SecondOf(now_ms);
  Slot& slot = slots_[static_cast<size_t>(((second % kSeconds) + kSeconds) % kSeconds)];
  if (slot.second != second) slot = Slot{second, 0, 0};  // eight seconds old, or never used
  slot.input = std::max(slot.input, pending_input_);
  slot.output = std::max(slot.output, pending_output_);
  pending_input_ = 0;
  pending_output_ = 0;
}

template <typename Field>
size_t BufferPeaks::RecentMax(int64_t now_ms, Field field, size_t pending) const {
  const int64_t second = SecondOf(now_ms);
  size_t max = pending;
  for (const Slot& slot : slots_) {
    if (slot.second > second - kSeconds && slot.second <= second) max = std::max(max, slot.*field);
  }
  return max;
}

size_t BufferPeaks::RecentMaxInput(int64_t now_ms) const {
  return RecentMax(now_ms, &Slot::input, pending_input_);
}

size_t BufferPeaks::RecentMaxOutput(int64_t now_ms) const {
  return RecentMax(now_ms, &Slot::output, pending_output_);
}

}  // namespace sluice::server
