// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX INCR INCRBY
// DECR DECRBY INCRBYFLOAT APPEND STRLEN GETRANGE SUBSTR SETRANGE, with Redis 7.0's replies and
// errors.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/expire_time.h"
#include "server/commands/helpers.h"
#include "server/keyspace_events.h"
#include "storage/long_string.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;
using storage::RecordView;

// EX/PX/EXAT/PXAT among SET's and GETEX's options, as Redis's
// parseExtendedStringArgumentsOrReply: the same one may repeat (the last value wins, and only
// it is checked, by Resolve), two different ones may not.
struct ExpireOption {
  std::optional<ExpireUnit> unit;
  std::string_view value;

  // Takes `option`, and its value from `cursor`, if it is an expire option that may come now.
  bool Take(std::string_view option, ArgCursor& cursor) {
    std::optional<ExpireUnit> this_unit = ExpireOptionUnit(option);
    if (!this_unit || (unit && unit != this_unit) || cursor.Remaining() == 0) return false;
    unit = this_unit;
    value = cursor.Next();
    return true;
  }
  // The absolute expiry in unix ms; 0 without the option.
  StatusOr<int64_t> Resolve(int64_t now_ms, std::string_view command) const {
    if (!unit) return int64_t{0};
    return ParseSetExpire(value, *unit, now_ms, command);
  }
};

// ---- SET and its variants ---------------------------------------------------------------

enum class SetCondition { kAlways, kIfMissing, kIfExists };

struct SetArgs {
  std::string_view key;
  std::string_view value;
  SetCondition condition = SetCondition::kAlways;
  bool get = false;
  bool keep_ttl = false;
  int64_t expire_at_ms = 0;  // 0: none
};

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL], as Redis's
// parseExtendedStringArgumentsOrReply plus getExpireMillisecondsOrReply.
StatusOr<SetArgs> ParseSet(Args args, int64_t now_ms) {
  SetArgs parsed;
  parsed.key = args[1];
  parsed.value = args[2];
  ArgCursor cursor(args.subspan(3));
  ExpireOption expire;
  while (!cursor.Done()) {
    std::string_view option = cursor.Next();
    auto is = [&](std::string_view word) { return EqualsIgnoreCase(option, word); };
    if (is("NX") && parsed.condition != SetCondition::kIfExists) {
      parsed.condition = SetCondition::kIfMissing;
    } else if (is("XX") && parsed.condition != SetCondition::kIfMissing) {
      parsed.condition = SetCondition::kIfExists;
    } else if (is("GET")) {
      parsed.get = true;
    } else if (is("KEEPTTL") && !expire.unit) {
      parsed.keep_ttl = true;
    } else if (parsed.keep_ttl || !expire.Take(option, cursor)) {
      return SyntaxError();
    }
  }
  auto when = expire.Resolve(now_ms, "set");
  if (!when.ok()) return when.status();
  parsed.expire_at_ms = *when;
  return parsed;
}

// SET's events: "set", then "expire" when it gave the key an expiry (SETEX, SET EX ...).
void NotifySet(CommandContext& ctx, const SetArgs& args) {
  NotifyKeyspaceEvent(ctx, kNotifyString, "set", args.key);
  if (args.expire_at_ms != 0) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", args.key);
}

void ExecSet(CommandContext& ctx, const SetArgs& args, bool reply_ok_as_int = false) {
  std::optional<Record> old;
  if (args.get) {
    LookupCounting counted(ctx, true);  // SET ... GET and GETSET read as GET does
    if (!LookupTyped(ctx, args.key, KeyType::kString, &old)) return;
  } else if (!LookupAnyWithoutLongPayload(ctx, args.key, &old)) {  // whether, and its TTL
    return;
  }
  bool exists = old.has_value();
  bool refused = (args.condition == SetCondition::kIfMissing && exists) ||
                 (args.condition == SetCondition::kIfExists && !exists);
  if (!refused) {
    int64_t expire_at = args.expire_at_ms;
    if (args.keep_ttl && exists) expire_at = old->meta.expire_at_ms;
    PutString(ctx, args.key, args.value, expire_at);
    if (KeyspaceEventsOn(ctx, kNotifyString | kNotifyGeneric)) NotifySet(ctx, args);
  }
  if (args.get) {
    if (exists) {
      ctx.reply.Bulk(old->payload);
    } else {
      ctx.reply.Null();
    }
  } else if (reply_ok_as_int) {
    ctx.reply.Int(refused ? 0 : 1);
  } else if (refused) {
    ctx.reply.Null();
  } else {
    ctx.reply.Ok();
  }
}

void SetCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseSet(args, ctx.clock_ms());
  if (ReplyIfError(ctx, parsed.status())) return;
  ExecSet(ctx, *parsed);
}

void SetNxCommand(CommandContext& ctx, Args args) {
  SetArgs parsed{args[1], args[2], SetCondition::kIfMissing};
  ExecSet(ctx, parsed, /*reply_ok_as_int=*/true);
}

// SETEX key seconds value / PSETEX key milliseconds value.
template <ExpireUnit kUnit>
void SetExCommand(CommandContext& ctx, Args args) {
  std::string lower_name = kUnit == ExpireUnit::kRelativeSeconds ? "setex" : "psetex";
  auto when = ParseSetExpire(args[2], kUnit, ctx.clock_ms(), lower_name);
  if (ReplyIfError(ctx, when.status())) return;
  SetArgs parsed{args[1], args[3]};
  parsed.expire_at_ms = *when;
  ExecSet(ctx, parsed);
}

void GetSetCommand(CommandContext& ctx, Args args) {
  SetArgs parsed{args[1], args[2]};
  parsed.get = true;
  ExecSet(ctx, parsed);
}

void MSetCommand(CommandContext& ctx, Args args) {
  if (args.size() % 2 == 0) {
    ReplyError(ctx, Err(resp::WrongArity("mset")));
    return;
  }
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    PutString(ctx, args[i], args[i + 1], 0);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", args[i]);
  }
  ctx.reply.Ok();
}

void MSetNxCommand(CommandContext& ctx, Args args) {
  if (args.size() % 2 == 0) {
    ReplyError(ctx, Err(resp::WrongArity("msetnx")));
    return;
  }
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    std::optional<Record> existing;
    if (!LookupAnyWithoutLongPayload(ctx, args[i], &existing)) return;
    if (existing) {  // all or nothing
      ctx.reply.Int(0);
      return;
    }
  }
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    PutString(ctx, args[i], args[i + 1], 0);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", args[i]);
  }
  ctx.reply.Int(1);
}

// The size check of APPEND and SETRANGE (Redis's checkStringLength).
bool ReplyIfTooLong(CommandContext& ctx, uint64_t length) {
  if (length <= ctx.server.config->proto_max_bulk_len) return false;
  ReplyError(ctx, Err("string exceeds maximum allowed size (proto-max-bulk-len)"));
  return true;
}

// SETRANGE key offset value: overwrites from `offset`, padding with zero bytes; the TTL stays.
void SetRangeCommand(CommandContext& ctx, Args args) {
  int64_t offset = 0;
  if (!ParseInt64(args[2], &offset)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  if (offset < 0) {
    ReplyError(ctx, Err("offset is out of range"));
    return;
  }
  const std::string_view value = args[3];
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  if (value.empty()) {  // nothing to write, and no key created
    ctx.reply.Int(static_cast<int64_t>(record ? storage::StringLength(*record) : 0));
    return;
  }
  if (ReplyIfTooLong(ctx, static_cast<uint64_t>(offset) + value.size())) return;
  // A long string has only the chunks the range touches written.
  auto length = storage::WriteStringRange(ctx.engine(), args[1], record,
                                          static_cast<uint64_t>(offset), value);
  if (ReplyIfError(ctx, length.status())) return;
  NotifyKeyspaceEvent(ctx, kNotifyString, "setrange", args[1]);
  ctx.reply.Int(static_cast<int64_t>(*length));
}

// ---- Reads --------------------------------------------------------------------------------

void GetCommand(CommandContext& ctx, Args args) {
  std::optional<RecordView> record;
  if (!LookupTypedView(ctx, args[1], KeyType::kString, &record)) return;
  if (record) {
    ctx.reply.Bulk(record->payload);
  } else {
    ctx.reply.Null();
  }
}

void GetDelCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  LookupCounting counted(ctx, true);
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    ctx.reply.Null();
    return;
  }
  ctx.engine().Delete(args[1]);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", args[1]);
  ctx.reply.Bulk(record->payload);
}

// GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]: GET, then the expiry changes.
void GetExCommand(CommandContext& ctx, Args args) {
  ExpireOption expire;
  bool persist = false;
  ArgCursor cursor(args.subspan(2));
  while (!cursor.Done()) {
    std::string_view option = cursor.Next();
    if (EqualsIgnoreCase(option, "PERSIST") && !expire.unit) {
      persist = true;
    } else if (persist || !expire.Take(option, cursor)) {
      ReplyError(ctx, SyntaxError());
      return;
    }
  }
  std::optional<RecordView> found;
  {
    LookupCounting counted(ctx, true);
    if (!LookupTypedView(ctx, args[1], KeyType::kString, &found)) return;
  }
  if (!found) {
    ctx.reply.Null();
    return;
  }
  // As Redis's getexCommand: the expire value is checked only once the key is a string.
  auto expire_at_ms = expire.Resolve(ctx.clock_ms(), "getex");  // 0: none
  if (ReplyIfError(ctx, expire_at_ms.status())) return;
  ctx.reply.Bulk(found->payload);
  // Copied before the write (the view may be of the stage); a long string's bytes stay put.
  Record record{found->meta, found->meta.payload_outside ? "" : std::string(found->payload)};
  if (*expire_at_ms != 0 && *expire_at_ms <= ctx.clock_ms()) {  // EXAT/PXAT in the past
    ctx.engine().Delete(args[1]);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", args[1]);
  } else if (*expire_at_ms != 0 || (persist && record.meta.expire_at_ms != 0)) {
    record.meta.expire_at_ms = *expire_at_ms;
    ctx.engine().PutWithoutLongPayload(args[1], record);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, persist ? "persist" : "expire", args[1]);
  }
}

// GETRANGE key start end (and its old name SUBSTR): inclusive, negative from the end.
void GetRangeCommand(CommandContext& ctx, Args args) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(args[2], &start) || !ParseInt64(args[3], &end)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  const int64_t length = record ? static_cast<int64_t>(storage::StringLength(*record)) : 0;
  if (start < 0 && end < 0 && start > end) {
    ctx.reply.Bulk("");
    return;
  }
  if (start < 0) start = std::max<int64_t>(length + start, 0);
  if (end < 0) end = std::max<int64_t>(length + end, 0);
  end = std::min(end, length - 1);
  if (length == 0 || start > end) {
    ctx.reply.Bulk("");
    return;
  }
  // A long string has only the chunks of the range read.
  std::string buffer;
  auto range =
      storage::ReadStringRange(ctx.engine(), args[1], *record, static_cast<uint64_t>(start),
                               static_cast<uint64_t>(end - start + 1), &buffer);
  if (ReplyIfError(ctx, range.status())) return;
  ctx.reply.Bulk(*range);
}

void MGetCommand(CommandContext& ctx, Args args) {
  ctx.reply.Array(static_cast<int64_t>(args.size() - 1));
  for (size_t i = 1; i < args.size(); ++i) {
    auto found = ctx.engine().Get(args[i], ctx.now_ms);
    if (found.ok() && found->has_value() && (*found)->meta.type == KeyType::kString) {
      ctx.reply.Bulk((*found)->payload);
    } else {
      ctx.reply.Null();
    }
  }
}

void StrLenCommand(CommandContext& ctx, Args args) {
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    ctx.reply.Int(0);
  } else {
    ctx.reply.Int(static_cast<int64_t>(record->meta.payload_outside ? record->meta.size
                                                                    : record->payload.size()));
  }
}

void AppendCommand(CommandContext& ctx, Args args) {
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  const uint64_t old_length = record ? storage::StringLength(*record) : 0;
  if (record && ReplyIfTooLong(ctx, old_length + args[2].size())) return;
  // A long string has only its last chunk and the new ones written.
  auto length = storage::WriteStringRange(ctx.engine(), args[1], record, old_length, args[2]);
  if (ReplyIfError(ctx, length.status())) return;
  NotifyKeyspaceEvent(ctx, kNotifyString, "append", args[1]);
  ctx.reply.Int(static_cast<int64_t>(*length));
}

// ---- Counters -----------------------------------------------------------------------------

