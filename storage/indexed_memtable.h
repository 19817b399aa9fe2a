#pragma once

// A memtable representation for the key space: sluice's skiplist plus a hash index from user
// key to the key's newest memtable entry, used by in-place updates.
//
// With `inplace_update_support`, every Put to the key space first looks its key up in the
// memtable (MemTable::Update) to overwrite the entry in place. In the skiplist that lookup is
// a search of some 25 dependent node visits through megabytes of memtable: the largest single
// cost of a random-key write (about a third of the loop thread in `perf`). Here Update's
// lookup is one hash probe instead.
//
// What uses the index, and why that is safe:
// - Only `GetDynamicPrefixIterator`, whose Seek RocksDB defines as "may only find keys with
//   the same prefix as the target". This rep treats the whole user key as that prefix: a Seek
//   finds the target's user key through the index, or nothing. RocksDB calls this iterator
//   from MemTable::Update (the write thread) and, for reads, only in a column family with a
//   prefix extractor, which the key space does not have.
// - The index is written by Insert and read by that Seek: both only ever run on RocksDB's
//   write thread (one writer: `allow_concurrent_memtable_write = false`), so it needs no lock.
//   Reads (Get), iterators, flushes and compaction filters on other threads go to the skiplist.
// - MarkReadOnly (the memtable is sealed: no more writes) frees the index.
// - PrefetchForUpdate, for the keys of a batch about to be written, touches the index of the
//   memtable that will take them, from the thread that will write them, and searches the
//   skiplist for the keys the index does not hold, all together; their inserts then start
//   where those searches ended (MemtableSkipList::SearchTogether).
// A factory serves one column family of one open database at a time, written by one thread:
// it follows a single writable memtable (the newest one created). The skiplist is
// bytewise_skiplist.h's, so the column family must sort user keys bytewise (RocksDB's default).

#include <rocksdb/memtablerep.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::storage {

class IndexedSkipListFactory : public rocksdb::MemTableRepFactory {
 public:
  static const char* kClassName() { return "SluiceIndexedSkipList"; }
  const char* Name() const override { return kClassName(); }

  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* transform,
                                          rocksdb::Logger* logger) override;

  // A hint before a write of `user_keys` (from the writing thread): starts loading their
  // index buckets and memtable entries into the CPU cache, and finds where the keys the
  // memtable does not hold yet will be inserted.
  void PrefetchForUpdate(std::span<const std::string_view> user_keys);

  // A user key at least as large as every key this factory's memtables have held (empty if
  // they held none): FLUSHALL's end of range, as these memtables are not iterated backwards.
  // Written and read only by the writing thread, as the index is.
  const std::string& LargestUserKey() const { return largest_user_key_; }

  // The distinct user keys of the memtable that takes writes, or nothing if no memtable
  // takes writes. Call from the writing thread.
  std::optional<std::vector<std::string>> WritableUserKeys();

  // About `count` distinct user keys drawn at random from the memtable that takes writes,
  // which holds `entries` entries (RocksDB's count). Call from the writing thread.
  std::vector<std::string> SampleWritableUserKeys(uint64_t entries, uint64_t count);

  // While the returned handle (or a copy) lives, a write to `factory`'s memtables adds a new
  // entry where it would rewrite its key's entry in place. RocksDB's in-place update
  // overwrites the value under a lock that only Get takes and keeps the entry's sequence
  // number, so an iterator on another thread (the background key count) could read a value
  // half rewritten, or one written after its snapshot; a new entry has a new sequence number,
  // which that snapshot hides. Take it on the writing thread before such an iterator is made;
  // drop it on any thread once the iterator is gone.
  static std::shared_ptr<void> SuspendInPlaceUpdates(
      std::shared_ptr<IndexedSkipListFactory> factory);
  bool InPlaceUpdatesSuspended() const { return in_place_suspensions_ > 0; }

  class Rep;
  // The memtable that takes writes: set when one is created, cleared when it is sealed or
  // destroyed (both may happen on RocksDB's threads, hence the lock).
  void SetWritable(Rep* rep);
  void ClearWritable(Rep* rep);

 private:
  void NoteInserted(std::string_view user_key);

  std::atomic<int> in_place_suspensions_{0};

  std::mutex writable_mu_;
  Rep* writable_ = nullptr;
  std::string largest_user_key_;
};

}  // namespace sluice::storage
