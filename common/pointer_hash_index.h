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
//
// A new table (growing, or shrinking to fit) is filled a few runs at a time, as Redis's dict
// rehashes: each Reserve moves some of the old table's runs, so no call pays for all of it (a
// table of 65,536 entries took 13 ms to move at once, on the loop thread, in the middle of a
// commit). Meanwhile every entry is in exactly one of the two tables: lookups probe the new
// table, then the old; new entries go to the new one. The old table is moved a whole run at a
// time, starting at an empty bucket, so the runs it keeps are whole and its probes stay right.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include "common/background_free.h"

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
  // The buckets of the table in use (the new one while entries move): at(i) for i below it
  // walks that table. Call FinishMoving first to walk every entry.
  size_t bucket_count() const { return buckets_.size(); }
  // The buckets of the table being moved from (0 while nothing moves).
  size_t old_bucket_count() const { return old_.size(); }
  size_t bytes() const { return (bucket_count() + old_bucket_count()) * sizeof(Bucket); }
  // The most consecutive occupied buckets (cyclically) of either table: the longest a probe
  // can walk.
  size_t LongestRun() const { return std::max(LongestRunOf(buckets_), LongestRunOf(old_)); }

  // The bucket holding the entry with `hash` for which `matches(entry)` holds, or the empty
  // bucket where such an entry would go. Call Reserve(size() + 1) first when inserting.
  template <typename Matches>
  size_t Probe(uint64_t hash, Matches matches) const {
    hash &= ~kMarkBit;
    const size_t i = ProbeIn(buckets_, hash, matches);
    if (buckets_[i].entry != nullptr || old_.empty()) return i;
    const size_t j = ProbeIn(old_, hash, matches);
    return old_[j].entry != nullptr ? (j | kOldTableBit) : i;
  }
  // Probe for lookups: also valid on an index that never held anything.
  template <typename Matches>
  Entry* Find(uint64_t hash, Matches matches) const {
    return buckets_.empty() ? nullptr : at(Probe(hash, matches)).entry;
  }

  Bucket& at(size_t i) { return (i & kOldTableBit) ? old_[i & ~kOldTableBit] : buckets_[i]; }
  const Bucket& at(size_t i) const {
    return (i & kOldTableBit) ? old_[i & ~kOldTableBit] : buckets_[i];
  }

  // Fills the empty bucket `i` (from Probe: always one of the table in use), unmarked.
  void Insert(size_t i, uint64_t hash, Entry* entry) {
    buckets_[i] = {hash & ~kMarkBit, entry};
    ++count_;
  }

  // The mark of the entry in bucket `i`; it moves with the entry.
  bool marked(size_t i) const { return (at(i).hash & kMarkBit) != 0; }
  void SetMarked(size_t i, bool marked) {
    Bucket& b = at(i);
    b.hash = (b.hash & ~kMarkBit) | (marked ? kMarkBit : 0);
  }

  // Makes room, if needed, for `count` entries under the maximum load: a table twice as
  // large (or more), which the entries then move to in steps. Moves some entries of an earlier
  // growth or shrink on the way. Bucket numbers from an earlier Probe are invalid afterwards.
  void Reserve(size_t count) {
    if (!old_.empty()) Move(buckets_moved_per_reserve_);
    if (!Fits(count, buckets_.size())) StartMoving(FittingSize(count));
  }

  // After many removals: the smallest table with room for half as many entries again (none
  // for none), so that the memory of the removed entries' buckets goes back. The entries move
  // to it in steps (Reserve, Move), which that room leaves time for; bucket numbers are
  // invalid afterwards.
  void ShrinkToFit() {
    if (count_ == 0) {
      Clear();
      return;
    }
    const size_t size = FittingSize(count_ + count_ / 2);
    if (size < buckets_.size()) StartMoving(size);
  }

  // Moves the old table's runs into the table in use until at least `max_buckets` of its buckets
  // have been visited (to the end of the run there). True while some are left to move.
  bool Move(size_t max_buckets) {
    MoveDropping(max_buckets, [](Entry*, bool /*marked*/) { return false; });
    return moving();
  }
  bool moving() const { return !old_.empty(); }
  void FinishMoving() { Move(SIZE_MAX); }

  // Move, but each entry met is first shown to `drop(entry, marked)`: where it returns true,
  // the entry leaves the index instead of moving (its owner frees it). So the move can be the
  // record cache's CLOCK hand over the entries not yet moved. Returns the buckets visited.
  template <typename Drop>
  size_t MoveDropping(size_t max_buckets, Drop drop) {
    if (old_.empty()) return 0;
    const size_t mask = old_.size() - 1;
    size_t visited = 0;
    for (; unvisited_ > 0; ++visited) {
      Bucket& b = old_[move_cursor_];
      if (visited >= max_buckets && b.entry == nullptr) return visited;  // between two runs
      if (b.entry != nullptr) {
        if (drop(b.entry, (b.hash & kMarkBit) != 0)) {
          --count_;
        } else {
          Place(b);
        }
        b = Bucket{};
      }
      move_cursor_ = (move_cursor_ + 1) & mask;
      --unvisited_;
    }
    old_ = Table();
    return visited;
  }

  // Empties bucket `i`, of whichever table holds it.
  void Remove(size_t i) {
    if (i & kOldTableBit) {
      RemoveFrom(old_, i & ~kOldTableBit);
    } else {
      RemoveFrom(buckets_, i);
    }
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

  // Frees the tables (not the entries).
  void Clear() {
    buckets_ = Table();
    old_ = Table();
    count_ = 0;
  }

 private:
  static constexpr size_t kInitialBuckets = 1024;
  static constexpr uintptr_t kCacheLine = 64;
  static constexpr uint64_t kMarkBit = uint64_t{1} << 63;  // above any table's bucket number
  static constexpr size_t kOldTableBit = size_t{1} << 63;  // in a bucket number: the old table's
  static constexpr size_t kMinBucketsMovedPerReserve = 16;

  // Buckets from calloc, all zero (empty): a large table's pages come zeroed from the kernel
  // and are first touched as entries land in them. std::vector zeroed them all at once, and
  // on this project's VMs the page faults of a 4 MB table took 13 ms. Giving those pages back
  // costs as much, so a large table is freed on another thread.
  class Table {
   public:
    Table() = default;
    explicit Table(size_t size)
        : buckets_(static_cast<Bucket*>(std::calloc(size, sizeof(Bucket)))), size_(size) {
      if (buckets_ == nullptr) throw std::bad_alloc();
    }
    Table(Table&& other) noexcept
        : buckets_(std::exchange(other.buckets_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    Table& operator=(Table&& other) noexcept {
      if (this != &other) {
        Release();
        buckets_ = std::exchange(other.buckets_, nullptr);
        size_ = std::exchange(other.size_, 0);
      }
      return *this;
    }
    ~Table() { Release(); }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Bucket& operator[](size_t i) { return buckets_[i]; }
    const Bucket& operator[](size_t i) const { return buckets_[i]; }

   private:
    void Release() {
      if (size_ * sizeof(Bucket) >= kBackgroundFreeBytes) {
        FreeInBackground(buckets_);
      } else {
        std::free(buckets_);
      }
    }
    Bucket* buckets_ = nullptr;
    size_t size_ = 0;
  };
  static_assert(std::is_trivially_copyable_v<Bucket>, "a table of zero bytes is all empty");

  template <typename Matches>
  static size_t ProbeIn(const Table& table, uint64_t hash, Matches matches) {
    const size_t mask = table.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Bucket& b = table[i];
      if (b.entry == nullptr || ((b.hash & ~kMarkBit) == hash && matches(b.entry))) return i;
    }
  }

  // Backward-shift deletion: later buckets of the probe run move into the hole unless their
  // home bucket lies after it (cyclically), so no lookup ever stops at a false gap.
  static void RemoveFrom(Table& table, size_t i) {
    const size_t mask = table.size() - 1;
    for (size_t j = (i + 1) & mask; table[j].entry != nullptr; j = (j + 1) & mask) {
      const size_t home = table[j].hash & mask;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      table[i] = table[j];
      i = j;
    }
    table[i] = Bucket{};
  }

  static size_t LongestRunOf(const Table& table) {
    size_t longest = 0;
    size_t run = 0;
    // Twice round, so that a run through the table's end is counted whole.
    for (size_t i = 0; i < 2 * table.size(); ++i) {
      run = table[i & (table.size() - 1)].entry != nullptr ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    return longest;
  }

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

  // A table of `size` buckets (a power of two that keeps count_ under the maximum load) to
  // use from now on; the entries of the one in use move to it in steps. (An earlier move
  // still under way ends first.)
  void StartMoving(size_t size) {
    FinishMoving();
    Table fresh(size);  // first: should the allocation fail, the index stays as it was
    old_ = std::move(buckets_);
    buckets_ = std::move(fresh);
    if (old_.empty()) return;  // the first table
    // From an empty bucket (the maximum load leaves one), so that no run is cut in two.
    move_cursor_ = 0;
    while (old_[move_cursor_].entry != nullptr) ++move_cursor_;
    unvisited_ = old_.size();
    // Fast enough that the moves end when half the new table's room for entries is taken: a
    // table that doubled moves 16 buckets a Reserve, a large shrink more.
    const size_t room = buckets_.size() * MaxLoadPercent / 100 - count_;
    buckets_moved_per_reserve_ =
        std::max(kMinBucketsMovedPerReserve, 2 * old_.size() / std::max<size_t>(room, 1));
  }

  // Copies `b` of the old table, mark and all, into the table in use.
  void Place(const Bucket& b) {
    const size_t mask = buckets_.size() - 1;
    size_t i = b.hash & mask;
    while (buckets_[i].entry != nullptr) i = (i + 1) & mask;
    buckets_[i] = b;
  }

  Table buckets_;
  Table old_;               // while entries move to buckets_: what is left of the former table
  size_t move_cursor_ = 0;  // the old table's next bucket to move
  size_t unvisited_ = 0;    // of the old table's buckets
  size_t buckets_moved_per_reserve_ = kMinBucketsMovedPerReserve;
  size_t count_ = 0;  // in both tables
};

}  // namespace sluice
