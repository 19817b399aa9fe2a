// Server commands: INFO DBSIZE FLUSHDB FLUSHALL TIME SHUTDOWN SAVE BGSAVE LASTSAVE ROLE WAIT
// MONITOR.

#include <spdlog/spdlog.h>

#include <limits>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/blocking_pops.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/info.h"
#include "server/dispatcher.h"
#include "server/metrics/key_census.h"

namespace sluice::server {
namespace {

void InfoCommand(CommandContext& ctx, Args args) {
  ctx.reply.Verbatim(BuildInfo(ctx, args.subspan(1)));
}

void DbSizeCommand(CommandContext& ctx, Args) {
  // A small key space is counted on the spot, a large one off the loop thread while the
  // client waits (KeyCountRounds); inside MULTI/EXEC or a script nothing may wait, so any
  // key space is counted on the spot.
  const uint64_t counted_here =
      ctx.client.deny_blocking ? std::numeric_limits<uint64_t>::max() : KeyCensus::kMaxExactKeys;
  auto counts = ctx.engine().CountKeysUpTo(counted_here, ctx.now_ms);
  if (ReplyIfError(ctx, counts.status())) return;
  if (counts->has_value()) {
    ctx.reply.Int(static_cast<int64_t>((*counts)->keys));
    return;
  }
  ctx.client.blocked = true;  // the session answers when the count does
  ctx.server.actions->CountKeysInBackground(ctx.client.id);
}

// Whether `key` holds something in database `db` (true as well when that cannot be read).
bool KeyExistsIn(CommandContext& ctx, int db, std::string_view key) {
  storage::DatabaseScope in_it(ctx.engine(), db);
  auto meta = ctx.engine().GetMetadata(key, ctx.now_ms);
  return !meta.ok() || meta->has_value();
}

// FLUSHDB / FLUSHALL [ASYNC | SYNC]: the client's database, or every database.
enum class FlushScope { kDatabase, kAll };

template <FlushScope kScope>
void FlushCommand(CommandContext& ctx, Args args) {
  if (args.size() > 2 ||
      (args.size() == 2 && !EqualsIgnoreCase(args[1], "ASYNC") &&
       !EqualsIgnoreCase(args[1], "SYNC"))) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  storage::Engine& engine = ctx.engine();
  // As Redis 7.0, the flush breaks the WATCH of keys it removes, not of keys that were absent.
  std::vector<WatchedKey> removed = ctx.server.watches.WatchedKeys(
      kScope == FlushScope::kAll ? std::nullopt : std::optional<int>(ctx.client.db));
  std::erase_if(removed, [&](const WatchedKey& watched) {
    return !KeyExistsIn(ctx, watched.db, watched.key);
  });
  // Staged like any write: the reply waits for the commit that logs it with its batch.
  if (kScope == FlushScope::kAll) {
    engine.FlushAll();
  } else {
    engine.FlushDatabase();
  }
  for (const WatchedKey& watched : removed) ctx.server.watches.Touch(watched.db, watched.key);
  // Cached keys are all invalid (a FLUSHDB too: the tracking table knows no databases).
  ctx.server.tracking.Flushed();
  // Every limiter state is gone: BLOCK waiters that fit now are served, as DEL's are.
  ctx.server.dispatcher->PokeWaiters(std::nullopt, ctx.now_us);
  ctx.reply.Ok();
}

// SWAPDB index1 index2, as Redis 7.0's: clients in either database see the other's keys from
// now on. Like a flush it breaks the WATCH of keys that exist in either database, and the
// clients blocked on keys in them try again.
void SwapDbCommand(CommandContext& ctx, Args args) {
  auto index = [](std::string_view arg, std::string_view invalid) -> StatusOr<int> {
    int64_t value = 0;
    if (!ParseInt64(arg, &value) || value < INT32_MIN || value > INT32_MAX) {
      return Err(std::string(invalid));
    }
    return static_cast<int>(value);
  };
  StatusOr<int> first = index(args[1], "invalid first DB index");
  if (ReplyIfError(ctx, first.status())) return;
  StatusOr<int> second = index(args[2], "invalid second DB index");
  if (ReplyIfError(ctx, second.status())) return;
  storage::Engine& engine = ctx.engine();
  std::vector<WatchedKey> touched;
  if (*first != *second) {
    for (int db : {*first, *second}) {
      for (WatchedKey& watched : ctx.server.watches.WatchedKeys(db)) {
        if (KeyExistsIn(ctx, *first, watched.key) || KeyExistsIn(ctx, *second, watched.key)) {
          touched.push_back(std::move(watched));
        }
      }
    }
  }
  const Status swapped = engine.SwapDatabases(*first, *second);
  if (!swapped.ok()) {
    ReplyError(ctx, swapped.code() == Code::kErr ? Err(std::string(resp::kDbIndexOutOfRange))
                                                 : swapped);
    return;
  }
  for (const WatchedKey& watched : touched) ctx.server.watches.Touch(watched.db, watched.key);
  ctx.server.dispatcher->WakeAfterSwap(*first, *second, ctx.now_us);
  ctx.reply.Ok();
}

constexpr std::string_view kFlushCategories[] = {"@keyspace", "@write", "@slow", "@dangerous"};
constexpr std::string_view kSwapDbCategories[] = {"@keyspace", "@write", "@fast", "@dangerous"};

// MONITOR: this client sees every command from now on (server/monitor_feed.h), until RESET
// or it leaves.
void MonitorCommand(CommandContext& ctx, Args) {
  // Inside EXEC a monitor could not be told from a reply per command, as Redis says.
  if (ctx.client.deny_blocking) {
    ReplyError(ctx, Err("MONITOR isn't allowed for DENY BLOCKING client"));
    return;
  }
  if (ctx.client.monitor) return;  // already monitoring: Redis ignores it, without a reply
  ctx.client.monitor = true;
  ctx.server.monitors.Add(&ctx.client);
  ctx.reply.Ok();
}

void TimeCommand(CommandContext& ctx, Args) {
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(ctx.now_us / 1000000));
  ctx.reply.Bulk(std::to_string(ctx.now_us % 1000000));
}

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]. On success nothing is replied: the
// connection closes, as in Redis.
void ShutdownCommand(CommandContext& ctx, Args args) {
  bool abort = false;
  bool save = false;
  bool nosave = false;
  bool other_flag = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "NOSAVE")) {
      nosave = true;
    } else if (EqualsIgnoreCase(args[i], "SAVE")) {
      save = true;
    } else if (EqualsIgnoreCase(args[i], "NOW") || EqualsIgnoreCase(args[i], "FORCE")) {
      other_flag = true;  // no replicas to wait for: NOW and FORCE change nothing else
    } else if (EqualsIgnoreCase(args[i], "ABORT")) {
      abort = true;
    } else {
      ReplyError(ctx, SyntaxError());
      return;
    }
  }
  if ((save && nosave) || (abort && (save || nosave || other_flag))) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  if (abort) {
    ReplyError(ctx, Err("No shutdown in progress."));
    return;
  }
  // Past lua-time-limit only NOSAVE may end the server (the script's writes are dropped); the
  // arguments are read first, as Redis reads them.
  if (!nosave && ctx.server.script.busy) {
    ReplyError(ctx, {Code::kBusy, std::string(ctx.server.script.BusyMessage())});
    return;
  }
  ctx.server.actions->RequestShutdown(nosave ? ShutdownMode::kNoSave
                                      : save  ? ShutdownMode::kSave
                                              : ShutdownMode::kDefault);
  ctx.client.close_after_reply = true;
}

