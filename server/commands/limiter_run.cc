#include "server/commands/limiter_run.h"

#include <limits>

#include "common/ascii.h"
#include "server/arg_cursor.h"
#include "server/commands/helpers.h"
#include "server/db_key.h"
#include "server/limiter_queues.h"
#include "server/limiter_stats.h"
#include "server/limiter_store.h"

namespace sluice::server {

void PublishLimiterEvent(CommandContext& ctx, std::string_view command, std::string_view key) {
  NotifyKeyspaceEvent(ctx, kNotifyModule, AsciiLowered(command), key);
}

StatusOr<LimiterOptions> ParseLimiterOptions(Args args) {
  LimiterOptions options;
  bool cost_seen = false;
  ArgCursor cursor(args);
  while (!cursor.Done()) {
    if (cursor.Remaining() >= 2 && !cost_seen && cursor.NextIf("COST")) {
      options.cost = cursor.NextNonNegative("cost must be a non-negative integer");
      cost_seen = true;
    } else if (cursor.Remaining() >= 2 && !options.block_ms && cursor.NextIf("BLOCK")) {
      options.block_ms = cursor.NextNonNegative("block must be a non-negative integer");
    } else {
      cursor.Fail(SyntaxError());
    }
  }
  if (!cursor.ok()) return cursor.status();
  return options;
}

void RunLimiter(CommandContext& ctx, std::string_view command, std::string_view key,
                std::unique_ptr<LimiterCall> call, std::optional<int64_t> block_ms) {
  ctx.decided = true;
  // A deadline past the clock's range is an error (contract section 7), not a wrapped deadline
  // that has already passed; checked before anything is decided, inside MULTI too.
  if (block_ms && *block_ms > std::numeric_limits<int64_t>::max() - ctx.now_us / 1000) {
    ReplyError(ctx, Err("block would overflow the clock"));
    return;
  }
  // Inside MULTI/EXEC (and scripts) BLOCK never waits: the request is decided at once.
  if (block_ms && !ctx.client.deny_blocking) {
    // The queue decides (and may stage) out of sight: whether it wrote the key is read from
    // the engine's count of staged writes.
    const uint64_t writes_before = ctx.engine().StagedWriteCount();
    auto submitted = ctx.server.limiter_queues->Submit(
        ctx.client.id, DbKey(ctx.client.db, key), std::move(call), *block_ms, ctx.now_us);
    if (ReplyIfError(ctx, submitted.status())) return;
    if (!submitted->has_value()) {  // parked: the queue owns the call now and counts it
      ctx.client.blocked = true;    // the session answers when the queue does
      return;
    }
    NotifyLimiterEvent(ctx, command, key,
                       [&] { return ctx.engine().KeyWrittenSince(key, writes_before); });
    RecordDecision(ctx.server, key, *call, (*submitted)->allowed);
    ReplyVerdict(ctx.reply, **submitted);
    return;
  }
  auto outcome = DecideAndStage(ctx.engine(), key, *call, ctx.now_us, ctx.now_ms);
  if (ReplyIfError(ctx, outcome.status())) return;
  NotifyLimiterEvent(ctx, command, key, [&] { return outcome->staged; });
  RecordDecision(ctx.server, key, *call, outcome->verdict.allowed);
  ReplyVerdict(ctx.reply, outcome->verdict);
}

}  // namespace sluice::server
