#pragma once

// Deleted elements of composite keys, counted in memory per version (SubKeyPrefix): how many
// tombstones a walk of a key's elements may step over until compaction drops them. RocksDB
// keeps no such count. Bounded: past kCapacity versions every count starts again, which only
// delays a copy (composite.h, ShedTombstones); a restart starts them again too.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sluice::storage {

class TombstoneCounts {
 public:
  static constexpr size_t kCapacity = 4096;

  // Adds `deleted` to the count of `prefix`; returns the count.
  uint64_t Add(std::string_view prefix, uint64_t deleted) {
    if (counts_.size() >= kCapacity && !counts_.contains(std::string(prefix))) counts_.clear();
    return counts_[std::string(prefix)] += deleted;
  }
  // The version was copied or dropped: its tombstones no longer lie in any key's walk.
  void Forget(std::string_view prefix) { counts_.erase(std::string(prefix)); }
  size_t size() const { return counts_.size(); }

 private:
  std::unordered_map<std::string, uint64_t> counts_;
};

}  // namespace sluice::storage
