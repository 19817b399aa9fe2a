#include "server/metrics/database_keys.h"

#include "server/metrics/key_census.h"

namespace sluice::server {

namespace {

// Past this many records by RocksDB's estimate, a sound estimate is reported without a count:
// ten times the count's bound, so that an estimate that counts each key up to ten times (its
// versions in files no compaction has merged yet) still leaves more than the count would take.
constexpr uint64_t kEstimateFirstAbove = 10 * KeyCensus::kMaxExactKeys;

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
