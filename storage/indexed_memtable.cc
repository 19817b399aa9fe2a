#include "storage/indexed_memtable.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/key_hash.h"
#include "common/pointer_hash_index.h"
#include "storage/bytewise_skiplist.h"
#include "storage/memtable_key_order.h"

namespace sluice::storage {

namespace {

using rocksdb::KeyHandle;
using rocksdb::MemTableRep;
using rocksdb::Slice;

// What an in-place update of a small value reads and writes: the key and the value after it.
constexpr size_t kPrefetchedEntryBytes = 128;

auto KeyIs(std::string_view user_key) {
  return [user_key](const char* entry) {
    return InternalKeyUserKey(EntryInternalKey(entry)) == user_key;
  };
}

// User key -> that key's newest entry in the memtable. Entries are never removed (a memtable
// only grows).
class NewestEntryIndex {
 public:
  const char* Find(std::string_view user_key) const {
    return index_.Find(HashKey(user_key), KeyIs(user_key));
  }

  // Records `entry` unless the index already holds a newer entry of the same user key.
  void Add(const char* entry) {
    index_.Reserve(index_.size() + 1);
    const Slice internal_key = EntryInternalKey(entry);
    const std::string_view user_key = InternalKeyUserKey(internal_key);
    const uint64_t hash = HashKey(user_key);
    const size_t i = index_.Probe(hash, KeyIs(user_key));
    const char*& newest = index_.at(i).entry;
    if (newest == nullptr) {
      index_.Insert(i, hash, entry);
    } else if (InternalKeyTag(internal_key) > InternalKeyTag(EntryInternalKey(newest))) {
      newest = entry;
    }
  }

  void Prefetch(std::span<const std::string_view> user_keys) const {
    index_.Prefetch(user_keys, HashKey, kPrefetchedEntryBytes);
  }

  size_t size() const { return index_.size(); }

  // Charged to the write buffer: the table at its fullest, two buckets per entry. (Its real
  // size doubles in steps; charging that step would seal a memtable right after it grows.)
  size_t charged_bytes() const { return index_.size() * 2 * sizeof(Bucket); }
  void Release() { index_.Clear(); }

 private:
  using Bucket = PointerHashIndex<const char>::Bucket;
  PointerHashIndex<const char> index_;
};

}  // namespace

class IndexedSkipListFactory::Rep : public BytewiseSkipListRep {
 public:
  Rep(IndexedSkipListFactory* factory, const KeyComparator& rocksdb_order,
      rocksdb::Allocator* allocator)
      : BytewiseSkipListRep(rocksdb_order, allocator), factory_(factory) {
    factory_->SetWritable(this);
  }
  ~Rep() override { factory_->ClearWritable(this); }

  // (RocksDB's hints serve its own list: SpliceFor gives this one's.)
  void Insert(KeyHandle handle) override { InsertKey(handle); }
  bool InsertKey(KeyHandle handle) override {
    if (!InsertFrom(handle, SpliceFor(handle))) return false;
    Index(handle);
    return true;
  }
  void InsertWithHint(KeyHandle handle, void** /*hint*/) override { InsertKey(handle); }
  bool InsertKeyWithHint(KeyHandle handle, void** /*hint*/) override { return InsertKey(handle); }

  void MarkReadOnly() override {
    factory_->ClearWritable(this);
    index_.Release();  // a sealed memtable is never updated again
    index_bytes_.store(0, std::memory_order_relaxed);
  }

  size_t ApproximateMemoryUsage() override { return index_bytes_.load(std::memory_order_relaxed); }

  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override;

