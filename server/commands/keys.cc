// Generic key commands: DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT EXPIRETIME
// PEXPIRETIME TTL PTTL PERSIST KEYS SCAN RENAME, with Redis 7.0's replies and errors.

#include <charconv>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/expire_time.h"
#include "server/commands/helpers.h"
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
      return Err("Unsupported option " + std::string(option));
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
  std::string command(args[0]);
  for (char& c : command) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto when = ParseExpireCommandTime(args[2], kUnit, ctx.clock_ms(), command);
  if (ReplyIfError(ctx, when.status())) return;

  std::optional<Record> record;
  if (!LookupAny(ctx, args[1], &record)) return;
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
  } else {
    record->meta.expire_at_ms = *when;
    ctx.engine().Put(args[1], *record);
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
  if (!LookupAny(ctx, args[1], &record)) return;
  if (!record || record->meta.expire_at_ms == 0) {
    ctx.reply.Int(0);
    return;
  }
  record->meta.expire_at_ms = 0;
  ctx.engine().Put(args[1], *record);
  ctx.reply.Int(1);
}

// ---- Key space ------------------------------------------------------------------------

void KeysCommand(CommandContext& ctx, Args args) {
  auto keys = ctx.engine().Keys(args[1], ctx.now_ms);
  if (ReplyIfError(ctx, keys.status())) return;
  ReplyBulks(ctx, *keys);
}

struct ScanArgs {
  uint64_t cursor = 0;
  std::string_view match = "*";
  std::optional<std::string_view> type;
  int64_t count = 10;
};

// Redis reads a SCAN cursor with strtoul: the text ends at its first NUL byte, "" is 0, leading
// zeros and a sign are allowed ("-1" wraps around to the largest cursor); a leading space, any
// other byte and a value past 64 bits are refused.
bool ParseScanCursor(std::string_view text, uint64_t* cursor) {
  text = text.substr(0, text.find('\0'));
  if (text.empty()) {
    *cursor = 0;
    return true;
  }
  const bool negative = text[0] == '-';
  if (negative || text[0] == '+') text.remove_prefix(1);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *cursor);
  if (error != std::errc() || end != text.data() + text.size()) return false;
  if (negative) *cursor = 0 - *cursor;
  return true;
}

StatusOr<ScanArgs> ParseScan(Args args) {
  ScanArgs parsed;
  if (!ParseScanCursor(args[1], &parsed.cursor)) return Err("invalid cursor");
  ArgCursor cursor(args.subspan(2));
  while (!cursor.Done()) {
    if (cursor.Remaining() < 2) return SyntaxError();
    if (cursor.NextIf("COUNT")) {
      parsed.count = cursor.Next<int64_t>();
      if (cursor.ok() && parsed.count < 1) return SyntaxError();
    } else if (cursor.NextIf("MATCH")) {
      parsed.match = cursor.Next();
    } else if (cursor.NextIf("TYPE")) {
      parsed.type = cursor.Next();
    } else {
      return SyntaxError();
    }
  }
  if (!cursor.ok()) return cursor.status();
  return parsed;
}

void ReplyScanPage(CommandContext& ctx, uint64_t next_cursor,
                   const std::vector<std::string>& keys) {
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(next_cursor));
  ReplyBulks(ctx, keys);
}

void ScanCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseScan(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  storage::ScanFilter filter;
  filter.match = parsed->match;
  if (parsed->type) {
    filter.type = storage::ParseTypeName(*parsed->type);
    if (!filter.type) {  // no key can have an unknown type
      ReplyScanPage(ctx, 0, {});
      return;
    }
  }
  std::string after;
  if (parsed->cursor != 0) after = ctx.server.scan_cursors.Find(parsed->cursor).value_or("");
  auto page = ctx.engine().Scan(after, static_cast<size_t>(parsed->count), filter, ctx.now_ms);
  if (ReplyIfError(ctx, page.status())) return;
  uint64_t next = page->done ? 0 : ctx.server.scan_cursors.Save(page->last_key);
  ReplyScanPage(ctx, next, page->keys);
}

void RenameCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupAny(ctx, args[1], &record)) return;
  if (!record) {
    ReplyError(ctx, Err(std::string(resp::kNoSuchKey)));
    return;
  }
  if (args[1] != args[2]) {
    // A hash, zset or list carries its elements: they are copied under a fresh version for
    // the new name (O(n), as Redis's RENAME is O(1) only because it moves a pointer); the
    // source's old sub-entries become garbage for the compaction filter. The TTL is kept.
    auto moved = storage::CopyComposite(ctx.engine(), args[1], *record, args[2]);
    if (ReplyIfError(ctx, moved.status())) return;
    ctx.engine().Delete(args[1]);
    ctx.engine().Put(args[2], *moved);
  }
  ctx.reply.Ok();
}

}  // namespace

void RegisterKeyCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"del", -2, F::kWrite, 1, -1, 1, DelCommand, "generic"});
  table.Register({"unlink", -2, kWriteFast, 1, -1, 1, DelCommand, "generic"});
  table.Register({"exists", -2, kReadFast, 1, -1, 1, ExistsCommand, "generic"});
  table.Register({"type", 2, kReadFast, 1, 1, 1, TypeCommand, "generic"});
  table.Register({"expire", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kRelativeSeconds>});
  table.Register({"pexpire", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kRelativeMillis>});
  table.Register(
      {"expireat", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kAbsoluteSeconds>});
  table.Register(
      {"pexpireat", -3, kWriteFast, 1, 1, 1, ExpireCommand<ExpireUnit::kAbsoluteMillis>});
  table.Register({"ttl", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kSeconds>});
  table.Register({"pttl", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kMillis>});
  table.Register({"expiretime", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kExpireTimeSeconds>});
  table.Register({"pexpiretime", 2, kReadFast, 1, 1, 1, TtlCommand<TtlReply::kExpireTimeMillis>});
  table.Register({"persist", 2, kWriteFast, 1, 1, 1, PersistCommand});
  table.Register({"keys", 2, F::kReadOnly, 0, 0, 0, KeysCommand});
  table.Register({"scan", -2, F::kReadOnly, 0, 0, 0, ScanCommand});
  table.Register({"rename", 3, F::kWrite, 1, 2, 1, RenameCommand});
}

}  // namespace sluice::server
