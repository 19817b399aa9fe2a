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
#include "server/keyspace_events.h"
#include "server/limiter_call.h"

namespace sluice::server {

struct LimiterOptions {
  int64_t cost = 1;
  std::optional<int64_t> block_ms;
};

// [COST n] [BLOCK ms], each at most once, in any order.
StatusOr<LimiterOptions> ParseLimiterOptions(Args args);

// Keyspace notifications for sluice's own limiter commands, which Redis does not have: a
// command that wrote its key's limiter state (a decision that counted, RL.RESET) sends one
// event of class d (Redis's module class), named after the command in lower case
// ("rl.fixedwindow", "cl.throttle"). `wrote` is asked only when class d is on, so with
// notifications off this costs one test.
void PublishLimiterEvent(CommandContext& ctx, std::string_view command, std::string_view key);
template <typename WroteFn>
void NotifyLimiterEvent(CommandContext& ctx, std::string_view command, std::string_view key,
                        WroteFn wrote) {
  if (!KeyspaceEventsOn(ctx, kNotifyModule)) return;
  if (wrote()) PublishLimiterEvent(ctx, command, key);
}

// Decides `call` on `key` now and replies, or parks it (BLOCK ms): then the reply is written
// when the queue answers. Counts the decision in the limiter statistics.
// `command` (args[0]) names its keyspace event.
void RunLimiter(CommandContext& ctx, std::string_view command, std::string_view key,
                std::unique_ptr<LimiterCall> call, std::optional<int64_t> block_ms);

}  // namespace sluice::server
