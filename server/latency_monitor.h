#pragma once

// Redis's latency monitor (LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR): for each event
// that took at least latency-monitor-threshold milliseconds, the last 160 samples of a second
// each (the largest latency of that second) and the largest ever seen. The events are Redis's
// where sluice does the same thing: "command" and "fast-command" (a command's own time),
// "expire-cycle" (a step of the active expiry cycle), "aof-write" (a commit's WAL write) and
// "aof-fsync-always" (a commit's write and sync under appendfsync always).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace sluice::server {

struct LatencySample {
  int64_t unix_seconds = 0;
  uint64_t millis = 0;
};

class LatencyMonitor {
 public:
  static constexpr size_t kSamplesPerEvent = 160;  // Redis's LATENCY_TS_LEN

  // Records a latency of `nanos` for `event` if it reaches `threshold_ms` in whole
  // milliseconds (a threshold of 0 turns monitoring off), as Redis's latencyAddSampleIfNeeded,
  // at the server clock's second, as the slow log's entries (the test clock's, when frozen).
  void AddIfNeeded(std::string_view event, uint64_t nanos, int64_t threshold_ms,
                   const Clock& clock) {
    if (threshold_ms <= 0) return;  // off, the default: one branch per command
    const uint64_t millis = nanos / 1'000'000;
    if (millis >= static_cast<uint64_t>(threshold_ms)) {
      Add(event, millis, clock.NowMicros() / 1'000'000);
    }
  }
  void Add(std::string_view event, uint64_t millis, int64_t unix_seconds);

  struct Series {
    std::vector<LatencySample> samples;  // oldest first, at most kSamplesPerEvent
    uint64_t max_millis = 0;
  };
  // By event name (LATENCY LATEST lists them in this order).
  const std::map<std::string, Series, std::less<>>& events() const { return events_; }
  const Series* Find(std::string_view event) const;
  // Forgets the named events (all when `names` is empty); returns how many there were.
  size_t Reset(const std::vector<std::string_view>& names);

 private:
  std::map<std::string, Series, std::less<>> events_;
};

// LATENCY GRAPH's text for one event's samples (at least one), Redis's layout: a title line
// with the high, low and all-time high, a rule, a chart of one column per sample, and each
// sample's age below it.
std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_unix_seconds);

// LATENCY DOCTOR's report.
std::string LatencyDoctor(const LatencyMonitor& monitor, int64_t threshold_ms);

}  // namespace sluice::server
