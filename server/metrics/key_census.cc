#include "server/metrics/key_census.h"

#include <algorithm>
#include <vector>

namespace sluice::server {

KeyCensus::Figures KeyCensus::Read(storage::Engine& engine, int64_t now_ms) {
  // Every database's keys together.
  Figures figures;
  const std::vector<int> dbs = engine.Databases();
  for (int db : dbs) {
    storage::DatabaseScope in_it(engine, db);
    figures.estimated += engine.GetKeyspaceIntProperty("rocksdb.estimate-num-keys");
  }
  auto now = std::chrono::steady_clock::now();
  if (!counted_ || now - counted_at_ >= kRefresh) {
    exact_ = storage::Engine::KeyCounts{};
    for (int db : dbs) {
      storage::DatabaseScope in_it(engine, db);
      const uint64_t left = exact_ ? kMaxExactKeys - std::min(exact_->keys, kMaxExactKeys) : 0;
      auto counts = engine.CountKeysUpTo(left, now_ms);
      if (!counts.ok() || !counts->has_value()) {
        exact_ = std::nullopt;
        break;
      }
      exact_->keys += (*counts)->keys;
      exact_->expires += (*counts)->expires;
      exact_->ttl_sum_ms += (*counts)->ttl_sum_ms;
    }
    counted_ = true;
    counted_at_ = now;
  }
  figures.exact = exact_;
  return figures;
}

}  // namespace sluice::server
