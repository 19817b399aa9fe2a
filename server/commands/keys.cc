// Generic key commands: DEL UNLINK EXISTS TOUCH TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT
// EXPIRETIME PEXPIRETIME TTL PTTL PERSIST KEYS SCAN RANDOMKEY RENAME RENAMENX COPY, with Redis
// 7.0's replies and errors.

#include <random>
#include <string>

#include "common/ascii.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/expire_time.h"
#include "server/commands/helpers.h"
#include "server/commands/random_reply.h"
#include "server/commands/scan_args.h"
#include "server/dispatcher.h"
#include "server/keyspace_events.h"
#include "storage/composite.h"

namespace sluice::server {
namespace {

using storage::Record;

void DelCommand(CommandContext& ctx, Args args) {
  int64_t removed = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    auto meta = ctx.engine().GetMetadata(args[i], ctx.now_ms);
    if (ReplyIfError(ctx, meta.status())) return;
    if (!meta->has_value()) continue;
    ctx.engine().Delete(args[i]);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", args[i]);
    removed++;
  }
  ctx.reply.Int(removed);
}

void ExistsCommand(CommandContext& ctx, Args args) {
  int64_t count = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    auto meta = ctx.engine().GetMetadata(args[i], ctx.now_ms);
    if (ReplyIfError(ctx, meta.status())) return;
    if (meta->has_value()) count++;
  }
  ctx.reply.Int(count);
}

void TypeCommand(CommandContext& ctx, Args args) {
  auto meta = ctx.engine().GetMetadata(args[1], ctx.now_ms);
  if (ReplyIfError(ctx, meta.status())) return;
  ctx.reply.Simple(meta->has_value() ? storage::TypeName((*meta)->type) : "none");
}

// ---- Expiry ---------------------------------------------------------------------------

// NX | XX | GT | LT, as Redis's parseExtendedExpireArgumentsOrReply; all given ones must hold.
struct ExpireConditions {
  bool nx = false, xx = false, gt = false, lt = false;

  // `current` is the key's expiry (0: none), `when` the new one.
  bool Hold(int64_t current, int64_t when) const {
    bool has_ttl = current != 0;
    if (nx && has_ttl) return false;
    if (xx && !has_ttl) return false;
    if (gt && (!has_ttl || when <= current)) return false;  // no TTL counts as infinite
    if (lt && has_ttl && when >= current) return false;
    return true;
  }
};

StatusOr<ExpireConditions> ParseExpireConditions(Args options) {
  ExpireConditions c;
  for (std::string_view option : options) {
    if (EqualsIgnoreCase(option, "NX")) {
      c.nx = true;
    } else if (EqualsIgnoreCase(option, "XX")) {
      c.xx = true;
    } else if (EqualsIgnoreCase(option, "GT")) {
      c.gt = true;
    } else if (EqualsIgnoreCase(option, "LT")) {
      c.lt = true;
    } else {
      return Err("Unsupported option " + std::string(resp::CString(option)));
    }
  }
  if (c.nx && (c.xx || c.gt || c.lt)) {
    return Err("NX and XX, GT or LT options at the same time are not compatible");
  }
  if (c.gt && c.lt) return Err("GT and LT options at the same time are not compatible");
  return c;
}

template <ExpireUnit kUnit>
void ExpireCommand(CommandContext& ctx, Args args) {
  auto conditions = ParseExpireConditions(args.subspan(3));
  if (ReplyIfError(ctx, conditions.status())) return;
  const std::string command = AsciiLowered(args[0]);
  auto when = ParseExpireCommandTime(args[2], kUnit, ctx.clock_ms(), command);
  if (ReplyIfError(ctx, when.status())) return;

  std::optional<Record> record;
  if (!LookupAnyWithoutLongPayload(ctx, args[1], &record)) return;
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  if (!conditions->Hold(record->meta.expire_at_ms, *when)) {
    ctx.reply.Int(0);
    return;
  }
  if (*when <= ctx.clock_ms()) {  // already past: gone at once, as Redis's checkAlreadyExpired
    ctx.engine().Delete(args[1]);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", args[1]);
  } else {
    record->meta.expire_at_ms = *when;
    ctx.engine().PutWithoutLongPayload(args[1], *record);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", args[1]);
  }
  ctx.reply.Int(1);
}

