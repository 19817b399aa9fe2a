#pragma once

// A bounded in-memory cache of the key space's committed values (encoded records, as stored
// in the metadata column family) and of keys known to be absent, in front of RocksDB, so a
// limiter decision or a GET on a hot key needs no RocksDB read.
//
// It holds committed state only, and stays exactly equal to what RocksDB would return:
// - the engine fills it from its own database reads, and updates every key of a batch right
//   after that batch's successful commit (never for staged writes, which reads find in the
//   stage first; a failed or discarded batch leaves it untouched);
// - FLUSHALL clears it;
// - expiry needs no invalidation: a cached record is decoded and checked with IsExpiredAt on
//   every read, as a record read from RocksDB is, and the compaction filter only removes
//   records that are already expired (a read sees them as absent either way).
// Values larger than kMaxValueBytes are not cached (a write of one evicts the key).
//
// Keys belong to a space (the engine's: a database's column family), so that the same key in
// two databases is two entries; space 0's hashes are the key's alone.
//
// Eviction is CLOCK (second chance): a store or a hit marks the key's bucket; the hand walks
// the table's buckets (a few neighbours at a time, in a scattered order), clearing marks, and
// evicts the first unmarked entry it meets (never the one just stored), a store walking a
// bounded stretch of it (kVisitsPerStore). While the table moves to another size in steps,
// the hand walks the entries not yet moved first, in the move's order: it evicts the
// unmarked ones where they are and moves the marked ones, marks and all.
// No list of entries costs memory of its own, and the walk reads the marks a cache line at a
// time: an entry is touched only to be freed. Single-threaded (the loop thread).
//
// Layout, for the fewest cache misses per lookup (every request does one or two): an
// open-addressing table of (hash, entry pointer) buckets, and one allocation per entry holding
// a 12-byte header, the key and the value together. A lookup touches one bucket and one entry.
// Every byte an entry saves is more keys held in the same memory.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/pointer_hash_index.h"

namespace sluice::storage {

class RecordCache {
 public:
  static constexpr size_t kMaxValueBytes = 4096;
  // Bookkeeping charged per entry on top of its key and value bytes, so that the capacity is
  // about the memory the cache takes: the entry header (12), one and a third to two and two
  // thirds buckets (21 to 43 bytes: the table is three eighths to three quarters full) and the
  // allocator's rounding (0 to 15). 49 is the middle of what was measured: the real memory
  // stays within about 11% of what is charged, over the table's whole range of fullness.
  static constexpr size_t kEntryOverheadBytes = 49;

  // `capacity_bytes` 0 disables the cache (Find always misses, nothing is stored).
  explicit RecordCache(size_t capacity_bytes) : capacity_(capacity_bytes), limit_(capacity_bytes) {}
  ~RecordCache();
  RecordCache(const RecordCache&) = delete;
  RecordCache& operator=(const RecordCache&) = delete;

  struct Hit {
    bool absent = false;     // the key is known not to exist
    std::string_view value;  // the encoded record; valid until the next change to the cache
  };
  std::optional<Hit> Find(std::string_view key, uint8_t space = 0);
  // Starts loading what looking up `keys` of space 0 will touch into the CPU cache (a hint).
  void Prefetch(std::span<const std::string_view> keys) const;

  void Put(std::string_view key, std::string_view value, uint8_t space = 0);
  void PutAbsent(std::string_view key, uint8_t space = 0);
  void Erase(std::string_view key, uint8_t space = 0);
  void Clear();

  size_t entries() const { return index_.size(); }
  size_t bytes() const { return bytes_; }
  size_t capacity() const { return capacity_; }
  // The table's own memory (charged to the entries, at kEntryOverheadBytes).
  size_t bookkeeping_bytes() const { return index_.bytes(); }
  // The longest probe run in the table (a health check of the hash table, for tests).
  size_t longest_probe_run() const { return index_.LongestRun(); }
  // A smaller capacity evicts up to kEvictionsPerStep entries at once, and the rest in
  // TrimStep's steps: freeing millions of entries in one go stalled the loop for seconds
  // (about 0.2 s a million). Meanwhile the cache holds more than capacity(), never more than
  // it held (but for kVisitsPerStore's few), and a new entry still evicts an old one. 0 stops
  // it storing once it is empty.
  void SetCapacity(size_t capacity_bytes);
  // Evicts up to `max_evictions` entries toward capacity(); there, gives the table's spare
  // buckets back, moving the entries left to a smaller table in steps of
  // kBucketsMovedPerEviction buckets per eviction allowed. False once nothing is left to do.
  bool TrimStep(size_t max_evictions);
  static constexpr size_t kEvictionsPerStep = 4096;  // about a millisecond
  static constexpr size_t kBucketsMovedPerEviction = 8;
  // A store's eviction visits at most so many buckets (tens of microseconds). Finding an
  // unmarked entry can take a whole lap of the hand: in a cache that just filled every entry
  // is marked, and that first eviction's lap over 4 million buckets paused the loop 85 ms.
  // Until the lap is done, each store adds its entry over the capacity: at most the buckets
  // over kVisitsPerStore entries (about 1,000 at the default size, 0.05% of it).
  static constexpr size_t kVisitsPerStore = 4096;
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  void ResetCounters() { hits_ = misses_ = 0; }

