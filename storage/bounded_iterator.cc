#include "storage/bounded_iterator.h"

#include "storage/slice_view.h"

namespace sluice::storage {

std::optional<std::string> StoppedAtKey(rocksdb::Iterator& it) {
  std::string key;
  if (!it.GetProperty("rocksdb.iterator.internal-key", &key).ok()) return std::nullopt;
  return key;
}

BoundedIterator::BoundedIterator(rocksdb::DB* db, rocksdb::WriteBatchWithIndex* batch,
                                 rocksdb::ColumnFamilyHandle* cf, std::string lower,
                                 std::string upper, OpenIterators* open, bool committed,
                                 uint64_t max_skipped)
    : lower_(std::move(lower)), upper_(std::move(upper)), open_(open) {
  lower_slice_ = rocksdb::Slice(lower_);
  upper_slice_ = rocksdb::Slice(upper_);
  read_options_.max_skippable_internal_keys = max_skipped;
  if (!lower_.empty()) read_options_.iterate_lower_bound = &lower_slice_;
  if (!upper_.empty()) read_options_.iterate_upper_bound = &upper_slice_;
  base_ = committed ? db->NewIterator(read_options_, cf) : rocksdb::NewEmptyIterator();
  if (batch == nullptr) {
    it_.reset(base_);
  } else {
    it_.reset(batch->NewIteratorWithBase(cf, base_, &read_options_));
  }
  if (open_ != nullptr) {
    ++open_->all;
    if (batch == nullptr) ++open_->unmerged;
  }
}

BoundedIterator::~BoundedIterator() {
  const bool unmerged = it_.get() == base_;
  it_.reset();
  if (open_ != nullptr) {
    --open_->all;
    if (unmerged) --open_->unmerged;
  }
}

bool BoundedIterator::Valid() const {
  if (!it_->Valid()) return false;
  if (it_.get() == base_) return true;  // the database's iterator keeps to both bounds itself
  std::string_view k = View(it_->key());
  return k >= lower_ && (upper_.empty() || k < upper_);
}

void BoundedIterator::SeekToFirst() { it_->Seek(lower_slice_); }

void BoundedIterator::SeekToLast() {
  if (upper_.empty()) {
    it_->SeekToLast();
    return;
  }
  it_->SeekForPrev(upper_slice_);
  if (it_->Valid() && View(it_->key()) >= upper_) it_->Prev();
}

void BoundedIterator::Seek(std::string_view target) {
  it_->Seek(target < lower_ ? lower_slice_ : ToSlice(target));
}

void BoundedIterator::SeekForPrev(std::string_view target) {
  if (!upper_.empty() && target >= upper_) {
    SeekToLast();
    return;
  }
  it_->SeekForPrev(ToSlice(target));
}

void BoundedIterator::Next() {
  if (Valid()) it_->Next();
}

void BoundedIterator::Prev() {
  if (Valid()) it_->Prev();
}

std::string_view BoundedIterator::key() const { return View(it_->key()); }

std::string_view BoundedIterator::value() const { return View(it_->value()); }

Status BoundedIterator::status() const {
  rocksdb::Status s = it_->status();
  if (s.ok()) return Status::Ok();
  return IoError("iterator: " + s.ToString());
}

}  // namespace sluice::storage