enum class TtlReply { kSeconds, kMillis, kExpireTimeSeconds, kExpireTimeMillis };

template <TtlReply kReply>
void TtlCommand(CommandContext& ctx, Args args) {
  auto meta = ctx.engine().GetMetadata(args[1], ctx.now_ms);
  if (ReplyIfError(ctx, meta.status())) return;
  if (!meta->has_value()) {
    ctx.reply.Int(-2);
    return;
  }
  int64_t expire_at = (*meta)->expire_at_ms;
  if (expire_at == 0) {
    ctx.reply.Int(-1);
    return;
  }
  int64_t ttl = std::max<int64_t>(expire_at - ctx.clock_ms(), 0);
  switch (kReply) {
    case TtlReply::kSeconds:
      ctx.reply.Int((ttl + 500) / 1000);
      break;
    case TtlReply::kMillis:
      ctx.reply.Int(ttl);
      break;
    case TtlReply::kExpireTimeSeconds:
      ctx.reply.Int((expire_at + 500) / 1000);  // rounded, as TTL (Redis 7.0)
      break;
    case TtlReply::kExpireTimeMillis:
      ctx.reply.Int(expire_at);
      break;
  }
}

void PersistCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupAnyWithoutLongPayload(ctx, args[1], &record)) return;
  if (!record || record->meta.expire_at_ms == 0) {
    ctx.reply.Int(0);
    return;
  }
  record->meta.expire_at_ms = 0;
  ctx.engine().PutWithoutLongPayload(args[1], *record);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "persist", args[1]);
  ctx.reply.Int(1);
}

// ---- Key space ------------------------------------------------------------------------

void KeysCommand(CommandContext& ctx, Args args) {
  auto keys = ctx.engine().Keys(args[1], ctx.now_ms);
  if (ReplyIfError(ctx, keys.status())) return;
  ReplyBulks(ctx, *keys);
}

// RANDOMKEY: one live key picked at random from the (up to) kRandomKeyPage keys that follow the
// previous answer's page in key order, wrapping around at the end, as Kvrocks answers it. A
// RocksDB key space has no positions to draw from; Redis draws a hash bucket, and neither is
// uniform over keys, but both cost O(1) a call and reach every key. Expired keys are passed
// over; an empty (or wholly expired) key space answers nil.
constexpr size_t kRandomKeyPage = 64;

void RandomKeyCommand(CommandContext& ctx, Args /*args*/) {
  std::string& after = ctx.server.random_key_after;
  bool wrapped = after.empty();
  for (;;) {
    auto page = ctx.engine().Scan(after, kRandomKeyPage, storage::ScanFilter{}, ctx.now_ms);
    if (ReplyIfError(ctx, page.status())) return;
    after = page->done ? std::string() : std::move(page->last_key);
    if (!page->keys.empty()) {
      std::uniform_int_distribution<size_t> pick(0, page->keys.size() - 1);
      ctx.reply.Bulk(page->keys[pick(SampleRng())]);
      return;
    }
    if (page->done) {
      if (wrapped) break;
      wrapped = true;
    }
  }
  ctx.reply.Null();
}

void ScanCommand(CommandContext& ctx, Args args) {
  auto cursor = ParseScanCursor(args[1]);
  if (ReplyIfError(ctx, cursor.status())) return;
  auto options = ParseScanOptions(args.subspan(2), /*allow_type=*/true);
  if (ReplyIfError(ctx, options.status())) return;
  storage::ScanFilter filter;
  filter.match = options->match;
  if (options->type) {
    // An unknown type passes no key, but the keys are still walked: Redis looks each one's
    // type up (a keyspace hit) before comparing it with the name.
    filter.type = storage::ParseTypeName(*options->type);
    filter.unknown_type = !filter.type;
  }
  const std::string after = ScanResumePoint(ctx, *cursor);
  auto page = ctx.engine().Scan(after, static_cast<size_t>(options->count), filter, ctx.now_ms);
  if (ReplyIfError(ctx, page.status())) return;
  std::optional<std::string> resume;
  if (!page->done) resume = std::move(page->last_key);
  StartScanReply(ctx, ScanCursorFor(ctx, std::move(resume)), page->keys.size());
  for (const std::string& key : page->keys) ctx.reply.Bulk(key);
}