  const char* FindNewest(std::string_view user_key) const { return index_.Find(user_key); }
  bool InPlaceUpdatesSuspended() const { return factory_->InPlaceUpdatesSuspended(); }
  size_t distinct_user_keys() const { return index_.size(); }
  void PrefetchForWrite(std::span<const std::string_view> user_keys) {
    index_.Prefetch(user_keys);
    // A key the memtable does not hold yet will be an insert. Its search through the
    // skiplist, some 25 nodes that a large memtable mostly does not have in the CPU cache, is
    // a write's largest cost: those searches go together here, and the inserts start where
    // they ended.
    search_keys_.clear();
    search_key_bytes_.clear();
    for (std::string_view user_key : user_keys) {
      if (index_.Find(user_key) != nullptr) continue;
      const size_t offset = search_key_bytes_.size();
      AppendKeyBeforeAllVersions(user_key, &search_key_bytes_);
      search_keys_.emplace_back(nullptr, search_key_bytes_.size() - offset);
    }
    // The slices point into the bytes once these no longer move.
    const char* bytes = search_key_bytes_.data();
    for (Slice& key : search_keys_) {
      key = Slice(bytes, key.size());
      bytes += key.size();
    }
    splices_.resize(search_keys_.size());
    list().SearchTogether(search_keys_, splices_.data());
    next_search_ = 0;
  }
  using BytewiseSkipListRep::list;

 private:
  // The splice PrefetchForWrite found for this entry's user key, if any. Inserts come in the
  // order the batch's keys were searched; a key written twice in one batch was searched twice
  // and inserted once, so a few searches may be passed over.
  const MemtableSkipList::Splice* SpliceFor(KeyHandle handle) {
    constexpr size_t kLookAhead = 8;
    const std::string_view user_key =
        InternalKeyUserKey(EntryInternalKey(static_cast<const char*>(handle)));
    const size_t end = std::min(search_keys_.size(), next_search_ + kLookAhead);
    for (size_t i = next_search_; i < end; ++i) {
      if (InternalKeyUserKey(search_keys_[i]) == user_key) {
        next_search_ = i + 1;
        return &splices_[i];
      }
    }
    return nullptr;
  }

  void Index(KeyHandle handle) {
    const auto* entry = static_cast<const char*>(handle);
    index_.Add(entry);
    factory_->NoteInserted(InternalKeyUserKey(EntryInternalKey(entry)));
    index_bytes_.store(index_.charged_bytes(), std::memory_order_relaxed);
  }

  IndexedSkipListFactory* factory_;
  NewestEntryIndex index_;
  // PrefetchForWrite's searches (writing thread only): the keys and where each ended.
  std::vector<Slice> search_keys_;
  std::string search_key_bytes_;
  std::vector<MemtableSkipList::Splice> splices_;
  size_t next_search_ = 0;
  std::atomic<size_t> index_bytes_{0};  // ApproximateMemoryUsage may run on any thread
};

namespace {

// Seek finds the target's user key through the index (one probe), or nothing: the whole user
// key is this iterator's "prefix". Anything else (Next, Prev, the other seeks, a target older
// than the key's newest entry) continues on a skiplist iterator positioned the same way.
class UserKeyIterator final : public MemTableRep::Iterator {
 public:
  explicit UserKeyIterator(IndexedSkipListFactory::Rep* rep) : rep_(rep) {}

  // MemTable::Update asks for an iterator for every in-place update and deletes it at once:
  // each thread keeps the last one's memory for its next, so an update allocates nothing.
  static void* operator new(size_t size) {
    void* spare = std::exchange(spare_memory.block, nullptr);
    return spare != nullptr ? spare : ::operator new(size);
  }
  static void operator delete(void* memory) {
    if (spare_memory.block == nullptr) {
      spare_memory.block = memory;
    } else {
      ::operator delete(memory);
    }
  }

  bool Valid() const override { return on_list_ ? list_iter_->Valid() : found_ != nullptr; }
  const char* key() const override { return on_list_ ? list_iter_->key() : found_; }

