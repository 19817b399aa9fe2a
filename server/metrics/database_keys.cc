#include "server/metrics/database_keys.h"

#include "server/metrics/key_census.h"

namespace sluice::server {

std::vector<DatabaseKeys> KeysPerDatabase(storage::Engine& engine, int64_t now_ms) {
  std::vector<DatabaseKeys> found;
  for (int db : engine.Databases()) {
    storage::DatabaseScope in_it(engine, db);
    auto exact = engine.CountKeysUpTo(KeyCensus::kMaxExactKeys, now_ms);
    if (!exact.ok()) continue;
    const bool estimated = !exact->has_value();
    auto counts = estimated ? engine.EstimateKeys() : StatusOr<storage::Engine::KeyCounts>(**exact);
    if (!counts.ok() || counts->keys == 0) continue;
    found.push_back({db, *counts, estimated});
  }
  return found;
}

}  // namespace sluice::server
