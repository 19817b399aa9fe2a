// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL MGET MSET INCR INCRBY DECR DECRBY
// INCRBYFLOAT APPEND STRLEN, with Redis 7.0's replies and errors.

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

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;

void PutString(CommandContext& ctx, std::string_view key, std::string_view value,
               int64_t expire_at_ms) {
  Record record;
  record.meta.type = KeyType::kString;
  record.meta.expire_at_ms = expire_at_ms;
  record.payload.assign(value);
  ctx.engine().Put(key, record);
}

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
  std::optional<ExpireUnit> unit;
  std::string_view expire_arg;
  while (!cursor.Done()) {
    std::string_view option = cursor.Next();
    auto is = [&](std::string_view word) { return EqualsIgnoreCase(option, word); };
    if (is("NX") && parsed.condition != SetCondition::kIfExists) {
      parsed.condition = SetCondition::kIfMissing;
    } else if (is("XX") && parsed.condition != SetCondition::kIfMissing) {
      parsed.condition = SetCondition::kIfExists;
    } else if (is("GET")) {
      parsed.get = true;
    } else if (is("KEEPTTL") && !unit) {
      parsed.keep_ttl = true;
    } else if (auto this_unit = ExpireOptionUnit(option);
               this_unit && !parsed.keep_ttl && (!unit || unit == this_unit) &&
               cursor.Remaining() > 0) {
      // As Redis, repeating the same expire option is allowed; the last value wins.
      unit = this_unit;
      expire_arg = cursor.Next();
    } else {
      return SyntaxError();
    }
  }
  if (unit) {
    auto when = ParseSetExpire(expire_arg, *unit, now_ms, "set");
    if (!when.ok()) return when.status();
    parsed.expire_at_ms = *when;
  }
  return parsed;
}

void ExecSet(CommandContext& ctx, const SetArgs& args, bool reply_ok_as_int = false) {
  std::optional<Record> old;
  if (args.get) {
    if (!LookupTyped(ctx, args.key, KeyType::kString, &old)) return;
  } else if (!LookupAny(ctx, args.key, &old)) {
    return;
  }
  bool exists = old.has_value();
  bool refused = (args.condition == SetCondition::kIfMissing && exists) ||
                 (args.condition == SetCondition::kIfExists && !exists);
  if (!refused) {
    int64_t expire_at = args.expire_at_ms;
    if (args.keep_ttl && exists) expire_at = old->meta.expire_at_ms;
    PutString(ctx, args.key, args.value, expire_at);
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
  for (size_t i = 1; i + 1 < args.size(); i += 2) PutString(ctx, args[i], args[i + 1], 0);
  ctx.reply.Ok();
}

// ---- Reads --------------------------------------------------------------------------------

void GetCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  if (record) {
    ctx.reply.Bulk(record->payload);
  } else {
    ctx.reply.Null();
  }
}

void GetDelCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    ctx.reply.Null();
    return;
  }
  ctx.engine().Delete(args[1]);
  ctx.reply.Bulk(record->payload);
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
  std::optional<Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  ctx.reply.Int(record ? static_cast<int64_t>(record->payload.size()) : 0);
}

void AppendCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    PutString(ctx, args[1], args[2], 0);
    ctx.reply.Int(static_cast<int64_t>(args[2].size()));
    return;
  }
  if (record->payload.size() + args[2].size() > ctx.server.config->proto_max_bulk_len) {
    ReplyError(ctx, Err("string exceeds maximum allowed size (proto-max-bulk-len)"));
    return;
  }
  record->payload.append(args[2]);
  ctx.engine().Put(args[1], *record);
  ctx.reply.Int(static_cast<int64_t>(record->payload.size()));
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
  table.Register({"mget", -2, kReadFast, 1, -1, 1, MGetCommand, "string"});
  table.Register({"mset", -3, F::kWrite, 1, -1, 2, MSetCommand, "string"});
  table.Register({"incr", 2, kWriteFast, 1, 1, 1, IncrCommand, "string"});
  table.Register({"decr", 2, kWriteFast, 1, 1, 1, DecrCommand, "string"});
  table.Register({"incrby", 3, kWriteFast, 1, 1, 1, IncrByCommand, "string"});
  table.Register({"decrby", 3, kWriteFast, 1, 1, 1, DecrByCommand, "string"});
  table.Register({"incrbyfloat", 3, kWriteFast, 1, 1, 1, IncrByFloatCommand, "string"});
  table.Register({"append", 3, kWriteFast, 1, 1, 1, AppendCommand, "string"});
  table.Register({"strlen", 2, kReadFast, 1, 1, 1, StrLenCommand, "string"});
}

}  // namespace sluice::server
