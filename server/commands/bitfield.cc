// BITFIELD and BITFIELD_RO, with Redis 7.0's arguments, replies and errors (bitops.c's
// bitfieldGeneric). The field math is bitfield_ops.h's.
//
// Every operation is parsed before the key is looked up, so an argument error anywhere
// changes nothing. Only GETs: a read lookup (keyspace hits and misses), a missing key reads
// as zeros. Any SET or INCRBY: the string grows with zero bytes to hold the farthest field
// written, even if every write then fails under OVERFLOW FAIL (as Redis), and keeps its TTL.
// The key is written when it grew or a field changed; Redis signals (WATCH) only a change, so
// a WATCH differs in one corner: a string grown by writes that all failed under FAIL.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/bit_ops.h"
#include "server/commands/bitfield_ops.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/keyspace_events.h"
#include "storage/long_string.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::RecordView;

struct FieldOp {
  enum class Kind { kGet, kSet, kIncrBy };
  Kind kind = Kind::kGet;
  bits::FieldType type;
  uint64_t offset = 0;
  int64_t value = 0;  // SET's value, INCRBY's increment
  bits::Overflow overflow = bits::Overflow::kWrap;
};

struct BitfieldArgs {
  std::vector<FieldOp> ops;
  bool writes = false;
  uint64_t last_bit_written = 0;
};

StatusOr<bits::Overflow> ParseOverflow(std::string_view arg) {
  if (IsCKeyword(arg, "wrap")) return bits::Overflow::kWrap;
  if (IsCKeyword(arg, "sat")) return bits::Overflow::kSat;
  if (IsCKeyword(arg, "fail")) return bits::Overflow::kFail;
  return Err(std::string(resp::kBitfieldOverflowInvalid));
}

// The operations after the key, in order; OVERFLOW applies to the SETs and INCRBYs after it.
// A keyword without enough arguments after it is a syntax error, as in Redis.
StatusOr<BitfieldArgs> ParseBitfield(Args args, uint64_t max_bytes) {
  BitfieldArgs parsed;
  bits::Overflow overflow = bits::Overflow::kWrap;
  for (size_t j = 2; j < args.size(); ++j) {
    const size_t remaining = args.size() - j - 1;
    FieldOp op;
    if (IsCKeyword(args[j], "get") && remaining >= 2) {
      op.kind = FieldOp::Kind::kGet;
    } else if (IsCKeyword(args[j], "set") && remaining >= 3) {
      op.kind = FieldOp::Kind::kSet;
    } else if (IsCKeyword(args[j], "incrby") && remaining >= 3) {
      op.kind = FieldOp::Kind::kIncrBy;
    } else if (IsCKeyword(args[j], "overflow") && remaining >= 1) {
      auto parsed_overflow = ParseOverflow(args[++j]);
      if (!parsed_overflow.ok()) return parsed_overflow.status();
      overflow = *parsed_overflow;
      continue;
    } else {
      return SyntaxError();
    }
    std::optional<bits::FieldType> type = bits::ParseFieldType(args[j + 1]);
    if (!type) return Err(std::string(resp::kBitfieldTypeInvalid));
    std::optional<uint64_t> offset = bits::ParseBitOffset(args[j + 2], type->bits, max_bytes);
    if (!offset) return Err(std::string(resp::kBitOffsetInvalid));
    op.type = *type;
    op.offset = *offset;
    op.overflow = overflow;
    if (op.kind != FieldOp::Kind::kGet) {
      parsed.writes = true;
      parsed.last_bit_written =
          std::max(parsed.last_bit_written, *offset + static_cast<uint64_t>(type->bits) - 1);
      if (!ParseInt64(args[j + 3], &op.value)) return NotIntegerError();
    }
    parsed.ops.push_back(op);
    j += op.kind == FieldOp::Kind::kGet ? 2 : 3;
  }
  return parsed;
}

// A run of nearby fields' bytes, from byte `first` on: what the string holds there, zeros past
// its end.
struct Window {
  uint64_t first = 0;
  std::string bytes;
  bool written = false;  // a SET or INCRBY field lies in it
};

uint64_t FirstByte(const FieldOp& op) { return op.offset >> 3; }
uint64_t LastByte(const FieldOp& op) {
  return (op.offset + static_cast<uint64_t>(op.type.bits) - 1) >> 3;
}

// The fields' bytes in windows, ascending: fields less than a chunk apart share one, so a
// window costs a chunk read or two, and fields far apart never have the bytes between them read
// or written (two counters at the ends of a 512 MB bitmap are two small windows).
std::vector<Window> FieldWindows(const BitfieldArgs& args) {
  std::vector<const FieldOp*> ops;
  for (const FieldOp& op : args.ops) ops.push_back(&op);
  std::sort(ops.begin(), ops.end(),
            [](const FieldOp* a, const FieldOp* b) { return a->offset < b->offset; });
  std::vector<Window> windows;
  uint64_t last = 0;
  for (const FieldOp* op : ops) {
    if (windows.empty() || FirstByte(*op) > last + storage::kStringChunkBytes) {
      if (!windows.empty()) windows.back().bytes.resize(last - windows.back().first + 1, '\0');
      windows.push_back(Window{FirstByte(*op), "", false});
      last = 0;
    }
    last = std::max(last, LastByte(*op));
  }
  if (!windows.empty()) windows.back().bytes.resize(last - windows.back().first + 1, '\0');
  return windows;
}

