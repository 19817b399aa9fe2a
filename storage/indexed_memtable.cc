#include "storage/indexed_memtable.h"

#include <atomic>
#include <cassert>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "common/pointer_hash_index.h"
#include "storage/memtable_key_order.h"

namespace sluice::storage {

namespace {

using rocksdb::KeyHandle;
using rocksdb::MemTableRep;
using rocksdb::Slice;

// A memtable entry is varint32 length + internal key + varint32 length + value; an internal
// key is the user key followed by 8 bytes of little-endian (sequence << 8 | type). RocksDB
// calls this format frozen (MemTableRep::KeyComparator::decode_key).
Slice InternalKeyOf(const char* entry) { return EntryInternalKey(entry); }

std::string_view UserKeyOf(const Slice& internal_key) {
  return {internal_key.data(), internal_key.size() - 8};
}

uint64_t TagOf(const Slice& internal_key) { return InternalKeyTag(internal_key); }

// The skiplist's order: memtable_key_order.h's, which the factory's column family (bytewise
// user keys) allows. Builds with assertions check every comparison against RocksDB's own.
class EntryOrder final : public BytewiseEntryComparator {
 public:
  explicit EntryOrder(const MemTableRep::KeyComparator& rocksdb_order)
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

// What an in-place update of a small value reads and writes: the key and the value after it.
constexpr size_t kPrefetchedEntryBytes = 128;

uint64_t HashOf(std::string_view user_key) { return std::hash<std::string_view>{}(user_key); }

auto KeyIs(std::string_view user_key) {
  return [user_key](const char* entry) { return UserKeyOf(InternalKeyOf(entry)) == user_key; };
}

// User key -> that key's newest entry in the memtable. Entries are never removed (a memtable
// only grows).
class NewestEntryIndex {
 public:
  const char* Find(std::string_view user_key) const {
    return index_.Find(HashOf(user_key), KeyIs(user_key));
  }

  // Records `entry` unless the index already holds a newer entry of the same user key.
  void Add(const char* entry) {
    index_.Reserve(index_.size() + 1);
    const Slice internal_key = InternalKeyOf(entry);
    const std::string_view user_key = UserKeyOf(internal_key);
    const uint64_t hash = HashOf(user_key);
    const size_t i = index_.Probe(hash, KeyIs(user_key));
    const char*& newest = index_.at(i).entry;
    if (newest == nullptr) {
      index_.Insert(i, hash, entry);
    } else if (TagOf(internal_key) > TagOf(InternalKeyOf(newest))) {
      newest = entry;
    }
  }

  void Prefetch(std::span<const std::string_view> user_keys) const {
    index_.Prefetch(user_keys, HashOf, kPrefetchedEntryBytes);
  }

  // Charged to the write buffer: the table at its fullest, two buckets per entry. (Its real
  // size doubles in steps; charging that step would seal a memtable right after it grows.)
  size_t charged_bytes() const { return index_.size() * 2 * sizeof(Bucket); }
  void Release() { index_.Clear(); }

 private:
  using Bucket = PointerHashIndex<const char>::Bucket;
  PointerHashIndex<const char> index_;
};

}  // namespace

class IndexedSkipListFactory::Rep : public MemTableRep {
 public:
  Rep(IndexedSkipListFactory* factory, rocksdb::MemTableRepFactory& skiplist,
      const KeyComparator& rocksdb_order, rocksdb::Allocator* allocator,
      const rocksdb::SliceTransform* transform, rocksdb::Logger* logger)
      : MemTableRep(allocator),
        factory_(factory),
        order_(rocksdb_order),
        list_(skiplist.CreateMemTableRep(order_, allocator, transform, logger)) {
    factory_->SetWritable(this);
  }
  ~Rep() override { factory_->ClearWritable(this); }

  KeyHandle Allocate(const size_t len, char** buf) override { return list_->Allocate(len, buf); }

  // The skiplist's handle is the entry itself (SkipListRep::Allocate returns the key buffer).
  void Insert(KeyHandle handle) override {
    list_->Insert(handle);
    Index(handle);
  }
  bool InsertKey(KeyHandle handle) override {
    if (!list_->InsertKey(handle)) return false;
    Index(handle);
    return true;
  }
  void InsertWithHint(KeyHandle handle, void** hint) override {
    list_->InsertWithHint(handle, hint);
    Index(handle);
  }
  bool InsertKeyWithHint(KeyHandle handle, void** hint) override {
    if (!list_->InsertKeyWithHint(handle, hint)) return false;
    Index(handle);
    return true;
  }

  bool Contains(const char* key) const override { return list_->Contains(key); }

  void MarkReadOnly() override {
    factory_->ClearWritable(this);
    list_->MarkReadOnly();
    index_.Release();  // a sealed memtable is never updated again
    index_bytes_.store(0, std::memory_order_relaxed);
  }
  void MarkFlushed() override { list_->MarkFlushed(); }

  void Get(const rocksdb::LookupKey& k, void* callback_args,
           bool (*callback_func)(void* arg, const char* entry)) override {
    list_->Get(k, callback_args, callback_func);
  }

