#pragma once

// The memtable of sluice's column families: memtable_skiplist.h's skiplist, ordered by
// storage/memtable_key_order.h (why: those headers), the same order as RocksDB's own
// comparator gives a column family with bytewise user keys, as all of sluice's are. The key
// space's indexed memtable (indexed_memtable.h) builds on it.
//
// RocksDB records the factory in the OPTIONS file by name; its own tools (`ldb`) read the data
// as usual but cannot load that options file (docs/notes.md).

#include <rocksdb/memtablerep.h>

#include <unordered_set>

#include "storage/memtable_skiplist.h"

namespace sluice::storage {

class BytewiseSkipListRep : public rocksdb::MemTableRep {
 public:
  // `rocksdb_order` is RocksDB's comparator for the memtable, which outlives this rep; builds
  // with assertions check every comparison against it.
  BytewiseSkipListRep(const KeyComparator& rocksdb_order, rocksdb::Allocator* allocator);

  // The handle is the entry itself, its node's links before it.
  rocksdb::KeyHandle Allocate(size_t len, char** buf) override;
  void Insert(rocksdb::KeyHandle handle) override { list_.Insert(Entry(handle)); }
  bool InsertKey(rocksdb::KeyHandle handle) override { return list_.Insert(Entry(handle)); }
  // Hints serve RocksDB's own list; this one searches from its top every time.
  void InsertWithHint(rocksdb::KeyHandle handle, void** /*hint*/) override {
    list_.Insert(Entry(handle));
  }
  bool InsertKeyWithHint(rocksdb::KeyHandle handle, void** /*hint*/) override {
    return list_.Insert(Entry(handle));
  }

  bool Contains(const char* key) const override { return list_.Contains(key); }
  void Get(const rocksdb::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override;
  uint64_t ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                 const rocksdb::Slice& end_ikey) override;
  void UniqueRandomSample(uint64_t num_entries, uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override {
    list_.UniqueRandomSample(num_entries, target_sample_size, entries);
  }
  // The nodes live in the memtable's arena, which the memtable counts itself.
  size_t ApproximateMemoryUsage() override { return 0; }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    return MemtableSkipList::Iterator::New(&list_, arena != nullptr);
  }

 protected:
  const MemtableSkipList& list() const { return list_; }
  // Insert, with a splice found earlier for the entry's user key (MemtableSkipList::Insert).
  bool InsertFrom(rocksdb::KeyHandle handle, const MemtableSkipList::Splice* start) {
    return list_.Insert(Entry(handle), start);
  }

 private:
  static const char* Entry(rocksdb::KeyHandle handle) { return static_cast<const char*>(handle); }

  MemtableSkipList list_;
};

class BytewiseSkipListFactory : public rocksdb::MemTableRepFactory {
 public:
  static const char* kClassName() { return "SluiceBytewiseSkipList"; }
  const char* Name() const override { return kClassName(); }

  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* /*transform*/,
                                          rocksdb::Logger* /*logger*/) override {
    return new BytewiseSkipListRep(compare, allocator);
  }
};

}  // namespace sluice::storage
