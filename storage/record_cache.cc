#include "storage/record_cache.h"

#include <cstring>
#include <new>

#include "common/key_hash.h"

namespace sluice::storage {

RecordCache::~RecordCache() { Clear(); }

RecordCache::Entry* RecordCache::NewEntry(std::string_view key, uint8_t space, uint64_t hash,
                                          size_t value_capacity) {
  void* memory = ::operator new(sizeof(Entry) + key.size() + value_capacity);
  auto* e = new (memory) Entry{
      hash, static_cast<uint32_t>(key.size()), 0, static_cast<uint32_t>(value_capacity), 0, false,
      false, space};
  if (!key.empty()) std::memcpy(e->key(), key.data(), key.size());  // data() may be null
  return e;
}

uint64_t RecordCache::Hash(std::string_view key, uint8_t space) {
  // Space 0's hash is the key's alone, as Prefetch computes it.
  return HashKey(key) ^ (space * 0x9E3779B97F4A7C15ull);
}

size_t RecordCache::Probe(std::string_view key, uint8_t space, uint64_t hash) const {
  return index_.Probe(
      hash, [key, space](Entry* entry) { return entry->space == space && entry->key_view() == key; });
}

std::optional<RecordCache::Hit> RecordCache::Find(std::string_view key, uint8_t space) {
  Entry* e = index_.empty() ? nullptr : index_.at(Probe(key, space, Hash(key, space))).entry;
  if (e == nullptr) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  e->referenced = true;
  return Hit{e->absent, {e->value(), e->value_size}};
}

void RecordCache::Prefetch(std::span<const std::string_view> keys) const {
  // The entry's header and key (compared), and a small value (read, then rewritten by a
  // limiter's commit).
  constexpr size_t kPrefetchedEntryBytes = 128;
  index_.Prefetch(keys, HashKey, kPrefetchedEntryBytes);
}

void RecordCache::Put(std::string_view key, std::string_view value, uint8_t space) {
  if (value.size() > kMaxValueBytes) {
    Erase(key, space);
    return;
  }
  Store(key, space, value, /*absent=*/false);
}

void RecordCache::PutAbsent(std::string_view key, uint8_t space) {
  Store(key, space, {}, /*absent=*/true);
}

void RecordCache::Store(std::string_view key, uint8_t space, std::string_view value, bool absent) {
  if (capacity_ == 0) return;
  index_.Reserve(index_.size() + 1);
  const uint64_t hash = Hash(key, space);
  const size_t i = Probe(key, space, hash);
  Entry* e = index_.at(i).entry;
  if (e == nullptr) {
    e = NewEntry(key, space, hash, value.size());
    // A new entry starts unreferenced: a key written once and never read again goes first.
    e->ring_pos = static_cast<uint32_t>(ring_.size());
    ring_.push_back(e);
    index_.Insert(i, hash, e);
  } else {
    bytes_ -= Charge(*e);
    e->referenced = true;
    if (value.size() > e->value_capacity) {  // a limiter's state keeps its size: rare
      Entry* bigger = NewEntry(key, space, hash, value.size());
      bigger->ring_pos = e->ring_pos;
      bigger->referenced = true;
      ring_[e->ring_pos] = bigger;
      index_.at(i).entry = bigger;
      ::operator delete(e);
      e = bigger;
    }
  }
  if (!value.empty()) std::memcpy(e->value(), value.data(), value.size());  // absent: null data
  e->value_size = static_cast<uint32_t>(value.size());
  e->absent = absent;
  bytes_ += Charge(*e);
  EvictToCapacity();
}

void RecordCache::Erase(std::string_view key, uint8_t space) {
  if (index_.empty()) return;
  const size_t i = Probe(key, space, Hash(key, space));
  if (index_.at(i).entry != nullptr) Remove(i);
}

void RecordCache::Remove(size_t i) {
  Entry* e = index_.at(i).entry;
  bytes_ -= Charge(*e);
  Entry* last = ring_.back();
  ring_[e->ring_pos] = last;
  last->ring_pos = e->ring_pos;
  ring_.pop_back();
  ::operator delete(e);
  index_.Remove(i);
}

void RecordCache::SetCapacity(size_t capacity_bytes) {
  capacity_ = capacity_bytes;
  EvictToCapacity();
  // The evicted entries' buckets and ring slots go back too, not only the entries.
  index_.ShrinkToFit();
  ring_.shrink_to_fit();
}

void RecordCache::EvictToCapacity() {
  // Two sweeps clear every reference bit, so this always terminates.
  while (bytes_ > capacity_ && !ring_.empty()) {
    if (hand_ >= ring_.size()) hand_ = 0;
    Entry* e = ring_[hand_];
    if (e->referenced) {
      e->referenced = false;
      ++hand_;
      continue;
    }
    // The last entry moves into this position and is examined next.
    Remove(Probe(e->key_view(), e->space, e->hash));
  }
}

void RecordCache::Clear() {
  for (Entry* e : ring_) ::operator delete(e);
  ring_.clear();
  ring_.shrink_to_fit();
  index_.Clear();
  hand_ = 0;
  bytes_ = 0;
}

}  // namespace sluice::storage