// The window that holds `op` (the last one starting at or before its first byte).
Window& WindowOf(std::vector<Window>& windows, const FieldOp& op) {
  auto after = std::upper_bound(windows.begin(), windows.end(), FirstByte(op),
                                [](uint64_t byte, const Window& w) { return byte < w.first; });
  return *(after - 1);
}

// Runs the operations on their windows in order, one result each: GET the value, SET the old
// value, INCRBY the new one, nullopt for a write refused under OVERFLOW FAIL. *changed: whether
// a field changed (a SET of the value a field holds changes nothing, as in Redis 7.0.15: the
// key is not written, so a WATCH survives).
std::vector<std::optional<int64_t>> ExecBitfield(const BitfieldArgs& args,
                                                 std::vector<Window>& windows, bool* changed) {
  std::vector<std::optional<int64_t>> results;
  results.reserve(args.ops.size());
  for (const FieldOp& op : args.ops) {
    Window& window = WindowOf(windows, op);
    const uint64_t offset = op.offset - window.first * 8;
    const int64_t old = bits::GetField(window.bytes, offset, op.type);
    if (op.kind == FieldOp::Kind::kGet) {
      results.emplace_back(old);
      continue;
    }
    window.written = true;
    const std::optional<int64_t> stored =
        op.kind == FieldOp::Kind::kSet ? bits::FieldForSet(op.type, op.value, op.overflow)
                                       : bits::FieldForIncrBy(op.type, old, op.value, op.overflow);
    if (stored) {
      bits::SetField(window.bytes, offset, op.type, *stored);
      *changed = *changed || *stored != old;
    }
    results.push_back(!stored ? stored : op.kind == FieldOp::Kind::kSet ? old : *stored);
  }
  return results;
}

// Writes back the windows that hold a written field, cut at the string's new end (a GET past
// it does not make it longer). Each write sees the string the one before it left.
Status WriteWindows(CommandContext& ctx, std::string_view key, std::optional<RecordView> record,
                    std::vector<Window>& windows, uint64_t new_length) {
  bool first = true;
  for (Window& window : windows) {
    if (!window.written) continue;
    window.bytes.resize(std::min<uint64_t>(window.bytes.size(), new_length - window.first));
    if (!first) {
      auto again = ctx.engine().GetViewWithoutLongPayload(key, ctx.now_ms);
      if (!again.ok()) return again.status();
      record = *again;
    }
    first = false;
    auto written = storage::WriteStringRange(ctx.engine(), key, record, window.first, window.bytes);
    if (!written.ok()) return written.status();
  }
  return Status::Ok();
}

void BitfieldGeneric(CommandContext& ctx, Args args, bool read_only) {
  auto parsed = ParseBitfield(args, ctx.server.config->proto_max_bulk_len);
  if (ReplyIfError(ctx, parsed.status())) return;
  if (parsed->writes && read_only) {
    ReplyError(ctx, Err(std::string(resp::kBitfieldRoGetOnly)));
    return;
  }
  std::optional<RecordView> record;
  {
    LookupCounting counting(ctx, !parsed->writes);  // GETs alone: a read lookup, as BITFIELD_RO
    if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  }
  // Only the bytes of the fields are read (and written): a long string's chunks of them.
  std::vector<Window> windows = FieldWindows(*parsed);
  if (record) {
    std::string buffer;
    for (Window& window : windows) {
      auto read = storage::ReadStringRange(ctx.engine(), args[1], *record, window.first,
                                           window.bytes.size(), &buffer);
      if (ReplyIfError(ctx, read.status())) return;
      window.bytes.replace(0, read->size(), *read);
    }
  }
  const uint64_t old_length = record ? storage::StringLength(*record) : 0;
  const uint64_t written_length = parsed->writes ? (parsed->last_bit_written >> 3) + 1 : 0;
  bool changed = false;
  const std::vector<std::optional<int64_t>> results = ExecBitfield(*parsed, windows, &changed);
  if (changed || written_length > old_length) {
    const uint64_t new_length = std::max(old_length, written_length);
    if (ReplyIfError(ctx, WriteWindows(ctx, args[1], record, windows, new_length))) return;
    NotifyKeyspaceEvent(ctx, kNotifyString, "setbit", args[1]);
  }
  ctx.reply.Array(static_cast<int64_t>(results.size()));
  for (const std::optional<int64_t>& result : results) {
    if (result) {
      ctx.reply.Int(*result);
    } else {
      ctx.reply.Null();
    }
  }
}

void BitfieldCommand(CommandContext& ctx, Args args) { BitfieldGeneric(ctx, args, false); }
void BitfieldRoCommand(CommandContext& ctx, Args args) { BitfieldGeneric(ctx, args, true); }

}  // namespace

void RegisterBitfieldCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"bitfield", -2, F::kWrite, 1, 1, 1, BitfieldCommand, "bitmap"});
  table.Register(
      {"bitfield_ro", -2, F::kReadOnly | F::kFast, 1, 1, 1, BitfieldRoCommand, "bitmap"});
}

}  // namespace sluice::server
