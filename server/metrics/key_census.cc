#include "server/metrics/key_census.h"

namespace sluice::server {

KeyCensus::Figures KeyCensus::Read(storage::Engine& engine, int64_t now_ms) {
  Figures figures;
  figures.estimated = engine.GetKeyspaceIntProperty("rocksdb.estimate-num-keys");
  if (figures.estimated > kMaxExactKeys) {
    exact_.reset();
    return figures;
  }
  auto now = std::chrono::steady_clock::now();
  if (!exact_ || now - counted_at_ >= kRefresh) {
    auto counts = engine.CountKeys(now_ms);
    exact_.reset();
    if (counts.ok()) exact_ = *counts;
    counted_at_ = now;
  }
  figures.exact = exact_;
  return figures;
}

}  // namespace sluice::server
