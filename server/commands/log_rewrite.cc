#include "server/commands/log_rewrite.h"

#include <spdlog/spdlog.h>

#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {

bool LogRewriteInProgress(CommandContext& ctx) {
  auto& persistence = ctx.server.persistence;
  if (!persistence.log_rewrite_requested) return false;
  storage::Engine& engine = ctx.engine();
  persistence.log_rewrite_requested = engine.GetIntProperty("rocksdb.mem-table-flush-pending") +
                                          engine.GetIntProperty("rocksdb.num-running-flushes") >
                                      0;
  return persistence.log_rewrite_requested;
}

namespace {

// BGREWRITEAOF, with Redis 7.0's replies. Inside MULTI/EXEC Redis only schedules the rewrite,
// for after the transaction; sluice starts it at once (a flush does not split a transaction:
// its writes are committed together, after it) and answers as Redis does.
void BgRewriteAofCommand(CommandContext& ctx, Args) {
  if (LogRewriteInProgress(ctx)) {
    ReplyError(ctx, Err("Background append only file rewriting already in progress"));
    return;
  }
  if (Status started = ctx.engine().StartFlush(); !started.ok()) {
    spdlog::warn("Can't rewrite the append only file (flush the memtables): {}",
                 started.message());
    ReplyError(ctx, Err("Can't execute an AOF background rewriting. Please check the server "
                        "logs for more information."));
    return;
  }
  ctx.server.persistence.log_rewrite_requested = true;
  ++ctx.server.persistence.log_rewrites;
  spdlog::info("Background append only file rewriting started (a flush of the memtables)");
  ctx.reply.Simple(ctx.client.in_exec ? "Background append only file rewriting scheduled"
                                      : "Background append only file rewriting started");
}

}  // namespace

void RegisterLogRewriteCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register(
      {"bgrewriteaof", 1, F::kAdmin | F::kNoScript, 0, 0, 0, BgRewriteAofCommand, "server"});
}

}  // namespace sluice::server