 private:
  // Followed in the same allocation by the key's bytes, then room for value_capacity bytes.
  // (The key's hash is in its bucket.)
  struct Entry {
    uint32_t key_size;
    uint16_t value_size;  // values are at most kMaxValueBytes
    uint16_t value_capacity;
    bool absent;
    uint8_t space;

    char* key() { return reinterpret_cast<char*>(this + 1); }
    char* value() { return key() + key_size; }
    std::string_view key_view() { return {key(), key_size}; }
  };
  static size_t Charge(const Entry& e) {
    return e.key_size + e.value_capacity + kEntryOverheadBytes;
  }
  static Entry* NewEntry(std::string_view key, uint8_t space, size_t value_capacity);
  static uint64_t Hash(std::string_view key, uint8_t space);
  // The bucket holding `key`, or the empty bucket where it would go. Needs a non-empty table.
  size_t Probe(std::string_view key, uint8_t space, uint64_t hash) const;
  void Store(std::string_view key, uint8_t space, std::string_view value, bool absent);
  // Removes the entry in bucket `i` (from the table and the byte count).
  void Remove(size_t i);
  // Frees an entry already out of the table, and takes it off the byte count.
  void Discard(Entry* e);
  // Who evicts: a store, to make room for its entry, or a step of a trim to a new capacity.
  enum class Evictor { kStore, kTrim };
  // Evicts until bytes_ <= `limit`, `max_evictions` entries are gone or `max_visits` buckets
  // were visited (a walk of the table being moved from goes on to the end of a probe run),
  // never `kept` (the entry just stored) unless it alone is left. While `second_chances`, a
  // marked entry is unmarked and passed over. Returns the buckets visited.
  size_t Evict(Evictor evictor, size_t limit, const Entry* kept, size_t max_evictions,
               size_t max_visits, bool second_chances);
  // Buckets stores' evictions visited since a store last left the cache within its limit.
  size_t visits_over_limit_ = 0;

  size_t capacity_;
  // What a store may fill the cache up to: capacity_, or during a shrink what the cache still
  // holds (TrimStep lowers it as it evicts).
  size_t limit_;
  bool trimming_ = false;   // a shrink is evicting, its smaller table still to come
  size_t trim_visits_ = 0;  // buckets its steps have visited
  size_t bytes_ = 0;
  // Fuller than the default half: a hit's probe run still ends in its first cache line or
  // two, and every bucket saved is memory for more entries.
  static constexpr size_t kMaxLoadPercent = 75;
  using Index = PointerHashIndex<Entry, kMaxLoadPercent>;
  // Frees every entry of `index` and empties it.
  static void FreeEntries(Index& index);
  Index index_;
  // CLOCK's hand: a step of its sweep, which visits every bucket once. It walks the table a
  // group of neighbouring buckets (a cache line or two) at a time, the groups in a scattered
  // order: evictions must not gather in one stretch of the table, or the buckets ahead of a
  // hand walking in order, the longest unswept, fill up into one probe run that every
  // lookup landing in it walks (new keys at 1,000 a second instead of a million).
  size_t HandBucket() const;
  // The buckets a whole lap of the hand visits: both tables while entries move (the move's
  // walk over the old one is the hand's first turn). After a lap without success, every mark
  // has been cleared once, and marks stop keeping entries.
  size_t LapBuckets() const { return index_.bucket_count() + index_.old_bucket_count(); }
  static constexpr size_t kHandGroupBuckets = 8;
  static constexpr size_t kHandGroupStride = 0x9E3779B97F4A7C15ull;  // odd: a permutation
  size_t hand_ = 0;
  // Of a table being moved from, Evict walks at most so many buckets a round (to the end of a
  // run; 16 KB, a few microseconds), evicting its unmarked entries where they are: a shrink's
  // old table is sparse, and walking all of it at once was the pause.
  static constexpr size_t kBucketsMovedPerTurn = 1024;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace sluice::storage
