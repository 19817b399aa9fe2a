#pragma once

// Key counts for /metrics and the status page. Counting exactly iterates the whole key space
// on the loop thread (Engine::CountKeys), so it is done only while RocksDB's estimate says the
// database is small, and at most once per refresh interval; for a larger database only the
// estimate is known (INFO keyspace still counts exactly, on demand).

#include <chrono>
#include <cstdint>
#include <optional>

#include "storage/engine.h"

namespace sluice::server {

class KeyCensus {
 public:
  static constexpr uint64_t kMaxExactKeys = 10000;
  static constexpr std::chrono::seconds kRefresh{30};

  struct Figures {
    uint64_t estimated = 0;  // rocksdb.estimate-num-keys of the key space
    std::optional<storage::Engine::KeyCounts> exact;
  };

  // `now_ms` is the server clock (what counts as expired).
  Figures Read(storage::Engine& engine, int64_t now_ms);

 private:
  std::optional<storage::Engine::KeyCounts> exact_;
  std::chrono::steady_clock::time_point counted_at_{};
};

}  // namespace sluice::server
