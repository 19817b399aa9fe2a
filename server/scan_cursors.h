#pragma once

// SCAN cursors. RocksDB iterates in key order, so a scan resumes after the last key it
// returned; clients expect an integer cursor, so the server remembers a bounded number of
// recent cursors (oldest forgotten first). An unknown cursor restarts the scan, which keeps
// SCAN's guarantee: every key present for the whole scan is returned at least once. Numbers
// start at random in each run, so a cursor kept across a restart is unknown rather than
// another client's (which would resume at that client's place and skip keys).

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>

namespace sluice::server {

class ScanCursors {
 public:
  static constexpr size_t kCapacity = 16384;

  ScanCursors() : next_(FirstCursor()) {}

  // Remembers where a scan stopped; returns the (never 0) cursor to hand to the client.
  uint64_t Save(std::string last_key) {
    uint64_t cursor = next_++;
    if (next_ > kLastCursor) next_ = 1;
    by_cursor_.emplace(cursor, std::move(last_key));
    order_.push_back(cursor);
    if (order_.size() > kCapacity) {
      by_cursor_.erase(order_.front());
      order_.pop_front();
    }
    return cursor;
  }

  // The key a cursor resumes after; nullopt for 0 or a forgotten cursor.
  std::optional<std::string> Find(uint64_t cursor) const {
    auto it = by_cursor_.find(cursor);
    if (it == by_cursor_.end()) return std::nullopt;
    return it->second;
  }

 private:
  // Below 2^53, so that clients reading cursors as doubles (JavaScript's) keep them exact.
  static constexpr uint64_t kLastCursor = (uint64_t{1} << 53) - 1;

  static uint64_t FirstCursor() {
    std::random_device entropy;
    const uint64_t bits = (uint64_t{entropy()} << 32) | entropy();
    return 1 + bits % (kLastCursor - 1);  // 1 .. 2^53 - 2
  }

  uint64_t next_;
  std::unordered_map<uint64_t, std::string> by_cursor_;
  std::deque<uint64_t> order_;
};

}  // namespace sluice::server
