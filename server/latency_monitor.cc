#include "server/latency_monitor.h"

#include <algorithm>
#include <cstdio>

namespace sluice::server {

void LatencyMonitor::Add(std::string_view event, uint64_t millis, int64_t unix_seconds) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), Series{}).first;
  Series& series = it->second;
  series.max_millis = std::max(series.max_millis, millis);
  // One sample a second: the largest latency of that second.
  if (!series.samples.empty() && series.samples.back().unix_seconds == unix_seconds) {
    series.samples.back().millis = std::max(series.samples.back().millis, millis);
    return;
  }
  if (series.samples.size() == kSamplesPerEvent) series.samples.erase(series.samples.begin());
  series.samples.push_back({unix_seconds, millis});
}

const LatencyMonitor::Series* LatencyMonitor::Find(std::string_view event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

size_t LatencyMonitor::Reset(const std::vector<std::string_view>& names) {
  if (names.empty()) return std::exchange(events_, {}).size();
  size_t reset = 0;
  for (std::string_view name : names) {
    auto it = events_.find(name);
    if (it == events_.end()) continue;
    events_.erase(it);
    ++reset;
  }
  return reset;
}

namespace {

constexpr int kGraphRows = 4;
constexpr std::string_view kGraphMarks = "_-`";  // low, middle, high within a row

// A sample's age as the graph's column label: "12s", "5m", "3h", "2d".
std::string AgeLabel(int64_t seconds) {
  seconds = std::max<int64_t>(seconds, 0);
  if (seconds < 60) return std::to_string(seconds) + "s";
  if (seconds < 3600) return std::to_string(seconds / 60) + "m";
  if (seconds < 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

}  // namespace

std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_unix_seconds) {
  uint64_t low = series.samples.front().millis;
  uint64_t high = low;
  for (const LatencySample& s : series.samples) {
    low = std::min(low, s.millis);
    high = std::max(high, s.millis);
  }
  std::string text = std::string(event) + " - high " + std::to_string(high) + " ms, low " +
                     std::to_string(low) + " ms (all time high " +
                     std::to_string(series.max_millis) + " ms)\n" + std::string(80, '-') + "\n";
  // Each sample's height in marks, 0 (the lowest) to rows * marks - 1 (the highest).
  constexpr int kLevels = kGraphRows * static_cast<int>(kGraphMarks.size());
  std::vector<int> levels;
  std::vector<std::string> labels;
  size_t label_rows = 0;
  for (const LatencySample& s : series.samples) {
    const int level = high == low ? 0
                                  : static_cast<int>((s.millis - low) * (kLevels - 1) /
                                                     (high - low));
    levels.push_back(level);
    labels.push_back(AgeLabel(now_unix_seconds - s.unix_seconds));
    label_rows = std::max(label_rows, labels.back().size());
  }
  for (int row = kGraphRows - 1; row >= 0; --row) {  // top row first
    for (int level : levels) {
      const int top_row = level / static_cast<int>(kGraphMarks.size());
      text += top_row == row   ? kGraphMarks[static_cast<size_t>(level) % kGraphMarks.size()]
              : top_row > row ? '|'
                              : ' ';
    }
    text += '\n';
  }
  text += std::string(levels.size(), ' ') + "\n";
  for (size_t row = 0; row < label_rows; ++row) {
    for (const std::string& label : labels) text += row < label.size() ? label[row] : ' ';
    text += '\n';
  }
  return text;
}

std::string LatencyDoctor(const LatencyMonitor& monitor, int64_t threshold_ms) {
  // The two reports without samples are Redis's words, which clients may have seen.
  if (threshold_ms == 0 && monitor.events().empty()) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a "
           "look at https://redis.io/topics/latency-monitor.\n";
  }
  if (monitor.events().empty()) {
    return "Dave, no latency spike was observed during the lifetime of this Redis instance, "
           "not in the slightest bit. I honestly think you ought to sit down calmly, take a "
           "stress pill, and think things over.\n";
  }
  std::string text =
      "Latency spikes over latency-monitor-threshold (" + std::to_string(threshold_ms) +
      " ms) were observed in sluiced for these events:\n\n";
  int number = 0;
  for (const auto& [event, series] : monitor.events()) {
    uint64_t sum = 0;
    for (const LatencySample& s : series.samples) sum += s.millis;
    const uint64_t average = series.samples.empty() ? 0 : sum / series.samples.size();
    const int64_t span = series.samples.empty() ? 0
                                                : series.samples.back().unix_seconds -
                                                      series.samples.front().unix_seconds;
    text += std::to_string(++number) + ". " + event + ": " +
            std::to_string(series.samples.size()) + " latency spikes (average " +
            std::to_string(average) + "ms, period " +
            std::to_string(span) + " sec). Worst all time event " +
            std::to_string(series.max_millis) + "ms.\n";
  }
  text += "\nWhat they usually mean in sluiced:\n";
  for (const auto& [event, series] : monitor.events()) {
    if (event == "command" || event == "fast-command") {
      text += "- " + event + ": commands slow on their own; SLOWLOG GET names them (large "
              "KEYS, SORT, set algebra, long scripts).\n";
    } else if (event == "expire-cycle") {
      text += "- expire-cycle: the active expiry cycle met many expired keys or tombstones in "
              "a row.\n";
    } else if (event == "aof-write" || event == "aof-fsync-always") {
      text += "- " + event + ": the write-ahead log's disk is slow; INFO persistence and the "
              "disk's own statistics tell more.\n";
    }
  }
  return text;
}

}  // namespace sluice::server
