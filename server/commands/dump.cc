// DUMP and RESTORE, as Redis 7.0's (cluster.c): a key's value serialized in Redis's DUMP
// format (storage/dump_payload.h), so values move between Redis and sluice both ways. The
// TTL travels outside the payload, as in Redis: RESTORE's second argument.

#include <optional>
#include <string>
#include <utility>

#include "algorithms/codec.h"
#include "algorithms/state_check.h"
#include "common/ascii.h"
#include "common/string2ll.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/keyspace_events.h"
#include "server/policy_states.h"
#include "storage/dump_payload.h"
#include "storage/hash_type.h"
#include "storage/list_type.h"
#include "storage/set_type.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::DumpValue;
using storage::KeyType;
using storage::Record;

// The whole value of `key`, whose record is `record`: the elements of a composite type are
// read under it, with no second lookup of the key.
StatusOr<DumpValue> ReadValue(CommandContext& ctx, std::string_view key, const Record& record) {
  DumpValue value;
  value.type = record.meta.type;
  storage::Engine& engine = ctx.engine();
  switch (record.meta.type) {
    case KeyType::kString:
    case KeyType::kLimiter:
      value.bytes = record.payload;
      break;
    case KeyType::kList: {
      auto elements = storage::ListType(engine, ctx.now_ms).ElementsOf(key, record);
      if (!elements.ok()) return elements.status();
      value.elements = std::move(*elements);
      break;
    }
    case KeyType::kSet: {
      auto members = storage::SetType(engine, ctx.now_ms).MembersOf(key, record);
      if (!members.ok()) return members.status();
      value.elements = std::move(*members);
      break;
    }
    case KeyType::kZSet: {
      auto members = storage::ZSetType(engine, ctx.now_ms).MembersOf(key, record);
      if (!members.ok()) return members.status();
      value.scored = std::move(*members);
      break;
    }
    case KeyType::kHash: {
      auto fields = storage::HashType(engine, ctx.now_ms).GetAllOf(key, record);
      if (!fields.ok()) return fields.status();
      value.fields = std::move(*fields);
      break;
    }
  }
  return value;
}

// Whether a restored limiter payload is a state the limiter commands read: an algorithm's, or
// RL.TAKE's states of several policies, each an algorithm's.
bool IsLimiterState(std::string_view payload) {
  if (algorithms::PeekAlgorithm(payload) != algorithms::AlgorithmTag::kPolicySet) {
    return algorithms::IsAlgorithmState(payload);
  }
  bool states_ok = true;
  const Status read = PolicyStates::ForEachStored(payload, [&](const PolicyStates::EntryView& e) {
    states_ok = states_ok && algorithms::IsAlgorithmState(e.state);
  });
  return read.ok() && states_ok;
}

// Writes `value` as `key`, which holds nothing now (a hash's fields would join an old one's),
// with the expiry `expire_at_ms` (0: none).
Status WriteValue(CommandContext& ctx, std::string_view key, const DumpValue& value,
                  int64_t expire_at_ms) {
  storage::Engine& engine = ctx.engine();
  Status written = Status::Ok();
  switch (value.type) {
    case KeyType::kString:
    case KeyType::kLimiter: {  // one record, its expiry in it
      storage::Metadata meta;
      meta.type = value.type;
      meta.expire_at_ms = expire_at_ms;
      engine.Put(key, meta, value.bytes);
      return Status::Ok();
    }
    case KeyType::kList:
      written = storage::ListType(engine, ctx.now_ms).Replace(key, value.elements);
      break;
    case KeyType::kSet:
      written = storage::SetType(engine, ctx.now_ms).Replace(key, value.elements);
      break;
    case KeyType::kZSet:
      written = storage::ZSetType(engine, ctx.now_ms).Replace(key, value.scored);
      break;
    case KeyType::kHash: {
      std::vector<storage::FieldValue> pairs;
      pairs.reserve(value.fields.size());
      for (const auto& [field, field_value] : value.fields) pairs.push_back({field, field_value});
      written = storage::HashType(engine, ctx.now_ms).Set(key, pairs).status();
      break;
    }
  }
  if (!written.ok() || expire_at_ms == 0) return written;
  // The composite types write their record without an expiry: it is set on the record.
  auto view = engine.GetView(key, ctx.now_ms);
  if (!view.ok()) return view.status();
  if (!view->has_value()) return Err("the restored key vanished");
  storage::Metadata meta = (*view)->meta;
  meta.expire_at_ms = expire_at_ms;
  engine.Put(key, meta, std::string((*view)->payload));  // a copy: Put may move the record
  return Status::Ok();
}

