#include "server/metrics/key_census.h"

namespace sluice::server {

KeyCensus::Figures KeyCensus::Read(storage::Engine& engine, int64_t now_ms) {
  Figures figures;
  figures.estimated = engine.GetKeyspaceIntProperty("rocksdb.estimate-num-keys");
  auto now = std::chrono::steady_clock::now();
  if (!counted_ || now - counted_at_ >= kRefresh) {
    auto counts = engine.CountKeysUpTo(kMaxExactKeys, now_ms);
    exact_ = counts.ok() ? *counts : std::nullopt;
    counted_ = true;
    counted_at_ = now;
  }
  figures.exact = exact_;
  return figures;
}

}  // namespace sluice::server