// RENAME key newkey / RENAMENX key newkey (1, or 0 when newkey exists), as Redis's
// renameGenericCommand: the source must exist even when both names are the same.
template <bool kOnlyIfNew>
void RenameCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupAny(ctx, args[1], &record)) return;
  if (!record) {
    ReplyError(ctx, Err(std::string(resp::kNoSuchKey)));
    return;
  }
  auto reply = [&](bool renamed) {
    if (kOnlyIfNew) {
      ctx.reply.Int(renamed ? 1 : 0);
    } else {
      ctx.reply.Ok();
    }
  };
  if (args[1] == args[2]) {
    reply(false);
    return;
  }
  if (kOnlyIfNew) {
    std::optional<Record> existing;
    if (!LookupAnyWithoutLongPayload(ctx, args[2], &existing)) return;
    if (existing) {
      reply(false);
      return;
    }
  }
  // A hash, zset or list carries its elements: they are copied under a fresh version for the
  // new name (O(n), as Redis's RENAME is O(1) only because it moves a pointer); the source's
  // old sub-entries become garbage for the compaction filter. The TTL is kept.
  auto moved = storage::CopyComposite(ctx.engine(), args[1], *record, args[2]);
  if (ReplyIfError(ctx, moved.status())) return;
  // Redis deletes a key that newkey names, then adds newkey: "new" even then (the engine
  // reports it only for a name that held nothing).
  if (KeyspaceEventsOn(ctx, kNotifyNew) && LiveKeyUncounted(ctx, args[2])) {
    NotifyKeyspaceEvent(ctx, kNotifyNew, "new", args[2]);
  }
  ctx.engine().Delete(args[1]);
  ctx.engine().Put(args[2], *moved);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "rename_from", args[1]);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "rename_to", args[2]);
  reply(true);
}

// COPY source destination [DB destination-db] [REPLACE], as Redis 7.0's copyCommand: the
// options first, then 1 for a copy, 0 when the source is missing or the destination exists
// without REPLACE. The copy keeps the source's TTL.
void CopyCommand(CommandContext& ctx, Args args) {
  bool replace = false;
  int target_db = ctx.client.db;
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(args[i], "DB") && i + 1 < args.size()) {
      StatusOr<int> db = ParseDbIndex(args[++i], ctx.server.config->databases);
      if (ReplyIfError(ctx, db.status())) return;
      target_db = *db;
    } else {
      ReplyError(ctx, SyntaxError());
      return;
    }
  }
  if (target_db == ctx.client.db && args[1] == args[2]) {
    ReplyError(ctx, Err(std::string(resp::kSameObject)));
    return;
  }
  std::optional<Record> record;
  {
    LookupCounting counted(ctx, true);  // the source, as Redis's lookupKeyRead
    if (!LookupAny(ctx, args[1], &record)) return;
  }
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  storage::DatabaseScope in_target(ctx.engine(), target_db);
  if (ReplyIfError(ctx, in_target.status())) return;
  std::optional<Record> existing;
  if (!LookupAnyWithoutLongPayload(ctx, args[2], &existing)) return;
  if (existing && !replace) {
    ctx.reply.Int(0);
    return;
  }
  auto copied = storage::CopyComposite(ctx.engine(), args[1], *record, args[2]);
  if (ReplyIfError(ctx, copied.status())) return;
  // REPLACE deletes the destination, then adds it: "new", as for RENAME.
  NotifyKeyspaceEventIf(ctx, existing.has_value(), kNotifyNew, "new", args[2]);
  ctx.engine().Put(args[2], *copied);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "copy_to", args[2]);  // in the target database
  // The dispatcher signals the keys in the client's database; the copy is in the target's.
  if (target_db != ctx.client.db)
    ctx.server.dispatcher->KeyWritten(ctx.client, args[2], ctx.now_us);
  ctx.reply.Int(1);
}

