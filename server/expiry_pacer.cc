#include "server/expiry_pacer.h"

namespace sluice::server {

StepFound FoundInStep(size_t expired, size_t max_expired, bool stopped_in_tombstones) {
  if (expired == max_expired || (expired > 0 && stopped_in_tombstones)) return StepFound::kMore;
  if (expired > 0) return StepFound::kSome;
  return stopped_in_tombstones ? StepFound::kTombstones : StepFound::kNothing;
}

std::chrono::nanoseconds ExpiryPacer::WaitAfterStep(StepFound found, std::chrono::nanoseconds took,
                                                    std::chrono::nanoseconds now) {
  if (now - window_start_ >= kWindow) {
    window_start_ = now - took;  // the window this step began
    window_used_ = std::chrono::nanoseconds(0);
  }
  window_used_ += took;
  if (found == StepFound::kSome || found == StepFound::kMore) last_found_ = now;
  if (found == StepFound::kTombstones) {
    const bool after_finds = last_found_ && now - *last_found_ < kTombstonesAfterFinds;
    found = after_finds ? StepFound::kMore : StepFound::kNothing;
  }
  if (found == StepFound::kNothing) return kIdleInterval;
  if (found == StepFound::kSome || window_used_ >= kWindowBudget) return kBusyInterval;
  return std::chrono::nanoseconds(0);
}

}  // namespace sluice::server
