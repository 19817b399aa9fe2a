#include "server/expiry_pacer.h"

#include <algorithm>

namespace sluice::server {

std::chrono::nanoseconds ExpiryPacer::Next(size_t expired, size_t max_expired,
                                           std::chrono::nanoseconds took,
                                           std::chrono::nanoseconds now) {
  if (now - window_start_ >= kWindow) {
    window_start_ = now - took;  // the window this step began
    window_used_ = std::chrono::nanoseconds(0);
  }
  window_used_ += took;
  if (expired == 0) return kIdleInterval;
  if (expired < max_expired) return kBusyInterval;
  if (window_used_ < kWindowBudget) return std::chrono::nanoseconds(0);
  // The budget is spent: the rest of the window, but never less than a busy step's pause (a
  // step that alone outlasted the window, held up by a slow disk, gets no second at once).
  return std::max(window_start_ + kWindow - now, kBusyInterval);
}

}  // namespace sluice::server