// MOVE key db, as Redis 7.0's moveCommand: 1 when moved, 0 when the key is missing here or
// exists there. The record moves as it is (its TTL, and a composite type's version, whose
// elements are shared by every database: they stay where they are).
void MoveCommand(CommandContext& ctx, Args args) {
  StatusOr<int> target_db = ParseDbIndex(args[2], ctx.server.config->databases);
  if (ReplyIfError(ctx, target_db.status())) return;
  if (*target_db == ctx.client.db) {
    ReplyError(ctx, Err(std::string(resp::kSameObject)));
    return;
  }
  std::optional<Record> record;
  if (!LookupAny(ctx, args[1], &record)) return;
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  {
    storage::DatabaseScope in_target(ctx.engine(), *target_db);
    if (ReplyIfError(ctx, in_target.status())) return;
    std::optional<Record> existing;
    if (!LookupAnyWithoutLongPayload(ctx, args[1], &existing)) return;
    if (existing) {
      ctx.reply.Int(0);
      return;
    }
    ctx.engine().Put(args[1], *record);
    ctx.server.dispatcher->KeyWritten(ctx.client, args[1], ctx.now_us);
  }
  ctx.engine().Delete(args[1]);
  // Each in its database: the source's (selected again), then the target's.
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "move_from", args[1]);
  PublishKeyspaceEvent(ctx.server, kNotifyGeneric, "move_to", args[1], *target_db);
  ctx.reply.Int(1);
}

}  // namespace

void RegisterKeyCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  using T = CommandTip;
  // Redis's tips for a count over keys that may be on several shards: the counts add up.
  const CommandTips kCountPerShard{T::kRequestMultiShard, T::kResponseAggSum};
  table.Register(WithTips({"del", -2, F::kWrite, 1, -1, 1, DelCommand, "generic"}, kCountPerShard));
  table.Register(
      WithTips({"unlink", -2, kWriteFast, 1, -1, 1, DelCommand, "generic"}, kCountPerShard));
  table.Register(
      WithTips({"exists", -2, kReadFast, 1, -1, 1, ExistsCommand, "generic"}, kCountPerShard));
  table.Register({"type", 2, kReadFast, 1, 1, 1, TypeCommand, "generic"});
  table.Register({"expire", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kRelativeSeconds>});
  table.Register({"pexpire", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kRelativeMillis>});
  table.Register(
      {"expireat", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kAbsoluteSeconds>});
  table.Register(
      {"pexpireat", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kAbsoluteMillis>});
  // The reply depends on the time.
  table.Register(
      WithTips({"ttl", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kSeconds>}, kNondeterministic));
  table.Register(
      WithTips({"pttl", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kMillis>}, kNondeterministic));
  table.Register({"expiretime", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kExpireTimeSeconds>});
  table.Register({"pexpiretime", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kExpireTimeMillis>});
  table.Register({"persist", 2, kWriteFast, 1, 1, 1, PersistCommand});
  static constexpr std::string_view kKeysCategories[] = {"@keyspace", "@read", "@slow",
                                                         "@dangerous"};
  table.Register(
      WithAclCategories(WithTips({"keys", 2, F::kReadOnly, 0, 0, 0, KeysCommand},
                                 {T::kRequestAllShards, T::kNondeterministicOutputOrder}),
                        kKeysCategories));
  table.Register(WithTips({"scan", -2, F::kReadOnly, 0, 0, 0, ScanCommand},
                          {T::kNondeterministicOutput, T::kRequestSpecial}));
  table.Register(WithTips({"randomkey", 1, F::kReadOnly, 0, 0, 0, RandomKeyCommand},
                          {T::kRequestAllShards, T::kNondeterministicOutput}));
  table.Register({"rename", 3, F::kWrite, 1, 2, 1, RenameCommand<false>});
  table.Register({"renamenx", 3, kWriteFast, 1, 2, 1, RenameCommand<true>});
  table.Register({"copy", -3, F::kWrite, 1, 2, 1, CopyCommand, "generic"});
  table.Register({"move", 3, kWriteFast, 1, 1, 1, MoveCommand, "generic"});
  // TOUCH counts the keys that exist, as EXISTS (sluice keeps no access times to update).
  table.Register(WithTips({"touch", -2, kReadFast, 1, -1, 1, ExistsCommand}, kCountPerShard));
}

}  // namespace sluice::server
