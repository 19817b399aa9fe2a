// Hash commands: HGET HSET HSETNX HMSET HMGET HGETALL HDEL HEXISTS HINCRBY HINCRBYFLOAT HLEN
// HKEYS HVALS HSTRLEN HSCAN HRANDFIELD, with Redis 7.0's replies and errors (t_hash.c), over
// storage::HashType.
//
// Field order of HGETALL/HKEYS/HVALS is bytewise by field (Redis: insertion order for small
// hashes, hash-table order for large ones; neither is part of the contract).

#include <cmath>
#include <string>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/random_reply.h"
#include "server/commands/scan_args.h"
#include "server/keyspace_events.h"
#include "storage/hash_type.h"

namespace sluice::server {
namespace {

using storage::FieldValue;
using storage::HashType;

HashType Hashes(CommandContext& ctx) { return HashType(ctx.engine(), ctx.now_ms); }

void HGetCommand(CommandContext& ctx, Args args) {
  auto value = Hashes(ctx).Get(args[1], args[2]);
  if (ReplyIfError(ctx, value.status())) return;
  ReplyBulkOrNull(ctx, *value);
}

void HStrLenCommand(CommandContext& ctx, Args args) {
  auto value = Hashes(ctx).Get(args[1], args[2]);
  if (ReplyIfError(ctx, value.status())) return;
  ctx.reply.Int(value->has_value() ? static_cast<int64_t>((*value)->size()) : 0);
}

// HSET key field value [field value ...] / HMSET (same, replies +OK).
std::vector<FieldValue> PairsFrom(Args args) {
  std::vector<FieldValue> pairs;
  pairs.reserve((args.size() - 2) / 2);
  for (size_t i = 2; i + 1 < args.size(); i += 2) pairs.push_back({args[i], args[i + 1]});
  return pairs;
}

template <bool kReplyOk>
void HSetCommand(CommandContext& ctx, Args args) {
  if (args.size() % 2 == 1) {
    ReplyError(ctx, Err(resp::WrongArity(kReplyOk ? "hmset" : "hset")));
    return;
  }
  auto added = Hashes(ctx).Set(args[1], PairsFrom(args));
  if (ReplyIfError(ctx, added.status())) return;
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hset", args[1]);
  if (kReplyOk) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Int(static_cast<int64_t>(*added));
  }
}

void HSetNxCommand(CommandContext& ctx, Args args) {
  const FieldValue pair[] = {{args[2], args[3]}};
  auto added = Hashes(ctx).Set(args[1], pair, /*only_if_new=*/true);
  if (ReplyIfError(ctx, added.status())) return;
  NotifyKeyspaceEventIf(ctx, *added > 0, kNotifyHash, "hset", args[1]);
  ctx.reply.Int(static_cast<int64_t>(*added));
}

void HMGetCommand(CommandContext& ctx, Args args) {
  auto values = Hashes(ctx).MGet(args[1], args.subspan(2));
  if (ReplyIfError(ctx, values.status())) return;
  ctx.reply.Array(static_cast<int64_t>(values->size()));
  for (const auto& value : *values) ReplyBulkOrNull(ctx, value);
}

enum class HashPart { kAll, kKeys, kValues };

template <HashPart kPart>
void HGetAllCommand(CommandContext& ctx, Args args) {
  auto all = Hashes(ctx).GetAll(args[1]);
  if (ReplyIfError(ctx, all.status())) return;
  const auto n = static_cast<int64_t>(all->size());
  if (kPart == HashPart::kAll) {
    ctx.reply.Map(n);
  } else {
    ctx.reply.Array(n);
  }
  for (const auto& [field, value] : *all) {
    if (kPart != HashPart::kValues) ctx.reply.Bulk(field);
    if (kPart != HashPart::kKeys) ctx.reply.Bulk(value);
  }
}

void HDelCommand(CommandContext& ctx, Args args) {
  auto removed = Hashes(ctx).Delete(args[1], args.subspan(2));
  NotifyRemoval(ctx, removed.ok() && *removed > 0, kNotifyHash, "hdel", args[1]);
  ReplyIntegerOrError(ctx, removed);
}

void HExistsCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, Hashes(ctx).Exists(args[1], args[2]));
}

void HLenCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, Hashes(ctx).Len(args[1]));
}

