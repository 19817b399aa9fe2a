#pragma once

// When the active expiry cycle's next step runs. Each step stays small (a few dozen deletions,
// about a tenth of a millisecond of the loop), so the pace alone decides how fast a backlog of
// expired keys goes:
// - a step that found nothing: the next in 100 ms;
// - a step that found some, but fewer than it may delete: the next in 10 ms;
// - a step that deleted all it may (more are likely behind them): the next at once, while the
//   steps of the current 100 ms window have used less than a tenth of it; otherwise the
//   window's end. Redis's slow cycle allows itself a quarter of the loop while a fair share of
//   its samples turns out expired; a tenth already deletes about 90,000 keys a second here,
//   and keeps PING's p99 lower while it does (docs/performance.md, change 47).
// Before, a step every 10 ms deleted 2,000 keys a second: a rate limiter that creates more
// limiter keys than that a second never caught up with their expiry.

#include <chrono>
#include <cstdint>

namespace sluice::server {

class ExpiryPacer {
 public:
  static constexpr std::chrono::nanoseconds kIdleInterval = std::chrono::milliseconds(100);
  static constexpr std::chrono::nanoseconds kBusyInterval = std::chrono::milliseconds(10);
  static constexpr std::chrono::nanoseconds kWindow = std::chrono::milliseconds(100);
  static constexpr std::chrono::nanoseconds kWindowBudget = kWindow / 10;

  // The wait before the next step, after one that ended at `now` (a steady clock's time),
  // took `took` (its commit included) and deleted `expired` of the `max_expired` it may.
  std::chrono::nanoseconds Next(size_t expired, size_t max_expired, std::chrono::nanoseconds took,
                                std::chrono::nanoseconds now);

 private:
  std::chrono::nanoseconds window_start_{0};
  std::chrono::nanoseconds window_used_{0};
};

}  // namespace sluice::server
