#pragma once

// Redis 7.0's fixed expiry time for a script or an EXEC: while it runs, its keys expire as of
// its start, so compactions that start meanwhile must drop nothing it still reads as live
// (storage::Engine::SwapFixedExpiryTime). A script run by an EXEC puts the EXEC's back.

#include <cstdint>
#include <optional>

#include "storage/engine.h"

namespace sluice::server {

class FixedExpiryScope {
 public:
  FixedExpiryScope(storage::Engine* engine, int64_t ms)
      : engine_(engine),
        previous_(engine != nullptr ? engine->SwapFixedExpiryTime(ms) : std::nullopt) {}
  ~FixedExpiryScope() {
    if (engine_ != nullptr) engine_->SwapFixedExpiryTime(previous_);
  }
  FixedExpiryScope(const FixedExpiryScope&) = delete;
  FixedExpiryScope& operator=(const FixedExpiryScope&) = delete;

 private:
  storage::Engine* engine_;
  std::optional<int64_t> previous_;
};

}  // namespace sluice::server
