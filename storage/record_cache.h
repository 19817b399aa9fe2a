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
// Eviction is CLOCK (second chance): a hit only sets a bit. Single-threaded (the loop thread).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sluice::storage {

class RecordCache {
 public:
  static constexpr size_t kMaxValueBytes = 4096;
  // Bookkeeping charged per entry on top of its key and value bytes.
  static constexpr size_t kEntryOverheadBytes = 96;

  // `capacity_bytes` 0 disables the cache (Find always misses, nothing is stored).
  explicit RecordCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  struct Hit {
    bool absent = false;     // the key is known not to exist
    std::string_view value;  // the encoded record; valid until the next change to the cache
  };
  std::optional<Hit> Find(std::string_view key);

  void Put(std::string_view key, std::string_view value);
  void PutAbsent(std::string_view key);
  void Erase(std::string_view key);
  void Clear();

  size_t entries() const { return map_.size(); }
  size_t bytes() const { return bytes_; }
  size_t capacity() const { return capacity_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Slot {
    std::string value;
    uint32_t ring_pos = 0;
    bool absent = false;
    bool referenced = false;
  };
  using Map = std::unordered_map<std::string, Slot, Hash, std::equal_to<>>;
  using Node = Map::value_type;

  static size_t Charge(const Node& node) {
    return node.first.size() + node.second.value.size() + kEntryOverheadBytes;
  }
  void Store(std::string_view key, std::string_view value, bool absent);
  void Remove(Map::iterator it);
  void EvictToCapacity();

  size_t capacity_;
  size_t bytes_ = 0;
  Map map_;
  std::vector<Node*> ring_;  // every entry once; CLOCK's hand walks it
  size_t hand_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace sluice::storage