  void Seek(const Slice& internal_key, const char* memtable_key) override {
    on_list_ = false;
    // RocksDB seeks here to update in place (MemTable::Update; see GetDynamicPrefixIterator):
    // finding nothing makes it add a new entry instead.
    if (rep_->InPlaceUpdatesSuspended()) {
      found_ = nullptr;
      return;
    }
    found_ = rep_->FindNewest(InternalKeyUserKey(internal_key));
    // Internal keys of one user key sort newest first: the newest entry is the first at or
    // after the target unless it is newer than the target itself.
    if (found_ != nullptr &&
        InternalKeyTag(EntryInternalKey(found_)) > InternalKeyTag(internal_key)) {
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
    if (list_iter_ == nullptr) list_iter_.reset(rep_->GetIterator(nullptr));
    return list_iter_.get();
  }
  // Positions the skiplist iterator on the entry the index found.
  void MoveToList() {
    if (on_list_) return;
    List()->Seek(EntryInternalKey(found_), found_);
    on_list_ = true;
  }

  struct SpareMemory {
    void* block = nullptr;
    ~SpareMemory() { ::operator delete(block); }
  };
  static thread_local SpareMemory spare_memory;

  IndexedSkipListFactory::Rep* rep_;
  const char* found_ = nullptr;
  bool on_list_ = false;
  std::unique_ptr<MemTableRep::Iterator> list_iter_;
};

thread_local UserKeyIterator::SpareMemory UserKeyIterator::spare_memory;

}  // namespace

MemTableRep::Iterator* IndexedSkipListFactory::Rep::GetDynamicPrefixIterator(
    rocksdb::Arena* arena) {
  // An iterator RocksDB wants in its arena is the skiplist's own (whose Seek is exact, which
  // the prefix contract allows): see MemtableSkipList::Iterator.
  if (arena != nullptr) return GetIterator(arena);
  return new UserKeyIterator(this);
}

rocksdb::MemTableRep* IndexedSkipListFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& compare, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* /*transform*/, rocksdb::Logger* /*logger*/) {
  return new Rep(this, compare, allocator);
}

std::shared_ptr<void> IndexedSkipListFactory::SuspendInPlaceUpdates(
    std::shared_ptr<IndexedSkipListFactory> factory) {
  ++factory->in_place_suspensions_;
  // A null pointer's deleter still runs: the handle's last copy resumes.
  return {nullptr, [factory = std::move(factory)](void*) { --factory->in_place_suspensions_; }};
}

void IndexedSkipListFactory::PrefetchForUpdate(std::span<const std::string_view> user_keys) {
  std::lock_guard lock(writable_mu_);
  if (writable_ != nullptr) writable_->PrefetchForWrite(user_keys);
}

std::optional<std::vector<std::string>> IndexedSkipListFactory::WritableUserKeys() {
  std::lock_guard lock(writable_mu_);
  if (writable_ == nullptr) return std::nullopt;
  std::vector<std::string> keys;
  keys.reserve(writable_->distinct_user_keys());
  for (const char* entry = writable_->list().First(); entry != nullptr;
       entry = MemtableSkipList::Next(entry)) {
    // Entries sort by user key, so a key's versions are neighbours.
    const std::string_view user_key = InternalKeyUserKey(EntryInternalKey(entry));
    if (keys.empty() || keys.back() != user_key) keys.emplace_back(user_key);
  }
  return keys;
}

std::vector<std::string> IndexedSkipListFactory::SampleWritableUserKeys(uint64_t entries,
                                                                        uint64_t count) {
  std::lock_guard lock(writable_mu_);
  std::vector<std::string> keys;
  if (writable_ == nullptr || entries == 0 || count == 0) return keys;
  std::unordered_set<const char*> sample;
  writable_->UniqueRandomSample(entries, count, &sample);
  for (const char* entry : sample) keys.emplace_back(InternalKeyUserKey(EntryInternalKey(entry)));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

void IndexedSkipListFactory::NoteInserted(std::string_view user_key) {
  if (user_key > largest_user_key_) largest_user_key_.assign(user_key);
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
