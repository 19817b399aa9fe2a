#include "storage/write_stage.h"

#include <rocksdb/db.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "common/key_hash.h"

namespace sluice::storage {

namespace {

constexpr size_t kInitialSlots = 256;  // a power of two
// After a batch larger than this, Clear() gives the memory back.
constexpr size_t kKeptEntries = 4096;
// Value and key buffers larger than this are not kept for reuse.
constexpr size_t kKeptBufferBytes = 4096;

uint64_t HashOf(uint8_t family, std::string_view key) {
  // Family 0 (the key space) is by far the most common: hash the key alone there.
  const uint64_t h = HashKey(key);
  return family == 0 ? h : h ^ (0x9e3779b97f4a7c15ull * family);
}

void ReleaseIfLarge(std::string* s) {
  if (s->capacity() > kKeptBufferBytes) {
    std::string().swap(*s);
  } else {
    s->clear();
  }
}

}  // namespace

WriteStage::WriteStage(std::optional<uint8_t> staging_order_family)
    : staging_order_family_(staging_order_family), slots_(kInitialSlots, 0) {}

size_t WriteStage::FindSlot(uint8_t family, std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t ref = slots_[i];
    if (ref == 0) return i;
    const Entry& e = entries_[ref - 1];
    if (e.hash == hash && e.family == family && e.key == key) return i;
  }
}

void WriteStage::Grow() {
  std::vector<uint32_t> bigger(slots_.size() * 2, 0);
  const size_t mask = bigger.size() - 1;
  for (size_t idx = 0; idx < used_; ++idx) {
    size_t i = entries_[idx].hash & mask;
    while (bigger[i] != 0) i = (i + 1) & mask;
    bigger[i] = static_cast<uint32_t>(idx + 1);
  }
  slots_.swap(bigger);
}

WriteStage::Entry* WriteStage::Stage(uint8_t family, std::string_view key) {
  ++writes_staged_;
  const uint64_t hash = HashOf(family, key);
  size_t slot = FindSlot(family, key, hash);
  if (slots_[slot] != 0) {
    last_staged_ = slots_[slot] - 1;
    Entry* staged = &entries_[last_staged_];
    staged->written_at = writes_staged_;
    return staged;
  }
  // A new key: keep the load factor at or below one half.
  if ((used_ + 1) * 2 > slots_.size()) {
    Grow();
    slot = FindSlot(family, key, hash);
  }
  if (used_ == entries_.size()) entries_.emplace_back();
  Entry& e = entries_[used_];
  e.family = family;
  e.hash = hash;
  e.written_at = writes_staged_;
  e.key.assign(key);
  last_staged_ = used_;
  slots_[slot] = static_cast<uint32_t>(++used_);
  return &e;
}

void WriteStage::Put(uint8_t family, std::string_view key, std::string_view value) {
  Entry* e = Stage(family, key);
  e->deleted = false;
  e->value.assign(value);
}

std::string* WriteStage::PutInPlace(uint8_t family, std::string_view key) {
  Entry* e = Stage(family, key);
  e->deleted = false;
  e->value.clear();
  return &e->value;
}

void WriteStage::Delete(uint8_t family, std::string_view key) {
  Entry* e = Stage(family, key);
  e->deleted = true;
  e->value.clear();
}

const WriteStage::Entry* WriteStage::Find(uint8_t family, std::string_view key) const {
  if (used_ == 0) return nullptr;
  const uint32_t ref = slots_[FindSlot(family, key, HashOf(family, key))];
  return ref == 0 ? nullptr : &entries_[ref - 1];
}

bool WriteStage::WrittenSince(uint8_t family, std::string_view key, uint64_t writes) const {
  if (cleared_at_ > writes) return true;
  const Entry* e = Find(family, key);
  return e != nullptr && e->written_at > writes;
}

const std::vector<uint32_t>& WriteStage::EmitOrder() const {
  order_.clear();
  for (size_t i = 0; i < used_; ++i) {
    if (entries_[i].family == staging_order_family_) order_.push_back(static_cast<uint32_t>(i));
  }
  const size_t unsorted = order_.size();
  for (size_t i = 0; i < used_; ++i) {
    if (entries_[i].family != staging_order_family_) order_.push_back(static_cast<uint32_t>(i));
  }
  std::sort(order_.begin() + unsorted, order_.end(), [this](uint32_t a, uint32_t b) {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    if (x.family != y.family) return x.family < y.family;
    return x.key < y.key;
  });
  return order_;
}

void WriteStage::AppendTo(rocksdb::WriteBatch* batch,
                          const std::vector<rocksdb::ColumnFamilyHandle*>& families) const {
  for (uint32_t idx : EmitOrder()) {
    const Entry& e = entries_[idx];
    assert(e.family < families.size());
    rocksdb::ColumnFamilyHandle* cf = families[e.family];
    // WriteBatch's Put/Delete fail only past max_bytes (unset) or for oversized keys and
    // values, which proto-max-bulk-len rules out.
    rocksdb::Status s = e.deleted ? batch->Delete(cf, e.key) : batch->Put(cf, e.key, e.value);
    assert(s.ok());
    (void)s;
  }
}

BuiltWriteBatch WriteStage::ToBatch(const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                                    std::string buffer) const {
  size_t payload_bytes = 0;
  for (size_t i = 0; i < used_; ++i)
    payload_bytes += entries_[i].key.size() + entries_[i].value.size();
  WriteBatchRep rep(used_, payload_bytes, std::move(buffer));
  for (uint32_t idx : EmitOrder()) {
    const Entry& e = entries_[idx];
    assert(e.family < families.size());
    const uint32_t family_id = families[e.family]->GetID();
    if (e.deleted) {
      rep.Delete(family_id, e.key);
    } else {
      rep.Put(family_id, e.key, e.value);
    }
  }
  return std::move(rep).Finish();
}

void WriteStage::Clear() {
  if (used_ == 0) return;
  cleared_at_ = writes_staged_;
  if (used_ > kKeptEntries) {
    // An unusually large batch: give its memory back rather than keep it forever.
    std::vector<Entry>().swap(entries_);
    std::vector<uint32_t>(kInitialSlots, 0).swap(slots_);
    std::vector<uint32_t>().swap(order_);
    used_ = 0;
    return;
  }
  if (used_ * 8 < slots_.size()) {
    // Few entries in a big table: clear just their slots. Every slot of the table that is in
    // use belongs to one of them, so zeroing them all leaves the table empty.
    const size_t mask = slots_.size() - 1;
    for (size_t idx = 0; idx < used_; ++idx) {
      for (size_t i = entries_[idx].hash & mask;; i = (i + 1) & mask) {
        if (slots_[i] == idx + 1) {
          slots_[i] = 0;
          break;
        }
      }
    }
  } else {
    std::fill(slots_.begin(), slots_.end(), 0);
  }
  for (size_t idx = 0; idx < used_; ++idx) {
    ReleaseIfLarge(&entries_[idx].key);
    ReleaseIfLarge(&entries_[idx].value);
  }
  used_ = 0;
}

void WriteStage::DropFamilies(const std::vector<bool>& dropped) {
  std::vector<Entry> kept;
  for (size_t i = 0; i < used_; ++i) {
    const Entry& e = entries_[i];
    if (e.family >= dropped.size() || !dropped[e.family]) kept.push_back(e);
  }
  Clear();
  for (const Entry& e : kept) {
    if (e.deleted) {
      Delete(e.family, e.key);
    } else {
      Put(e.family, e.key, e.value);
    }
  }
  ++writes_staged_;
}

}  // namespace sluice::storage