// HINCRBY key field increment: the increment is parsed before the key is looked up.
void HIncrByCommand(CommandContext& ctx, Args args) {
  int64_t delta = 0;
  if (!ParseInt64(args[3], &delta)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  HashType hashes = Hashes(ctx);
  auto old = hashes.Get(args[1], args[2]);
  if (ReplyIfError(ctx, old.status())) return;
  int64_t current = 0;
  if (old->has_value() && !ParseInt64(**old, &current)) {
    ReplyError(ctx, Err(std::string(resp::kHashNotInteger)));
    return;
  }
  int64_t result = 0;
  if (__builtin_add_overflow(current, delta, &result)) {
    ReplyError(ctx, Err(std::string(resp::kOverflow)));
    return;
  }
  const std::string text = std::to_string(result);
  const FieldValue pair[] = {{args[2], text}};
  if (ReplyIfError(ctx, hashes.Set(args[1], pair).status())) return;
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hincrby", args[1]);
  ctx.reply.Int(result);
}

// HINCRBYFLOAT key field increment, in long double as Redis, printed as INCRBYFLOAT prints.
void HIncrByFloatCommand(CommandContext& ctx, Args args) {
  long double delta = 0;
  if (!ParseLongDouble(args[3], &delta)) {
    ReplyError(ctx, NotFloatError());
    return;
  }
  if (std::isnan(delta) || std::isinf(delta)) {
    ReplyError(ctx, Err("value is NaN or Infinity"));
    return;
  }
  HashType hashes = Hashes(ctx);
  auto old = hashes.Get(args[1], args[2]);
  if (ReplyIfError(ctx, old.status())) return;
  long double current = 0;
  if (old->has_value() && !ParseLongDouble(**old, &current)) {
    ReplyError(ctx, Err(std::string(resp::kHashNotFloat)));
    return;
  }
  const long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    ReplyError(ctx, Err(std::string(resp::kIncrNaN)));
    return;
  }
  const std::string text = FormatLongDouble(result);
  const FieldValue pair[] = {{args[2], text}};
  if (ReplyIfError(ctx, hashes.Set(args[1], pair).status())) return;
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hincrbyfloat", args[1]);
  ctx.reply.Bulk(text);
}

void HScanCommand(CommandContext& ctx, Args args) {
  std::optional<ElementScan> scan = StartElementScan(ctx, args, storage::KeyType::kHash);
  if (!scan) return;
  auto page = Hashes(ctx).ScanOf(args[1], scan->record, scan->after, scan->count);
  if (ReplyIfError(ctx, page.status())) return;
  std::erase_if(page->pairs, [&](const auto& pair) { return !scan->Matches(pair.first); });
  StartScanReply(ctx, ScanCursorFor(ctx, std::move(page->resume_after)), 2 * page->pairs.size());
  for (const auto& [field, value] : page->pairs) {
    ctx.reply.Bulk(field);
    ctx.reply.Bulk(value);
  }
}

// HRANDFIELD key [count [WITHVALUES]]: server/commands/random_reply.h has the rules.
void HRandFieldCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseRandomArgs(args, "withvalues");
  if (ReplyIfError(ctx, parsed.status())) return;
  HashType hashes = Hashes(ctx);
  if (ReplyIfTooManyRepeats(ctx, *parsed, [&] { return hashes.Len(args[1]); })) return;
  const int64_t count = parsed->has_count ? parsed->count : -1;
  auto sample = hashes.RandomFields(args[1], count, parsed->with_values, SampleRng());
  if (ReplyIfError(ctx, sample.status())) return;
  ReplySample(ctx, *parsed, sample->picks.size(), [&](size_t i, bool with_value) {
    const auto& [field, value] = sample->elements[sample->picks[i]];
    ctx.reply.Bulk(field);
    if (with_value) ctx.reply.Bulk(value);
  });
}

}  // namespace

void RegisterHashCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"hget", 3, kReadFast, 1, 1, 1, HGetCommand, "hash"});
  table.Register({"hset", -4, kWriteFast, 1, 1, 1, HSetCommand<false>, "hash"});
  table.Register({"hmset", -4, kWriteFast, 1, 1, 1, HSetCommand<true>, "hash"});
  table.Register({"hsetnx", 4, kWriteFast, 1, 1, 1, HSetNxCommand, "hash"});
  table.Register({"hmget", -3, kReadFast, 1, 1, 1, HMGetCommand, "hash"});
  table.Register(WithTips(
      {"hgetall", 2, F::kReadOnly, 1, 1, 1, HGetAllCommand<HashPart::kAll>, "hash"}, kInAnyOrder));
  table.Register(WithTips(
      {"hkeys", 2, F::kReadOnly, 1, 1, 1, HGetAllCommand<HashPart::kKeys>, "hash"}, kInAnyOrder));
  table.Register(WithTips(
      {"hvals", 2, F::kReadOnly, 1, 1, 1, HGetAllCommand<HashPart::kValues>, "hash"}, kInAnyOrder));
  table.Register({"hdel", -3, kWriteFast, 1, 1, 1, HDelCommand, "hash"});
  table.Register({"hexists", 3, kReadFast, 1, 1, 1, HExistsCommand, "hash"});
  table.Register({"hlen", 2, kReadFast, 1, 1, 1, HLenCommand, "hash"});
  table.Register({"hstrlen", 3, kReadFast, 1, 1, 1, HStrLenCommand, "hash"});
  table.Register({"hincrby", 4, kWriteFast, 1, 1, 1, HIncrByCommand, "hash"});
  table.Register({"hincrbyfloat", 4, kWriteFast, 1, 1, 1, HIncrByFloatCommand, "hash"});
  table.Register(
      WithTips({"hscan", -3, F::kReadOnly, 1, 1, 1, HScanCommand, "hash"}, kNondeterministic));
  table.Register(WithTips({"hrandfield", -2, F::kReadOnly, 1, 1, 1, HRandFieldCommand, "hash"},
                          kNondeterministic));
}

}  // namespace sluice::server