// SAVE / BGSAVE: every acknowledged write is already in the WAL. Both make a RocksDB
// checkpoint, a backup under dir/checkpoints/<unix time> (SAVE before replying, BGSAVE on
// another thread), which also syncs the data to disk. SAVE is refused inside MULTI; BGSAVE
// there is scheduled.
void SaveCommand(CommandContext& ctx, Args) {
  if (ReplyIfError(ctx, ctx.server.actions->Save(false))) return;
  ctx.reply.Ok();
}

void BgSaveCommand(CommandContext& ctx, Args args) {
  bool schedule = args.size() == 2 && EqualsIgnoreCase(args[1], "SCHEDULE");
  if (args.size() > 2 || (args.size() == 2 && !schedule)) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  // Redis 7.0's order: a running save refuses even SCHEDULE (which only waits for an AOF
  // rewrite, which sluice never runs); inside EXEC the save waits for the server's next tick,
  // so that it takes the whole transaction in.
  if (ctx.server.persistence.bgsave_in_progress) {
    ReplyError(ctx, Err("Background save already in progress"));
    return;
  }
  if (ctx.client.in_exec) {
    ctx.server.persistence.bgsave_scheduled = true;
    ctx.reply.Simple("Background saving scheduled");
    return;
  }
  if (ReplyIfError(ctx, ctx.server.actions->Save(true))) return;
  ctx.reply.Simple("Background saving started");
}

void LastSaveCommand(CommandContext& ctx, Args) { ctx.reply.Int(ctx.server.last_save_unix); }

// ROLE: a master without replicas, as Redis 7.0 answers one (clients and health checks ask).
void RoleCommand(CommandContext& ctx, Args) {
  ctx.reply.Array(3);
  ctx.reply.Bulk("master");
  ctx.reply.Int(0);    // replication offset
  ctx.reply.Array(0);  // replicas
}

// REPLICAOF (and its old name SLAVEOF) host port | NO ONE. sluice is always a master: NO ONE
// is OK, as Redis answers on a master (failover scripts send it); following another server is
// refused, after Redis's check of the port.
void ReplicaOfCommand(CommandContext& ctx, Args args) {
  if (EqualsIgnoreCase(args[1], "no") && EqualsIgnoreCase(args[2], "one")) {
    ctx.reply.Ok();
    return;
  }
  int64_t port = 0;
  if (!ParseInt64(args[2], &port) || port < 0 || port > 65535) {
    ReplyError(ctx, Err("Invalid master port"));
    return;
  }
  ReplyError(ctx, Err("sluice does not replicate: it is always a master (REPLICAOF NO ONE)"));
}

