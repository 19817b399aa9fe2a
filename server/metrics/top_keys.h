#pragma once

// The most throttled keys, approximately: Metwally et al.'s space-saving algorithm over the
// stream of refused limiter decisions. It keeps `capacity` counters; a key not tracked takes
// over the smallest counter (inheriting its count as possible over-estimate `error`), so
// memory stays bounded however many keys are refused, and any key refused more than
// total/capacity times is guaranteed to be listed.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {

class TopKeys {
 public:
  // Longer keys are tracked by their first kMaxKeyBytes bytes.
  static constexpr size_t kMaxKeyBytes = 200;

  explicit TopKeys(size_t capacity) : capacity_(capacity) {}

  struct Entry {
    std::string key;
    uint64_t count = 0;  // refusals counted for the key (at most `error` too many)
    uint64_t error = 0;
  };

  void Add(std::string_view key);
  // Up to `n` entries, highest count first (ties by key).
  std::vector<Entry> Top(size_t n) const;
  size_t size() const { return entries_.size(); }
  void Clear() { entries_.clear(); }

 private:
  size_t capacity_;
  // A linear scan over a few dozen entries is cheaper than a hash map's upkeep here.
  std::vector<Entry> entries_;
};

}  // namespace sluice::server
