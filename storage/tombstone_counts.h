#pragma once

// Deleted elements of composite keys, counted in memory per version (SubKeyPrefix): how many
// tombstones a walk of a key's elements may step over until compaction drops them. RocksDB
// keeps no such count. Bounded: past kCapacity versions, a new one pushes out the smallest
// count of a few sampled at random (keys deleted or expired since leave counts behind, and a
// key with many deletions must keep its count among many keys with one each); a restart
// starts them all again. A lost count only delays a copy (composite.h, ShedTombstones).

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>

namespace sluice::storage {

class TombstoneCounts {
 public:
  static constexpr size_t kCapacity = 4096;

  // Adds `deleted` to the count of `prefix`; returns the count.
  uint64_t Add(std::string prefix, uint64_t deleted);
  // The version was copied or dropped: its tombstones no longer lie in any key's walk.
  void Forget(const std::string& prefix) { counts_.erase(prefix); }
  size_t size() const { return counts_.size(); }

 private:
  using Counts = std::unordered_map<std::string, uint64_t>;
  // Erases the smallest count among entries of a few random buckets, never `keep`.
  void EvictOne(Counts::const_iterator keep);

  Counts counts_;
  std::minstd_rand rng_{0x5eed};
};

}  // namespace sluice::storage