// DUMP key: the serialized value, or nil when the key is missing.
void DumpCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupAny(ctx, args[1], &record)) return;
  if (!record) {
    ctx.reply.Null();
    return;
  }
  auto value = ReadValue(ctx, args[1], *record);
  if (ReplyIfError(ctx, value.status())) return;
  ctx.reply.Bulk(storage::EncodeDumpPayload(*value));
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency], in
// Redis's order of checks: the options, the key (BUSYKEY without REPLACE), the TTL, the
// payload's footer, its body. IDLETIME and FREQ are checked and ignored: sluice evicts
// nothing. A TTL already past restores nothing (and REPLACE still deletes), as Redis.
void RestoreCommand(CommandContext& ctx, Args args) {
  bool replace = false;
  bool absolute_ttl = false;
  bool idle_given = false;
  bool freq_given = false;
  for (size_t j = 4; j < args.size(); ++j) {
    const bool has_value = j + 1 < args.size();
    int64_t number = 0;
    if (EqualsIgnoreCase(args[j], "replace")) {
      replace = true;
    } else if (EqualsIgnoreCase(args[j], "absttl")) {
      absolute_ttl = true;
    } else if (EqualsIgnoreCase(args[j], "idletime") && has_value && !freq_given) {
      if (!ParseInt64(args[++j], &number)) return ReplyError(ctx, NotIntegerError());
      if (number < 0) return ReplyError(ctx, Err("Invalid IDLETIME value, must be >= 0"));
      idle_given = true;
    } else if (EqualsIgnoreCase(args[j], "freq") && has_value && !idle_given) {
      if (!ParseInt64(args[++j], &number)) return ReplyError(ctx, NotIntegerError());
      if (number < 0 || number > 255) {
        return ReplyError(ctx, Err("Invalid FREQ value, must be >= 0 and <= 255"));
      }
      freq_given = true;
    } else {
      return ReplyError(ctx, SyntaxError());
    }
  }
  // Without REPLACE a live key refuses (an expired one is expired, with its event, as Redis's
  // lookupKeyWrite); with REPLACE whatever is stored goes, expired or not, with no event.
  bool existing = false;
  if (!replace) {
    std::optional<Record> live;
    if (!LookupAnyWithoutLongPayload(ctx, args[1], &live)) return;
    if (live) return ReplyError(ctx, Status(Code::kRaw, "BUSYKEY Target key name already exists."));
  } else {
    // At a time before every expiry.
    auto stored = ctx.engine().GetViewWithoutLongPayload(args[1], /*now_ms=*/0);
    if (ReplyIfError(ctx, stored.status())) return;
    existing = stored->has_value();
  }
  int64_t ttl = 0;
  if (!ParseInt64(args[2], &ttl)) return ReplyError(ctx, NotIntegerError());
  if (ttl < 0) return ReplyError(ctx, Err("Invalid TTL value, must be >= 0"));
  auto value = storage::DecodeDumpPayload(args[3]);
  if (ReplyIfError(ctx, value.status())) return;
  if (value->type == KeyType::kLimiter && !IsLimiterState(value->bytes)) {
    return ReplyError(ctx, Err("Bad data format"));
  }

  if (existing) ctx.engine().Delete(args[1]);
  const int64_t expire_at_ms = ttl != 0 && !absolute_ttl ? ttl + ctx.clock_ms() : ttl;
  if (expire_at_ms != 0 && expire_at_ms <= ctx.clock_ms()) {
    NotifyKeyspaceEventIf(ctx, existing, kNotifyGeneric, "del", args[1]);
    ctx.reply.Simple("OK");
    return;
  }
  // The old key went first, so the engine reports the write as a new key ("new"), as Redis's
  // dbAdd after its dbDelete.
  if (ReplyIfError(ctx, WriteValue(ctx, args[1], *value, expire_at_ms))) return;
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "restore", args[1]);
  ctx.reply.Simple("OK");
}

constexpr std::string_view kRestoreCategories[] = {"@keyspace", "@write", "@slow", "@dangerous"};

}  // namespace

void RegisterDumpCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register(
      WithTips({"dump", 2, F::kReadOnly, 1, 1, 1, DumpCommand, "generic"}, kNondeterministic));
  CommandSpec restore{"restore", -4, F::kWrite, 1, 1, 1, RestoreCommand, "generic"};
  restore.acl_categories = kRestoreCategories;
  table.Register(restore);
}

}  // namespace sluice::server
