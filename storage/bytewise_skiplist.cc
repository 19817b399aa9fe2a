#include "storage/bytewise_skiplist.h"

#include <cassert>

namespace sluice::storage {
namespace {

using rocksdb::MemTableRep;

// MemTableRep::Get's own search, over this list: RocksDB's LookupKey is not a public type, so
// the base class's Get (which reads it) runs on this stand-in, whose prefix iterator searches
// the list. (The indexed memtable's own prefix iterator looks keys up in an index only its
// writing thread may read; a Get may come from any thread.) RocksDB 7.8's Get never deletes
// that iterator, a leak should a later version not mend it: the iterator tells the stand-in
// when it is destroyed, and the stand-in deletes it if RocksDB did not.
class ListSearch final : public MemTableRep {
 public:
  explicit ListSearch(const MemtableSkipList* list) : MemTableRep(nullptr), list_(list) {}
  ~ListSearch() override { delete iterator_; }  // null if RocksDB deleted it

  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* /*arena*/) override {
    assert(iterator_ == nullptr);
    iterator_ = new SearchIterator(list_, &iterator_);
    return iterator_;
  }
  // Never called: the stand-in only searches.
  void Insert(rocksdb::KeyHandle /*handle*/) override {}
  bool Contains(const char* /*key*/) const override { return false; }
  size_t ApproximateMemoryUsage() override { return 0; }
  Iterator* GetIterator(rocksdb::Arena* /*arena*/) override { return nullptr; }

 private:
  // The list's iterator, which clears its owner's pointer to it when destroyed.
  class SearchIterator final : public MemtableSkipList::Iterator {
   public:
    SearchIterator(const MemtableSkipList* list, MemTableRep::Iterator** owner)
        : MemtableSkipList::Iterator(list, false), owner_(owner) {}
    ~SearchIterator() override { *owner_ = nullptr; }

   private:
    MemTableRep::Iterator** owner_;
  };

  const MemtableSkipList* list_;
  Iterator* iterator_ = nullptr;
};

}  // namespace

BytewiseSkipListRep::BytewiseSkipListRep(const KeyComparator& rocksdb_order,
                                         rocksdb::Allocator* allocator)
    : MemTableRep(allocator), list_(&rocksdb_order) {}

rocksdb::KeyHandle BytewiseSkipListRep::Allocate(size_t len, char** buf) {
  const MemtableSkipList::NodeShape shape = list_.NextNodeShape(len);
  char* memory = nullptr;
  MemTableRep::Allocate(shape.bytes, &memory);  // from the memtable's arena
  *buf = MemtableSkipList::PlaceNode(memory, shape);
  return *buf;
}

void BytewiseSkipListRep::Get(const rocksdb::LookupKey& k, void* callback_args,
                              bool (*callback_func)(void* arg, const char* entry)) {
  ListSearch(&list_).MemTableRep::Get(k, callback_args, callback_func);
}

uint64_t BytewiseSkipListRep::ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                                    const rocksdb::Slice& end_ikey) {
  const uint64_t start = list_.EstimateCountBefore(start_ikey);
  const uint64_t end = list_.EstimateCountBefore(end_ikey);
  return end > start ? end - start : 0;
}

}  // namespace sluice::storage
