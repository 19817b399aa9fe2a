#include "storage/bytewise_skiplist.h"

#include <cassert>

#include "storage/memtable_key_order.h"

namespace sluice::storage {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

// memtable_key_order.h's order; builds with assertions compare each answer with RocksDB's.
class CheckedBytewiseOrder final : public BytewiseEntryComparator {
 public:
  explicit CheckedBytewiseOrder(const MemTableRep::KeyComparator& rocksdb_order)
      : rocksdb_order_(rocksdb_order) {}

  int operator()(const char* a, const char* b) const override {
    const int r = BytewiseEntryComparator::operator()(a, b);
    assert(SameSign(r, rocksdb_order_(a, b)));
    return r;
  }
  int operator()(const char* a, const Slice& b) const override {
    const int r = BytewiseEntryComparator::operator()(a, b);
    assert(SameSign(r, rocksdb_order_(a, b)));
    return r;
  }

 private:
  [[maybe_unused]] static bool SameSign(int x, int y) {
    return (x > 0) - (x < 0) == (y > 0) - (y < 0);
  }

  [[maybe_unused]] const MemTableRep::KeyComparator& rocksdb_order_;
};

}  // namespace

BytewiseSkipListRep::BytewiseSkipListRep(const KeyComparator& rocksdb_order,
                                         rocksdb::Allocator* allocator,
                                         const rocksdb::SliceTransform* transform,
                                         rocksdb::Logger* logger)
    : MemTableRep(allocator),
      order_(std::make_unique<CheckedBytewiseOrder>(rocksdb_order)),
      list_(rocksdb::SkipListFactory().CreateMemTableRep(*order_, allocator, transform, logger)) {}

BytewiseSkipListRep::~BytewiseSkipListRep() = default;

}  // namespace sluice::storage