  uint64_t ApproximateNumEntries(const Slice& start_ikey, const Slice& end_key) override {
    return list_->ApproximateNumEntries(start_ikey, end_key);
  }
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override {
    list_->UniqueRandomSample(num_entries, target_sample_size, entries);
  }
  size_t ApproximateMemoryUsage() override {
    return list_->ApproximateMemoryUsage() + index_bytes_.load(std::memory_order_relaxed);
  }

  Iterator* GetIterator(rocksdb::Arena* arena) override { return list_->GetIterator(arena); }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override;

  bool IsMergeOperatorSupported() const override { return list_->IsMergeOperatorSupported(); }
  bool IsSnapshotSupported() const override { return list_->IsSnapshotSupported(); }

  const char* FindNewest(std::string_view user_key) const { return index_.Find(user_key); }
  void PrefetchNewest(std::span<const std::string_view> user_keys) const {
    index_.Prefetch(user_keys);
  }
  MemTableRep* list() { return list_.get(); }

 private:
  void Index(KeyHandle handle) {
    index_.Add(static_cast<const char*>(handle));
    index_bytes_.store(index_.charged_bytes(), std::memory_order_relaxed);
  }

  IndexedSkipListFactory* factory_;
  EntryOrder order_;  // before list_, which keeps a reference to it
  std::unique_ptr<MemTableRep> list_;
  NewestEntryIndex index_;
  std::atomic<size_t> index_bytes_{0};  // ApproximateMemoryUsage may run on any thread
};

namespace {

// Seek finds the target's user key through the index (one probe), or nothing: the whole user
// key is this iterator's "prefix". Anything else (Next, Prev, the other seeks, a target older
// than the key's newest entry) continues on a skiplist iterator positioned the same way.
class UserKeyIterator : public MemTableRep::Iterator {
 public:
  explicit UserKeyIterator(IndexedSkipListFactory::Rep* rep) : rep_(rep) {}

  bool Valid() const override { return on_list_ ? list_iter_->Valid() : found_ != nullptr; }
  const char* key() const override { return on_list_ ? list_iter_->key() : found_; }

  void Seek(const Slice& internal_key, const char* memtable_key) override {
    found_ = rep_->FindNewest(UserKeyOf(internal_key));
    on_list_ = false;
    // Internal keys of one user key sort newest first: the newest entry is the first at or
    // after the target unless it is newer than the target itself.
    if (found_ != nullptr && TagOf(InternalKeyOf(found_)) > TagOf(internal_key)) {
      List()->Seek(internal_key, memtable_key);
      on_list_ = true;
    }
  }

  void Next() override {
    MoveToList();
    list_iter_->Next();
  }
  void Prev() override {
    MoveToList();
    list_iter_->Prev();
  }
  void SeekForPrev(const Slice& internal_key, const char* memtable_key) override {
    List()->SeekForPrev(internal_key, memtable_key);
    on_list_ = true;
  }
  void SeekToFirst() override {
    List()->SeekToFirst();
    on_list_ = true;
  }
  void SeekToLast() override {
    List()->SeekToLast();
    on_list_ = true;
  }

 private:
  MemTableRep::Iterator* List() {
    if (list_iter_ == nullptr) list_iter_.reset(rep_->list()->GetIterator(nullptr));
    return list_iter_.get();
  }
  // Positions the skiplist iterator on the entry the index found.
  void MoveToList() {
    if (on_list_) return;
    List()->Seek(InternalKeyOf(found_), found_);
    on_list_ = true;
  }

  IndexedSkipListFactory::Rep* rep_;
  const char* found_ = nullptr;
  bool on_list_ = false;
  std::unique_ptr<MemTableRep::Iterator> list_iter_;
};

}  // namespace

MemTableRep::Iterator* IndexedSkipListFactory::Rep::GetDynamicPrefixIterator(
    rocksdb::Arena* arena) {
  // RocksDB's Arena is not a public type, so an iterator it wants in an arena is the
  // skiplist's own (whose Seek is exact, which the prefix contract allows).
  if (arena != nullptr) return list_->GetIterator(arena);
  return new UserKeyIterator(this);
}

rocksdb::MemTableRep* IndexedSkipListFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& compare, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* transform, rocksdb::Logger* logger) {
  return new Rep(this, skiplist_, compare, allocator, transform, logger);
}

void IndexedSkipListFactory::PrefetchForUpdate(std::span<const std::string_view> user_keys) {
  std::lock_guard lock(writable_mu_);
  if (writable_ != nullptr) writable_->PrefetchNewest(user_keys);
}

void IndexedSkipListFactory::SetWritable(Rep* rep) {
  std::lock_guard lock(writable_mu_);
  writable_ = rep;
}

void IndexedSkipListFactory::ClearWritable(Rep* rep) {
  std::lock_guard lock(writable_mu_);
  if (writable_ == rep) writable_ = nullptr;
}

}  // namespace sluice::storage
