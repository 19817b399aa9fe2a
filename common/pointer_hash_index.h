#pragma once

// An open-addressing hash index of entries owned elsewhere: buckets of (hash, entry pointer),
// linear probing, a power-of-two size kept at most MaxLoadPercent full (half by default),
// backward-shift deletion. Each bucket also carries one mark for its user (the record cache's
// CLOCK bit), in the hash's top bit, which lookups ignore: reading every mark walks the table
// in order, never the entries.
//
// It is the shape with the fewest cache misses per lookup when entries hold their own keys:
// one bucket, then the entry. For a pipelined batch, Prefetch starts those loads for many
// keys at once, so the lookups that follow find them in the CPU cache instead of each waiting
// for memory in turn. Single-threaded.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sluice {

template <typename Entry, size_t MaxLoadPercent = 50>
class PointerHashIndex {
  static_assert(MaxLoadPercent > 0 && MaxLoadPercent < 100, "an empty bucket ends every probe");

 public:
  static constexpr size_t kMaxLoadPercent = MaxLoadPercent;
  struct Bucket {
    uint64_t hash = 0;
    Entry* entry = nullptr;  // nullptr: empty
  };

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t bucket_count() const { return buckets_.size(); }
  size_t bytes() const { return buckets_.capacity() * sizeof(Bucket); }
  // The most consecutive occupied buckets (cyclically): the longest a probe can walk.
  size_t LongestRun() const {
    size_t longest = 0;
    size_t run = 0;
    // Twice round, so that a run through the table's end is counted whole.
    for (size_t i = 0; i < 2 * buckets_.size(); ++i) {
      run = buckets_[i & (buckets_.size() - 1)].entry != nullptr ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    return longest;
  }

  // The bucket holding the entry with `hash` for which `matches(entry)` holds, or the empty
  // bucket where such an entry would go. Call Reserve(size() + 1) first when inserting.
  template <typename Matches>
  size_t Probe(uint64_t hash, Matches matches) const {
    hash &= ~kMarkBit;
    const size_t mask = buckets_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Bucket& b = buckets_[i];
      if (b.entry == nullptr || ((b.hash & ~kMarkBit) == hash && matches(b.entry))) return i;
    }
  }
  // Probe for lookups: also valid on an index that never held anything.
  template <typename Matches>
  Entry* Find(uint64_t hash, Matches matches) const {
    return buckets_.empty() ? nullptr : buckets_[Probe(hash, matches)].entry;
  }

  Bucket& at(size_t i) { return buckets_[i]; }
  const Bucket& at(size_t i) const { return buckets_[i]; }

  // Fills the empty bucket `i` (from Probe), unmarked.
  void Insert(size_t i, uint64_t hash, Entry* entry) {
    buckets_[i] = {hash & ~kMarkBit, entry};
    ++count_;
  }

  // The mark of the entry in bucket `i`; it moves with the entry.
  bool marked(size_t i) const { return (buckets_[i].hash & kMarkBit) != 0; }
  void SetMarked(size_t i, bool marked) {
    buckets_[i].hash = (buckets_[i].hash & ~kMarkBit) | (marked ? kMarkBit : 0);
  }

  // Grows the table, if needed, so that `count` entries fit under the maximum load. Moves
  // buckets: bucket numbers from an earlier Probe are invalid afterwards.
  void Reserve(size_t count) {
    if (!Fits(count, buckets_.size())) Rebuild(FittingSize(count));
  }

  // After many removals: the smallest table that keeps the entries under the maximum load
  // (none for none), so that the memory of the removed entries' buckets goes back. Moves buckets.
  void ShrinkToFit() {
    if (count_ == 0) {
      Clear();
      return;
    }
    if (const size_t size = FittingSize(count_); size < buckets_.size()) Rebuild(size);
  }

