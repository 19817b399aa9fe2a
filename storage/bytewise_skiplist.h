#pragma once

// RocksDB's skiplist memtable, ordered by storage/memtable_key_order.h (why: that header): the
// same order as RocksDB's own comparator gives a column family with bytewise user keys, as all
// of sluice's are. The key space's indexed memtable (indexed_memtable.h) builds on it.
//
// RocksDB records the factory in the OPTIONS file by name; its own tools (`ldb`) read the data
// as usual but cannot load that options file (docs/notes.md).

#include <rocksdb/memtablerep.h>

#include <memory>
#include <unordered_set>

namespace sluice::storage {

class BytewiseSkipListRep : public rocksdb::MemTableRep {
 public:
  // `rocksdb_order` is RocksDB's comparator for the memtable, which outlives this rep; builds
  // with assertions check every comparison against it.
  BytewiseSkipListRep(const KeyComparator& rocksdb_order, rocksdb::Allocator* allocator,
                      const rocksdb::SliceTransform* transform, rocksdb::Logger* logger);
  ~BytewiseSkipListRep() override;

  // The skiplist's handle is the entry itself (SkipListRep::Allocate returns the key buffer).
  rocksdb::KeyHandle Allocate(size_t len, char** buf) override { return list_->Allocate(len, buf); }
  void Insert(rocksdb::KeyHandle handle) override { list_->Insert(handle); }
  bool InsertKey(rocksdb::KeyHandle handle) override { return list_->InsertKey(handle); }
  void InsertWithHint(rocksdb::KeyHandle handle, void** hint) override {
    list_->InsertWithHint(handle, hint);
  }
  bool InsertKeyWithHint(rocksdb::KeyHandle handle, void** hint) override {
    return list_->InsertKeyWithHint(handle, hint);
  }

  bool Contains(const char* key) const override { return list_->Contains(key); }
  void MarkReadOnly() override { list_->MarkReadOnly(); }
  void MarkFlushed() override { list_->MarkFlushed(); }

  void Get(const rocksdb::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    list_->Get(k, callback_args, callback_func);
  }
  uint64_t ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                 const rocksdb::Slice& end_key) override {
    return list_->ApproximateNumEntries(start_ikey, end_key);
  }
  void UniqueRandomSample(uint64_t num_entries, uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override {
    list_->UniqueRandomSample(num_entries, target_sample_size, entries);
  }
  size_t ApproximateMemoryUsage() override { return list_->ApproximateMemoryUsage(); }

  Iterator* GetIterator(rocksdb::Arena* arena) override { return list_->GetIterator(arena); }
  bool IsMergeOperatorSupported() const override { return list_->IsMergeOperatorSupported(); }
  bool IsSnapshotSupported() const override { return list_->IsSnapshotSupported(); }

 protected:
  rocksdb::MemTableRep* list() { return list_.get(); }

 private:
  std::unique_ptr<KeyComparator> order_;  // before list_, which keeps a reference to it
  std::unique_ptr<rocksdb::MemTableRep> list_;
};

class BytewiseSkipListFactory : public rocksdb::MemTableRepFactory {
 public:
  static const char* kClassName() { return "SluiceBytewiseSkipList"; }
  const char* Name() const override { return kClassName(); }

  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* transform,
                                          rocksdb::Logger* logger) override {
    return new BytewiseSkipListRep(compare, allocator, transform, logger);
  }
};

}  // namespace sluice::storage
