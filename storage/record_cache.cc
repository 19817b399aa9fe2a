#include "storage/record_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <utility>

#include "common/background_free.h"
#include "common/key_hash.h"

namespace sluice::storage {

RecordCache::~RecordCache() { Clear(); }

RecordCache::Entry* RecordCache::NewEntry(std::string_view key, uint8_t space,
                                          size_t value_capacity) {
  void* memory = ::operator new(sizeof(Entry) + key.size() + value_capacity);
  auto* e = new (memory) Entry{static_cast<uint32_t>(key.size()), 0,
                               static_cast<uint16_t>(value_capacity), false, space};
  if (!key.empty()) std::memcpy(e->key(), key.data(), key.size());  // data() may be null
  return e;
}

uint64_t RecordCache::Hash(std::string_view key, uint8_t space) {
  // Space 0's hash is the key's alone, as Prefetch computes it.
  return HashKey(key) ^ (space * 0x9E3779B97F4A7C15ull);
}

size_t RecordCache::Probe(std::string_view key, uint8_t space, uint64_t hash) const {
  return index_.Probe(hash, [key, space](Entry* entry) {
    return entry->space == space && entry->key_view() == key;
  });
}

std::optional<RecordCache::Hit> RecordCache::Find(std::string_view key, uint8_t space) {
  if (!index_.empty()) {
    const size_t i = Probe(key, space, Hash(key, space));
    if (Entry* e = index_.at(i).entry; e != nullptr) {
      ++hits_;
      index_.SetMarked(i, true);  // referenced
      return Hit{e->absent, {e->value(), e->value_size}};
    }
  }
  ++misses_;
  return std::nullopt;
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
  if (limit_ == 0) return;
  index_.Reserve(index_.size() + 1);
  const uint64_t hash = Hash(key, space);
  const size_t i = Probe(key, space, hash);
  Entry* e = index_.at(i).entry;
  if (e == nullptr) {
    e = NewEntry(key, space, value.size());
    index_.Insert(i, hash, e);
    // Marked, so that it lives at least one sweep of the hand wherever it lands in the table.
    index_.SetMarked(i, true);
  } else {
    bytes_ -= Charge(*e);
    index_.SetMarked(i, true);
    if (value.size() > e->value_capacity) {  // a limiter's state keeps its size: rare
      Entry* bigger = NewEntry(key, space, value.size());
      index_.at(i).entry = bigger;
      ::operator delete(e);
      e = bigger;
    }
  }
  if (!value.empty()) std::memcpy(e->value(), value.data(), value.size());  // absent: null data
  e->value_size = static_cast<uint16_t>(value.size());
  e->absent = absent;
  bytes_ += Charge(*e);
  if (bytes_ <= limit_) {
    visits_over_limit_ = 0;
    return;
  }
  // Once the hand has walked both tables without bringing the cache back within its limit, it
  // has cleared every mark, and a mark set since is a hit between two stores: it no longer
  // keeps its entry (the second lap of a store that walked on would have evicted it).
  const bool second_chances = visits_over_limit_ < LapBuckets();
  const size_t visits =
      Evict(Evictor::kStore, limit_, e, SIZE_MAX, kVisitsPerStore, second_chances);
  visits_over_limit_ = bytes_ <= limit_ ? 0 : visits_over_limit_ + visits;
}

void RecordCache::Erase(std::string_view key, uint8_t space) {
  if (index_.empty()) return;
  const size_t i = Probe(key, space, Hash(key, space));
  if (index_.at(i).entry != nullptr) Remove(i);
}

void RecordCache::Remove(size_t i) {
  Discard(index_.at(i).entry);
  index_.Remove(i);
}

void RecordCache::Discard(Entry* e) {
  bytes_ -= Charge(*e);
  ::operator delete(e);
}

void RecordCache::SetCapacity(size_t capacity_bytes) {
  capacity_ = capacity_bytes;
  visits_over_limit_ = 0;
  limit_ = std::max(capacity_, std::min(limit_, bytes_));
  if (limit_ > capacity_ && !trimming_) {
    trimming_ = true;
    trim_visits_ = 0;
  }
  TrimStep(kEvictionsPerStep);
}

bool RecordCache::TrimStep(size_t max_evictions) {
  // After the evictions, the entries left move to the smaller table in steps too.
  if (!trimming_) return index_.Move(max_evictions * kBucketsMovedPerEviction);
  // Between two steps, clients' reads and writes mark what they touch. Once the steps have
  // visited as many buckets as the tables have (every entry had its second chance; while
  // entries move, the old table's walk is among the visits), marks no longer keep an entry:
  // keys in use would hold the trim off for as long as they are used.
  const bool second_chances = trim_visits_ < LapBuckets();
  const size_t max_visits = max_evictions > SIZE_MAX / 8 ? SIZE_MAX : 8 * max_evictions;
  trim_visits_ +=
      Evict(Evictor::kTrim, capacity_, nullptr, max_evictions, max_visits, second_chances);
  limit_ = std::max(capacity_, bytes_);
  if (limit_ > capacity_) return true;
  trimming_ = false;
  // The evicted entries' buckets go back too, not only the entries.
  index_.ShrinkToFit();
  return index_.Move(max_evictions * kBucketsMovedPerEviction);
}

size_t RecordCache::HandBucket() const {
  const size_t groups = index_.bucket_count() / kHandGroupBuckets;
  const size_t group = (hand_ / kHandGroupBuckets * kHandGroupStride) & (groups - 1);
  return group * kHandGroupBuckets + hand_ % kHandGroupBuckets;
}

size_t RecordCache::Evict(Evictor evictor, size_t limit, const Entry* kept, size_t max_evictions,
                          size_t max_visits, bool second_chances) {
  size_t visits = 0;
  size_t evictions_left = max_evictions;
  const auto evicting = [&] {
    return bytes_ > limit && evictions_left > 0 && visits < max_visits && !index_.empty();
  };
  const auto evictable = [&](const Entry* e) { return e != kept || index_.size() == 1; };
  while (evicting()) {
    // While entries move to another table (a growth's or a shrink's steps), the move is the
    // hand's first turn, over entries not yet moved: an unmarked one is evicted where it is, a
    // marked one moves, mark and all, for the sweep below to give its second chance.
    // (Finishing the move first, for the hand to walk one table, paused a full cache 8 to
    // 17 ms at its first eviction after a shrink from millions of entries.)
    for (size_t turn = 0; index_.moving() && evicting() && turn < kBucketsMovedPerTurn;) {
      const size_t moved = index_.MoveDropping(1, [&](Entry* e, bool marked) {
        if (!evicting() || !evictable(e) || (second_chances && marked)) return false;
        Discard(e);
        --evictions_left;
        return true;
      });
      turn += moved;
      visits += moved;
    }
    // Two sweeps of the table in use; with a move under way they may find nothing to evict
    // (the entry just stored alone), and the next round moves more. A trim's step during a
    // move sweeps only this table's share of the round: the hand laps it once while the walk
    // passes over the old table once (two laps a round evicted read keys here while unread
    // ones waited there). A store keeps its two laps (within its visits), which find it an
    // entry soonest.
    size_t sweeps = 2 * index_.bucket_count();
    if (index_.moving() && evictor == Evictor::kTrim) {
      sweeps = std::max<size_t>(
          1, kBucketsMovedPerTurn * index_.bucket_count() / index_.old_bucket_count());
    }
    for (size_t steps = 0; steps < sweeps && evicting(); ++steps, ++visits) {
      if (hand_ >= index_.bucket_count()) hand_ = 0;
      const size_t i = HandBucket();
      const Entry* e = index_.at(i).entry;
      if (e == nullptr || !evictable(e)) {
        ++hand_;
        continue;
      }
      if (second_chances && index_.marked(i)) {
        index_.SetMarked(i, false);
        ++hand_;
        continue;
      }
      // Deleting shifts later entries of the probe run back: this bucket is examined again.
      Remove(i);
      --evictions_left;
    }
  }
  return visits;
}

void RecordCache::FreeEntries(Index& index) {
  index.FinishMoving();
  for (size_t i = 0; i < index.bucket_count(); ++i) ::operator delete(index.at(i).entry);
  index.Clear();
}

void RecordCache::Clear() {
  // Past a step's worth of entries the background thread frees them: two million took the
  // loop 148 ms (a FLUSHALL). Without the memory to hand them over, they are freed here.
  std::function<void()> task;
  if (index_.size() > kEvictionsPerStep) {
    try {
      auto held = std::make_shared<Index>();
      task = [held] { FreeEntries(*held); };
      *held = std::exchange(index_, Index());
    } catch (const std::bad_alloc&) {
    }
  }
  if (task) {
    RunInBackground(std::move(task));
  } else {
    FreeEntries(index_);
  }
  hand_ = 0;
  visits_over_limit_ = 0;
  bytes_ = 0;
  limit_ = capacity_;
  trimming_ = false;
}

}  // namespace sluice::storage
