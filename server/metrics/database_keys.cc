#include "server/metrics/database_keys.h"

#include <optional>

#include "server/metrics/key_census.h"

namespace sluice::server {

namespace {

// RocksDB's estimate (records, less two per tombstone) counts a key once more for each of its
// older versions not yet compacted away: a database it puts past this many records is no
// candidate for an exact count, which would read 10,000 records (5 ms of the loop) to find out.
constexpr uint64_t kNotCountedPastEstimate = 4 * KeyCensus::kMaxExactKeys;

}  // namespace

std::vector<DatabaseKeys> KeysPerDatabase(storage::Engine& engine, int64_t now_ms) {
  std::vector<DatabaseKeys> found;
  for (int db : engine.Databases()) {
    storage::DatabaseScope in_it(engine, db);
    std::optional<storage::Engine::KeyCounts> exact;
    if (engine.GetKeyspaceIntProperty("rocksdb.estimate-num-keys") <= kNotCountedPastEstimate) {
      auto counted = engine.CountKeysUpTo(KeyCensus::kMaxExactKeys, now_ms);
      if (!counted.ok()) continue;
      exact = *counted;
    }
    auto counts = exact ? StatusOr<storage::Engine::KeyCounts>(*exact) : engine.EstimateKeys();
    if (!counts.ok() || counts->keys == 0) continue;
    found.push_back({db, *counts, !exact.has_value()});
  }
  return found;
}

}  // namespace sluice::server
