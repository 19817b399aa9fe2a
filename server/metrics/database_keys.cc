#include "server/metrics/database_keys.h"

#include "server/metrics/key_census.h"

namespace sluice::server {

namespace {

// Past this many records by RocksDB's sound estimate, the count would give up anyway, and is
// not made. The estimate counts the live keys, plus at most one for each entry a walk passes
// without a live record in it (an older version, or a key's version under its tombstone).
// The count gives up past kMaxExactKeys records, or past kSkippedPerExaminedKey passed
// entries a record it may read, so an estimate above their sum means it would.
constexpr uint64_t kEstimateFirstAbove =
    KeyCensus::kMaxExactKeys + storage::kSkippedPerExaminedKey * KeyCensus::kMaxExactKeys;

bool SurelyTooManyToCount(storage::Engine& engine) {
  return engine.GetKeyspaceIntProperty("rocksdb.estimate-num-keys") > kEstimateFirstAbove &&
         engine.KeyEstimateIsSound();
}

}  // namespace

std::vector<DatabaseKeys> KeysPerDatabase(storage::Engine& engine, int64_t now_ms) {
  std::vector<DatabaseKeys> found;
  for (int db : engine.Databases()) {
    storage::DatabaseScope in_it(engine, db);
    StatusOr<std::optional<storage::Engine::KeyCounts>> exact =
        SurelyTooManyToCount(engine) ? std::optional<storage::Engine::KeyCounts>()
                                     : engine.CountKeysUpTo(KeyCensus::kMaxExactKeys, now_ms);
    if (!exact.ok()) continue;
    const bool estimated = !exact->has_value();
    auto counts = estimated ? engine.EstimateKeys() : StatusOr<storage::Engine::KeyCounts>(**exact);
    if (!counts.ok() || counts->keys == 0) continue;
    found.push_back({db, *counts, estimated});
  }
  return found;
}

}  // namespace sluice::server