  // Empties bucket `i`. Backward-shift deletion: later buckets of the probe run move into
  // the hole unless their home bucket lies after it (cyclically), so no lookup ever stops at
  // a false gap.
  void Remove(size_t i) {
    const size_t mask = buckets_.size() - 1;
    for (size_t j = (i + 1) & mask; buckets_[j].entry != nullptr; j = (j + 1) & mask) {
      const size_t home = buckets_[j].hash & mask;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      buckets_[i] = buckets_[j];
      i = j;
    }
    buckets_[i] = Bucket{};
    --count_;
  }

  // Starts loading the home buckets of `keys`, then the first `entry_bytes` of the entries
  // whose hash is the key's (the key's own, but for a collision of all 63 bits), for writing:
  // the callers update what they look up. A hint; changes nothing.
  template <typename Key, typename Hash>
  void Prefetch(std::span<const Key> keys, Hash hash_of, size_t entry_bytes) const {
    if (buckets_.empty()) return;
    const size_t mask = buckets_.size() - 1;
    constexpr size_t kChunk = 32;  // roughly as many loads as a core keeps in flight
    // How far along a probe run to look: past its home, a key is mostly in the same or the
    // next cache line of buckets (the longer runs of a fuller table included).
    constexpr size_t kScannedBuckets = 8;
    uint64_t hashes[kChunk];
    for (size_t start = 0; start < keys.size(); start += kChunk) {
      const size_t n = std::min(kChunk, keys.size() - start);
      for (size_t i = 0; i < n; ++i) {
        hashes[i] = hash_of(keys[start + i]) & ~kMarkBit;
        __builtin_prefetch(&buckets_[hashes[i] & mask]);
      }
      for (size_t i = 0; i < n; ++i) {
        size_t j = hashes[i] & mask;
        for (size_t scanned = 0; scanned < kScannedBuckets; ++scanned, j = (j + 1) & mask) {
          const Bucket& b = buckets_[j];
          if (b.entry == nullptr) break;  // not in the table
          if ((b.hash & ~kMarkBit) == hashes[i]) {
            PrefetchLines(b.entry, entry_bytes);
            break;
          }
        }
      }
    }
  }

  // Frees the table (not the entries).
  void Clear() {
    buckets_.clear();
    buckets_.shrink_to_fit();
    count_ = 0;
  }

 private:
  static constexpr size_t kInitialBuckets = 1024;
  static constexpr uintptr_t kCacheLine = 64;
  static constexpr uint64_t kMarkBit = uint64_t{1} << 63;  // above any table's bucket number

  static bool Fits(size_t count, size_t size) { return count * 100 <= size * MaxLoadPercent; }
  // Every cache line the first `bytes` of `entry` touch (an entry rarely starts on one).
  static void PrefetchLines(const Entry* entry, size_t bytes) {
    const auto first = reinterpret_cast<uintptr_t>(entry) & ~uintptr_t{kCacheLine - 1};
    const auto last = reinterpret_cast<uintptr_t>(entry) + bytes - 1;
    for (uintptr_t line = first; line <= last; line += kCacheLine) {
      __builtin_prefetch(reinterpret_cast<const void*>(line), /*rw=*/1);
    }
  }

  // The smallest table that `count` entries leave under the maximum load.
  static size_t FittingSize(size_t count) {
    size_t size = kInitialBuckets;
    while (!Fits(count, size)) size *= 2;
    return size;
  }

  // Moves every entry into a new table of `size` buckets (a power of two, more than count_).
  void Rebuild(size_t size) {
    std::vector<Bucket> old = std::move(buckets_);
    buckets_.assign(size, Bucket{});
    const size_t mask = size - 1;
    for (const Bucket& b : old) {
      if (b.entry == nullptr) continue;
      size_t i = b.hash & mask;
      while (buckets_[i].entry != nullptr) i = (i + 1) & mask;
      buckets_[i] = b;
    }
  }

  std::vector<Bucket> buckets_;
  size_t count_ = 0;
};

}  // namespace sluice
