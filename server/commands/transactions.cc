// MULTI EXEC DISCARD WATCH UNWATCH. Queued commands run inside EXEC through the same
// dispatcher, and their writes reach the WAL in the session's one group commit: all or none.

#include "resp/error_messages.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/dispatcher.h"

namespace sluice::server {
namespace {

void MultiCommand(CommandContext& ctx, Args) {
  if (ctx.client.in_multi) {
    ReplyError(ctx, Err(std::string(resp::kMultiNested)));
    return;
  }
  ctx.client.in_multi = true;
  ctx.reply.Ok();
}

void DiscardCommand(CommandContext& ctx, Args) {
  if (!ctx.client.in_multi) {
    ReplyError(ctx, Err(std::string(resp::kDiscardWithoutMulti)));
    return;
  }
  ctx.server.dispatcher->DiscardTransaction(ctx.client);
  ctx.reply.Ok();
}

// A watched key that had a TTL at WATCH time and has expired since aborts EXEC, as Redis 7.
bool WatchedKeyExpired(CommandContext& ctx) {
  for (const WatchedKey& watched : ctx.client.watched) {
    if (!watched.had_expiry) continue;
    storage::DatabaseScope in_its_database(ctx.engine(), watched.db);
    auto meta = ctx.engine().GetMetadata(watched.key, ctx.now_ms);
    if (!meta.ok() || !meta->has_value()) return true;
  }
  return false;
}

void ExecCommand(CommandContext& ctx, Args) {
  Client& client = ctx.client;
  if (!client.in_multi) {
    ReplyError(ctx, Err(std::string(resp::kExecWithoutMulti)));
    return;
  }
  if (client.multi_aborted) {
    ctx.server.dispatcher->DiscardTransaction(ctx.client);
    ReplyError(ctx, {Code::kExecAbort, std::string(resp::kExecAbortMsg)});
    return;
  }
  bool aborted = client.watch_dirty || WatchedKeyExpired(ctx);
  auto queue = std::move(client.multi_queue);
  ctx.server.dispatcher->DiscardTransaction(ctx.client);
  if (aborted) {
    ctx.reply.NullArray();
    return;
  }
  ctx.reply.Array(static_cast<int64_t>(queue.size()));
  std::vector<std::string_view> args;
  client.deny_blocking = true;
  client.in_exec = true;
  client.exec_start_ms = ctx.now_ms;
  client.exec_commands = queue.size();
  for (const auto& command : queue) {
    args.assign(command.begin(), command.end());
    ctx.server.dispatcher->Dispatch(client, args, ctx.reply);
  }
  client.in_exec = false;
  client.deny_blocking = false;
}

void WatchCommand(CommandContext& ctx, Args args) {
  if (ctx.client.in_multi) {
    ReplyError(ctx, Err(std::string(resp::kWatchInsideMulti)));
    return;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    auto meta = ctx.engine().GetMetadata(args[i], ctx.now_ms);
    if (ReplyIfError(ctx, meta.status())) return;
    bool had_expiry = meta->has_value() && (*meta)->expire_at_ms != 0;
    ctx.client.watched.push_back({ctx.client.db, std::string(args[i]), had_expiry});
    ctx.server.watches.Watch(&ctx.client, ctx.client.db, args[i]);
  }
  ctx.reply.Ok();
}

void UnwatchCommand(CommandContext& ctx, Args) {
  ctx.server.watches.UnwatchAll(&ctx.client);
  ctx.reply.Ok();
}

}  // namespace

void RegisterTransactionCommands(CommandTable& table) {
  using F = CommandFlags;
  // As Redis 7.0, transaction control is allowed while a script is busy (EXEC then aborts).
  const F kControl =
      F::kNoScript | F::kLoading | F::kStale | F::kFast | F::kNoMulti | F::kAllowBusy;
  table.Register({"multi", 1, kControl, 0, 0, 0, MultiCommand, "transactions"});
  // EXEC counts as a write: if its batch cannot be logged, its whole reply becomes MISCONF.
  const F kExec =
      F::kNoScript | F::kLoading | F::kStale | F::kNoMulti | F::kWrite | F::kSkipSlowLog |
      F::kRunsTransaction;
  // Not @write, as Redis: its commands are checked one by one.
  static constexpr std::string_view kExecCategories[] = {"@slow", "@transaction"};
  table.Register(
      WithAclCategories({"exec", 1, kExec, 0, 0, 0, ExecCommand, "transactions"}, kExecCategories));
  table.Register({"discard", 1, kControl, 0, 0, 0, DiscardCommand, "transactions"});
  table.Register({"watch", -2, kControl, 1, -1, 1, WatchCommand, "transactions"});
  table.Register({"unwatch", 1, F::kNoScript | F::kLoading | F::kStale | F::kFast | F::kAllowBusy,
                  0, 0, 0,
                  UnwatchCommand, "transactions"});
}

}  // namespace sluice::server
