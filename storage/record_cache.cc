#include "storage/record_cache.h"

#include <cstring>
#include <functional>
#include <new>

namespace sluice::storage {

namespace {
constexpr size_t kInitialBuckets = 1024;
}  // namespace

RecordCache::~RecordCache() { Clear(); }

uint64_t RecordCache::HashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

RecordCache::Entry* RecordCache::NewEntry(std::string_view key, uint64_t hash,
                                          size_t value_capacity) {
  void* memory = ::operator new(sizeof(Entry) + key.size() + value_capacity);
  auto* e = new (memory) Entry{
      hash, static_cast<uint32_t>(key.size()), 0, static_cast<uint32_t>(value_capacity), 0, false,
      false};
  if (!key.empty()) std::memcpy(e->key(), key.data(), key.size());  // data() may be null
  return e;
}

size_t RecordCache::Probe(std::string_view key, uint64_t hash) const {
  const size_t mask = buckets_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Bucket& b = buckets_[i];
    if (b.entry == nullptr) return i;
    if (b.hash == hash && b.entry->key_view() == key) return i;
  }
}

std::optional<RecordCache::Hit> RecordCache::Find(std::string_view key) {
  Entry* e = buckets_.empty() ? nullptr : buckets_[Probe(key, HashOf(key))].entry;
  if (e == nullptr) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  e->referenced = true;
  return Hit{e->absent, {e->value(), e->value_size}};
}

void RecordCache::Put(std::string_view key, std::string_view value) {
  if (value.size() > kMaxValueBytes) {
    Erase(key);
    return;
  }
  Store(key, value, /*absent=*/false);
}

void RecordCache::PutAbsent(std::string_view key) { Store(key, {}, /*absent=*/true); }

void RecordCache::Store(std::string_view key, std::string_view value, bool absent) {
  if (capacity_ == 0) return;
  if ((ring_.size() + 1) * 2 > buckets_.size()) Grow();
  const uint64_t hash = HashOf(key);
  const size_t i = Probe(key, hash);
  Entry* e = buckets_[i].entry;
  if (e == nullptr) {
    e = NewEntry(key, hash, value.size());
    // A new entry starts unreferenced: a key written once and never read again goes first.
    e->ring_pos = static_cast<uint32_t>(ring_.size());
    ring_.push_back(e);
    buckets_[i] = {hash, e};
  } else {
    bytes_ -= Charge(*e);
    e->referenced = true;
    if (value.size() > e->value_capacity) {  // a limiter's state keeps its size: rare
      Entry* bigger = NewEntry(key, hash, value.size());
      bigger->ring_pos = e->ring_pos;
      bigger->referenced = true;
      ring_[e->ring_pos] = bigger;
      buckets_[i].entry = bigger;
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

void RecordCache::Grow() {
  std::vector<Bucket> old = std::move(buckets_);
  buckets_.assign(old.empty() ? kInitialBuckets : old.size() * 2, Bucket{});
  const size_t mask = buckets_.size() - 1;
  for (const Bucket& b : old) {
    if (b.entry == nullptr) continue;
    size_t i = b.hash & mask;
    while (buckets_[i].entry != nullptr) i = (i + 1) & mask;
    buckets_[i] = b;
  }
}

void RecordCache::Erase(std::string_view key) {
  if (buckets_.empty()) return;
  const size_t i = Probe(key, HashOf(key));
  if (buckets_[i].entry != nullptr) Remove(i);
}

void RecordCache::Remove(size_t i) {
  Entry* e = buckets_[i].entry;
  bytes_ -= Charge(*e);
  Entry* last = ring_.back();
  ring_[e->ring_pos] = last;
  last->ring_pos = e->ring_pos;
  ring_.pop_back();
  ::operator delete(e);
  // Backward-shift deletion: pull later entries of the probe run into the hole unless their
  // home bucket lies after the hole (cyclically), so no lookup ever stops at a false gap.
  const size_t mask = buckets_.size() - 1;
  for (size_t j = (i + 1) & mask; buckets_[j].entry != nullptr; j = (j + 1) & mask) {
    const size_t home = buckets_[j].hash & mask;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    buckets_[i] = buckets_[j];
    i = j;
  }
  buckets_[i] = Bucket{};
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
    Remove(Probe(e->key_view(), e->hash));
  }
}

void RecordCache::Clear() {
  for (Entry* e : ring_) ::operator delete(e);
  ring_.clear();
  buckets_.clear();
  buckets_.shrink_to_fit();
  hand_ = 0;
  bytes_ = 0;
}

}  // namespace sluice::storage