// WAIT numreplicas timeout. sluice has no replicas, so it answers as a Redis master without
// any: 0 acknowledgements, at once when none is asked for (or inside MULTI/EXEC), otherwise
// when the timeout (ms; 0: never) has passed on the server clock or CLIENT UNBLOCK ends it.
void WaitCommand(CommandContext& ctx, Args args) {
  int64_t replicas = 0;
  if (!ParseInt64(args[1], &replicas)) {
    ReplyError(ctx, Err(std::string(resp::kNotInteger)));
    return;
  }
  StatusOr<int64_t> timeout_ms = ParseTimeoutMs(args[2]);
  if (!timeout_ms.ok()) {
    ReplyError(ctx, timeout_ms.status());
    return;
  }
  if (replicas <= 0 || ctx.client.deny_blocking || ctx.server.key_waiters == nullptr) {
    ctx.reply.Int(0);
    return;
  }
  KeyWaiters::Waiter waiter;
  waiter.timeout_reply = KeyWaiters::TimeoutReply::kZero;
  ParkClient(ctx, std::move(waiter), *timeout_ms);
}

}  // namespace

void RegisterServerCommands(CommandTable& table) {
  using F = CommandFlags;
  using T = CommandTip;
  // Redis's categories where the flags and group give others.
  static constexpr std::string_view kInfoCategories[] = {"@slow", "@dangerous"};
  static constexpr std::string_view kDbSizeCategories[] = {"@keyspace", "@read", "@fast"};
  static constexpr std::string_view kAdminFastCategories[] = {"@admin", "@fast", "@dangerous"};
  table.Register(WithAclCategories(
      WithTips({"info", -1, F::kLoading | F::kStale, 0, 0, 0, InfoCommand, "server"},
               {T::kNondeterministicOutput, T::kRequestAllShards, T::kResponseSpecial}),
      kInfoCategories));
  table.Register(WithAclCategories(
      WithTips({"dbsize", 1, F::kReadOnly | F::kFast, 0, 0, 0, DbSizeCommand, "server"},
               {T::kRequestAllShards, T::kResponseAggSum}),
      kDbSizeCategories));
  // Redis files the flushes and SWAPDB under `server` but gives them @keyspace and @dangerous.
  CommandSpec flushdb{"flushdb", -1, F::kWrite, 0, 0, 0, FlushCommand<FlushScope::kDatabase>,
                      "server"};
  flushdb.acl_categories = kFlushCategories;
  flushdb.tips = {T::kRequestAllShards, T::kResponseAllSucceeded};
  table.Register(flushdb);
  CommandSpec flushall{"flushall", -1, F::kWrite, 0, 0, 0, FlushCommand<FlushScope::kAll>,
                       "server"};
  flushall.acl_categories = kFlushCategories;
  flushall.tips = flushdb.tips;
  table.Register(flushall);
  CommandSpec swapdb{"swapdb", 3, F::kWrite | F::kFast, 0, 0, 0, SwapDbCommand, "server"};
  swapdb.acl_categories = kSwapDbCategories;
  table.Register(swapdb);
  table.Register(
      WithTips({"time", 1, F::kFast | F::kLoading | F::kStale, 0, 0, 0, TimeCommand, "server"},
               kNondeterministic));
  table.Register({"monitor", 1, F::kAdmin | F::kNoScript | F::kLoading | F::kStale, 0, 0, 0,
                  MonitorCommand, "server"});
  table.Register(
      {"shutdown", -1,
       F::kAdmin | F::kNoScript | F::kLoading | F::kStale | F::kAllowBusy | F::kNotInMulti, 0, 0, 0,
       ShutdownCommand, "server"});
  table.Register(
      {"save", 1, F::kAdmin | F::kNoScript | F::kNotInMulti, 0, 0, 0, SaveCommand, "server"});
  table.Register({"bgsave", -1, F::kAdmin | F::kNoScript, 0, 0, 0, BgSaveCommand, "server"});
  table.Register(WithAclCategories(WithTips({"lastsave", 1, F::kFast | F::kLoading | F::kStale, 0,
                                             0, 0, LastSaveCommand, "server"},
                                            kNondeterministic),
                                   kAdminFastCategories));
  table.Register(WithAclCategories({"role", 1, F::kNoScript | F::kFast | F::kLoading | F::kStale, 0,
                                    0, 0, RoleCommand, "server"},
                                   kAdminFastCategories));
  for (std::string_view name : {"replicaof", "slaveof"}) {
    table.Register(
        {name, 3, F::kAdmin | F::kNoScript | F::kStale, 0, 0, 0, ReplicaOfCommand, "server"});
  }
  // Filed under "generic" (COMMAND DOCS), as Redis; its ACL categories are @slow @connection.
  static constexpr std::string_view kWaitCategories[] = {"@slow", "@connection"};
  table.Register(
      WithAclCategories(WithTips({"wait", 3, F::kNoScript, 0, 0, 0, WaitCommand, "generic"},
                                 {T::kRequestAllShards, T::kResponseAggMin}),
                        kWaitCategories));
}

}  // namespace sluice::server
