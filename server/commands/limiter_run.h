#pragma once

// What the limiter command families share: the COST/BLOCK options and running one request,
// at once or parked in its key's BLOCK queue.

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "common/status.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/limiter_call.h"

namespace sluice::server {

struct LimiterOptions {
  int64_t cost = 1;
  std::optional<int64_t> block_ms;
};

// [COST n] [BLOCK ms], each at most once, in any order.
StatusOr<LimiterOptions> ParseLimiterOptions(Args args);

// Decides `call` on `key` now and replies, or parks it (BLOCK ms): then the reply is written
// when the queue answers. Counts the decision in the limiter statistics.
void RunLimiter(CommandContext& ctx, std::string_view key, std::unique_ptr<LimiterCall> call,
                std::optional<int64_t> block_ms);

}  // namespace sluice::server
