#pragma once

// The skiplist under every memtable of sluice's column families: entries kept in
// memtable_key_order.h's order, written by one thread, read by any.
//
// Why not RocksDB's InlineSkipList: Debian builds RocksDB with assertions, and that list's
// insert checks every step of its search and then its whole splice again through the
// comparator: about 70 of an insert's 100 key comparisons, each a virtual call. A write to a
// key the memtable does not hold yet (every write, once a server has more live keys than a
// memtable holds) paid some 9,000 instructions for it. Here an insert compares about 35
// times, inlined.
//
// Layout: an entry is RocksDB's encoded memtable entry (length-prefixed internal key, then the
// value); its node's next pointers sit just before it in the same allocation, level 0
// nearest, so the entry pointer is the node's handle. The height is kept in the level-0 slot
// from Allocate until Insert links the node.
//
// Concurrency: Insert sets a new node's own pointers, then links it bottom-up, each link a
// release store; readers load links with acquire, so they see a node fully built, linked at
// some of its levels or all. Insert and Allocate must run on one thread at a time.

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_set>

namespace sluice::storage {

class MemtableSkipList {
 public:
  static constexpr int kMaxHeight = 12;

  // `reference_order` (RocksDB's comparator for the memtable) only checks this list's order
  // in builds with assertions.
  explicit MemtableSkipList(const rocksdb::MemTableRep::KeyComparator* reference_order = nullptr);
  MemtableSkipList(const MemtableSkipList&) = delete;
  MemtableSkipList& operator=(const MemtableSkipList&) = delete;

  // A node for an entry of `entry_size` bytes: how many bytes to allocate for it (at any
  // alignment), and the entry's place in those bytes once allocated.
  struct NodeShape {
    int height;
    size_t bytes;
  };
  NodeShape NextNodeShape(size_t entry_size);
  static char* PlaceNode(char* memory, NodeShape shape);

  // Where a search for a key ended: at each of its levels, the last node before the key and
  // the node after it. Nodes never move or leave, so `before` stays before the key as the list
  // grows; where the two are still neighbours, the key's place at that level is found.
  struct Splice {
    int height = 0;
    const char* before[kMaxHeight];
    const char* after[kMaxHeight];
  };

  // Links an entry placed by PlaceNode. False (and nothing linked) if the list already holds
  // an entry with the same internal key (user key and sequence number). `start`, if given, is
  // a splice SearchTogether found for the entry's user key (with kTagBeforeAllVersions).
  bool Insert(const char* entry, const Splice* start = nullptr);

  // Searches for `internal_keys` side by side, one node each in turn, so that their cache
  // misses overlap where a search alone waits for one miss after another, and records where
  // each ended in `splices` (as many): the inserts of a batch about to be written then find
  // their nodes in the CPU cache, and most of their way already gone.
  void SearchTogether(std::span<const rocksdb::Slice> internal_keys, Splice* splices) const;
  bool Contains(const char* entry) const;

  // The first entry at or after `internal_key`, or nullptr.
  const char* FindGreaterOrEqual(const rocksdb::Slice& internal_key) const;
  // The last entry before `internal_key`, or nullptr.
  const char* FindLessThan(const rocksdb::Slice& internal_key) const;
  // The entry with `internal_key`, else the last entry before it, or nullptr (one search).
  const char* FindLessOrEqual(const rocksdb::Slice& internal_key) const;
  const char* First() const { return Next(kHead, 0); }
  const char* Last() const;
  static const char* Next(const char* entry) { return Next(entry, 0); }

  // About how many entries sort before `internal_key`.
  uint64_t EstimateCountBefore(const rocksdb::Slice& internal_key) const;
  // Adds `target` distinct entries (all of them if there are fewer) drawn at random: exactly
  // uniform when the target is large, by random descents through the levels when it is small.
  void UniqueRandomSample(uint64_t entries, uint64_t target,
                          std::unordered_set<const char*>* sample) const;

  class Iterator;

 private:
  using Link = std::atomic<const char*>;

  static Link& LinkOf(const char* entry, int level) {
    return reinterpret_cast<Link*>(const_cast<char*>(entry))[-1 - level];
  }
  static const char* Next(const char* entry, int level) {
    return LinkOf(entry, level).load(std::memory_order_acquire);
  }
  int Compare(const char* entry, const rocksdb::Slice& internal_key) const;
  // For each level of the list, top to bottom: the last entry before `key` (or the head) in
  // before[level] and its successor in after[level]. Returns the list's height then.
  // `start`: a splice found earlier for the key's user key, to begin from; with it, only the
  // lowest `levels` levels are sure to be filled in (the levels a new node links at).
  int FindSplice(const rocksdb::Slice& key, const char** before, const char** after,
                 const Splice* start = nullptr, int levels = kMaxHeight) const;
  const char* RandomEntry(uint64_t* random_state) const;

  // The head: a node of kMaxHeight levels and no entry; kHead is its handle.
  Link head_links_[kMaxHeight];
  const char* const kHead;
  std::atomic<int> height_{1};
  uint64_t random_state_;

  [[maybe_unused]] const rocksdb::MemTableRep::KeyComparator* reference_order_;
};

// A MemTableRep::Iterator over a MemtableSkipList. Made in RocksDB's arena when asked, as
// RocksDB's own iterators are: there it is destroyed without being freed, so it returns its
// memory to a per-thread pool for the next one (RocksDB's Arena type is not public).
class MemtableSkipList::Iterator : public rocksdb::MemTableRep::Iterator {
 public:
  // `in_arena`: RocksDB will destroy it without freeing it.
  static Iterator* New(const MemtableSkipList* list, bool in_arena);
  ~Iterator() override;

  bool Valid() const override { return entry_ != nullptr; }
  const char* key() const override { return entry_; }
  void Next() override {
    entry_ = MemtableSkipList::Next(entry_);
    if (entry_ == nullptr) return;
    // The entry after this one starts loading while the caller reads this one: a walk over
    // entries the CPU cache does not hold (the expiry cycle's, SCAN's, a count's) overlaps
    // each entry's cache miss with the work on the one before.
    if (const char* after = MemtableSkipList::Next(entry_)) {
      __builtin_prefetch(&LinkOf(after, 0));
      __builtin_prefetch(after);
    }
  }
  void Prev() override;
  void Seek(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override { entry_ = list_->First(); }
  void SeekToLast() override { entry_ = list_->Last(); }

 protected:
  Iterator(const MemtableSkipList* list, bool in_arena) : list_(list), in_arena_(in_arena) {}

 private:
  const MemtableSkipList* list_;
  const char* entry_ = nullptr;
  bool in_arena_;
};

}  // namespace sluice::storage
