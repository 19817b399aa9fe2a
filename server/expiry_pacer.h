#pragma once

// When the active expiry cycle's next step runs. Each step stays small (at most 20 deletions,
// about 25 microseconds of the loop, with no sync of its own under always), so the pace alone
// decides how fast a backlog of expired keys goes:
// - a step that found nothing: the next in 100 ms;
// - a step that found some expired keys, but fewer than it may delete: the next in 10 ms;
// - a step that found more (it deleted all it may): the next at once, while the steps of the
//   current 100 ms window have used less than a tenth of it; then, for the rest of the
//   window, the next in 10 ms (the old pace: slow steps, such as one whose commit carries
//   sessions' writes and their sync under always, never come slower than before). Redis's slow
//   cycle allows itself a quarter of the loop while a fair share of its samples turns out expired;
//   a tenth already deletes about 90,000 keys a second here, with a lower PING p99 meanwhile
//   (docs/performance.md, change 47);
// - a step that stopped in a run of tombstones, the sweep to go on from there: as one that
//   found more while a step found expired keys in the last second (the runs a mass expiry
//   leaves, crossed to the keys behind them), else as one that found nothing. Tombstones stay
//   until compaction, which a quiet server may not run for hours: a key space of little else
//   must not hold the cycle at its busy pace.
// Before, a step every 10 ms deleted 2,000 keys a second: a rate limiter that creates more
// limiter keys than that a second never caught up with their expiry.

#include <chrono>
#include <cstddef>
#include <optional>

namespace sluice::server {

// What a step of the cycle found.
enum class StepFound {
  kNothing,     // no expired key (or its deletions' commit failed: they were dropped)
  kSome,        // fewer expired keys than it may delete
  kMore,        // all it may delete, or some and then a run of tombstones it stopped in
  kTombstones,  // no expired key before a run of tombstones it stopped in
};

// What a step that deleted `expired` of the `max_expired` it may found, `stopped_in_tombstones`
// if its walk stopped in a run of tombstones (Engine::ExpireStepStoppedInTombstones).
StepFound FoundInStep(size_t expired, size_t max_expired, bool stopped_in_tombstones);

class ExpiryPacer {
 public:
  static constexpr std::chrono::nanoseconds kIdleInterval = std::chrono::milliseconds(100);
  static constexpr std::chrono::nanoseconds kBusyInterval = std::chrono::milliseconds(10);
  static constexpr std::chrono::nanoseconds kWindow = std::chrono::milliseconds(100);
  static constexpr std::chrono::nanoseconds kWindowBudget = kWindow / 10;
  static constexpr std::chrono::nanoseconds kTombstonesAfterFinds = std::chrono::seconds(1);

  // The wait before the next step, after one that ended at `now` (a steady clock's time since
  // its epoch), took `took` (its commit included) and found `found`.
  std::chrono::nanoseconds WaitAfterStep(StepFound found, std::chrono::nanoseconds took,
                                         std::chrono::nanoseconds now);

 private:
  // The first step always starts a window: steady_clock's epoch (the boot) is long past.
  std::chrono::nanoseconds window_start_{0};
  std::chrono::nanoseconds window_used_{0};
  std::optional<std::chrono::nanoseconds> last_found_;  // when a step last found expired keys
};

}  // namespace sluice::server
