#pragma once

// An iterator over [lower, upper) of one column family that sees the staged writes of a
// WriteBatchWithIndex merged over the database, or the database alone. Over a batch the bounds
// are enforced here, not only through ReadOptions: the batch side of RocksDB's merged iterator
// does not know the lower bound. The database's own iterator keeps to both.

#include <rocksdb/db.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/engine.h"

namespace sluice::storage {

// Where a RocksDB iterator that max_skippable_internal_keys stopped (status Incomplete) got to:
// the last key it passed (a deleted key, or one already returned), from which a later walk can
// go on. Nothing if it cannot say.
std::optional<std::string> StoppedAtKey(rocksdb::Iterator& it);

// The iterators open on an engine, counted by each BoundedIterator for its lifetime: the engine
// checks that none is open when it clears its batch, and that none reading the database alone
// is open when it stages a write (that iterator would not see it).
struct OpenIterators {
  int all = 0;
  int unmerged = 0;  // opened with no batch
};

class BoundedIterator final : public SubEntryIterator {
 public:
  // `upper` empty: no upper bound. `open` (may be null) counts the iterator while it lives.
  // `batch` null: the database alone (nothing is staged). Without `committed`, the batch
  // alone (a staged wipe hides what the database holds).
  // `max_skipped` (0: no bound): a Seek or Next of the database's side that passes more
  // internal entries (tombstones, older versions) stops there, invalid and incomplete().
  BoundedIterator(rocksdb::DB* db, rocksdb::WriteBatchWithIndex* batch,
                  rocksdb::ColumnFamilyHandle* cf, std::string lower, std::string upper,
                  OpenIterators* open, bool committed = true, uint64_t max_skipped = 0);
  ~BoundedIterator() override;
  BoundedIterator(const BoundedIterator&) = delete;
  BoundedIterator& operator=(const BoundedIterator&) = delete;

  bool Valid() const override;
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void Next() override;
  void Prev() override;
  std::string_view key() const override;
  std::string_view value() const override;
  Status status() const override;
  // Stopped by `max_skipped` (status() then says so as an error).
  bool incomplete() const { return it_->status().IsIncomplete(); }
  // Once incomplete(): StoppedAtKey of the database's side.
  std::optional<std::string> StoppedAt() const { return StoppedAtKey(*base_); }

 private:
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  rocksdb::ReadOptions read_options_;  // points at the slices above
  std::unique_ptr<rocksdb::Iterator> it_;
  rocksdb::Iterator* base_;  // the database's side, owned by it_
  OpenIterators* open_;
};

}  // namespace sluice::storage
