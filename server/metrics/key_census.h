#pragma once

// Key counts for /metrics and the status page. Counting exactly iterates the key space on the
// loop thread, so it stops past kMaxExactKeys records (Engine::CountKeysUpTo) and runs at most
// once per refresh interval; for a larger database only RocksDB's estimate is known. (The
// estimate alone cannot decide: it ignores range deletions, so after a FLUSHALL it still
// counts every key removed until compaction drops them.)

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
  bool counted_ = false;
  std::optional<storage::Engine::KeyCounts> exact_;
  std::chrono::steady_clock::time_point counted_at_{};
};

}  // namespace sluice::server