void IncrByValue(CommandContext& ctx, std::string_view key, int64_t delta) {
  std::optional<Record> record;
  if (!LookupTyped(ctx, key, KeyType::kString, &record)) return;
  int64_t current = 0;
  if (record && !ParseInt64(record->payload, &current)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  int64_t result = 0;
  if (__builtin_add_overflow(current, delta, &result)) {
    ReplyError(ctx, Err(std::string(resp::kOverflow)));
    return;
  }
  PutString(ctx, key, std::to_string(result), record ? record->meta.expire_at_ms : 0);
  NotifyKeyspaceEvent(ctx, kNotifyString, "incrby", key);
  ctx.reply.Int(result);
}

void IncrCommand(CommandContext& ctx, Args args) { IncrByValue(ctx, args[1], 1); }
void DecrCommand(CommandContext& ctx, Args args) { IncrByValue(ctx, args[1], -1); }

void IncrByCommand(CommandContext& ctx, Args args) {
  int64_t delta = 0;
  if (!ParseInt64(args[2], &delta)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  IncrByValue(ctx, args[1], delta);
}

void DecrByCommand(CommandContext& ctx, Args args) {
  int64_t delta = 0;
  if (!ParseInt64(args[2], &delta)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  if (delta == std::numeric_limits<int64_t>::min()) {
    ReplyError(ctx, Err("decrement would overflow"));
    return;
  }
  IncrByValue(ctx, args[1], -delta);
}

void IncrByFloatCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  long double current = 0;
  long double delta = 0;
  if ((record && !ParseLongDouble(record->payload, &current)) ||
      !ParseLongDouble(args[2], &delta)) {
    ReplyError(ctx, NotFloatError());
    return;
  }
  long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    ReplyError(ctx, Err("increment would produce NaN or Infinity"));
    return;
  }
  std::string text = FormatLongDouble(result);
  PutString(ctx, args[1], text, record ? record->meta.expire_at_ms : 0);
  NotifyKeyspaceEvent(ctx, kNotifyString, "incrbyfloat", args[1]);
  ctx.reply.Bulk(text);
}

}  // namespace

void RegisterStringCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"get", 2, kReadFast, 1, 1, 1, GetCommand, "string"});
  table.Register({"set", -3, F::kWrite, 1, 1, 1, SetCommand, "string"});
  table.Register({"setnx", 3, kWriteFast, 1, 1, 1, SetNxCommand, "string"});
  table.Register({"setex", 4, F::kWrite, 1, 1, 1, SetExCommand<ExpireUnit::kRelativeSeconds>,
                  "string"});
  table.Register({"psetex", 4, F::kWrite, 1, 1, 1, SetExCommand<ExpireUnit::kRelativeMillis>,
                  "string"});
  table.Register({"getset", 3, kWriteFast, 1, 1, 1, GetSetCommand, "string"});
  table.Register({"getdel", 2, kWriteFast, 1, 1, 1, GetDelCommand, "string"});
  table.Register({"getex", -2, kWriteFast, 1, 1, 1, GetExCommand, "string"});
  using T = CommandTip;
  table.Register(
      WithTips({"mget", -2, kReadFast, 1, -1, 1, MGetCommand, "string"}, {T::kRequestMultiShard}));
  table.Register(WithTips({"mset", -3, F::kWrite, 1, -1, 2, MSetCommand, "string"},
                          {T::kRequestMultiShard, T::kResponseAllSucceeded}));
  table.Register(WithTips({"msetnx", -3, F::kWrite, 1, -1, 2, MSetNxCommand, "string"},
                          {T::kRequestMultiShard, T::kResponseAggMin}));
  table.Register({"getrange", 4, F::kReadOnly, 1, 1, 1, GetRangeCommand, "string"});
  table.Register({"substr", 4, F::kReadOnly, 1, 1, 1, GetRangeCommand, "string"});
  table.Register({"setrange", 4, F::kWrite, 1, 1, 1, SetRangeCommand, "string"});
  table.Register({"incr", 2, kWriteFast, 1, 1, 1, IncrCommand, "string"});
  table.Register({"decr", 2, kWriteFast, 1, 1, 1, DecrCommand, "string"});
  table.Register({"incrby", 3, kWriteFast, 1, 1, 1, IncrByCommand, "string"});
  table.Register({"decrby", 3, kWriteFast, 1, 1, 1, DecrByCommand, "string"});
  table.Register({"incrbyfloat", 3, kWriteFast, 1, 1, 1, IncrByFloatCommand, "string"});
  table.Register({"append", 3, kWriteFast, 1, 1, 1, AppendCommand, "string"});
  table.Register({"strlen", 2, kReadFast, 1, 1, 1, StrLenCommand, "string"});
}

}  // namespace sluice::server
