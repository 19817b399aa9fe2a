#include "storage/record_cache.h"

namespace sluice::storage {

std::optional<RecordCache::Hit> RecordCache::Find(std::string_view key) {
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  it->second.referenced = true;
  return Hit{it->second.absent, it->second.value};
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
  auto it = map_.find(key);
  if (it != map_.end()) {
    bytes_ -= Charge(*it);
    it->second.value.assign(value);
    it->second.absent = absent;
    it->second.referenced = true;
    bytes_ += Charge(*it);
  } else {
    it = map_.emplace(std::string(key), Slot{}).first;
    Slot& slot = it->second;
    slot.value.assign(value);
    slot.absent = absent;
    // A new entry starts unreferenced: a key written once and never read again goes first.
    slot.ring_pos = static_cast<uint32_t>(ring_.size());
    ring_.push_back(&*it);
    bytes_ += Charge(*it);
  }
  EvictToCapacity();
}

void RecordCache::Erase(std::string_view key) {
  auto it = map_.find(key);
  if (it != map_.end()) Remove(it);
}

void RecordCache::Remove(Map::iterator it) {
  bytes_ -= Charge(*it);
  const uint32_t pos = it->second.ring_pos;
  Node* last = ring_.back();
  ring_[pos] = last;
  last->second.ring_pos = pos;
  ring_.pop_back();
  map_.erase(it);
}

void RecordCache::EvictToCapacity() {
  // Two sweeps clear every reference bit, so this always terminates.
  while (bytes_ > capacity_ && !ring_.empty()) {
    if (hand_ >= ring_.size()) hand_ = 0;
    Node* node = ring_[hand_];
    if (node->second.referenced) {
      node->second.referenced = false;
      ++hand_;
      continue;
    }
    // The last entry moves into this position and is examined next.
    Remove(map_.find(std::string_view(node->first)));
  }
}

void RecordCache::Clear() {
  map_.clear();
  ring_.clear();
  hand_ = 0;
  bytes_ = 0;
}

}  // namespace sluice::storage
