// Bitmap commands on strings: SETBIT GETBIT BITCOUNT BITPOS BITOP, with Redis 7.0's arguments,
// replies and errors (bitops.c). The bit math is bit_ops.h's; strings are read and written as
// SETRANGE does, so WATCH, MULTI/EXEC and scripts see them as any string write.
//
// Argument order as Redis 7.0: BITCOUNT and BITPOS look the key up before they read their
// range, so a missing key answers 0 (BITPOS: -1 or 0) and another type WRONGTYPE whatever the
// range arguments; a string with bad ones gets their error.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/bit_ops.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/keyspace_events.h"
#include "storage/composite.h"
#include "storage/long_string.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;
using storage::RecordView;

Status BitOffsetError() { return Err(std::string(resp::kBitOffsetInvalid)); }

// SETBIT's and GETBIT's offset, limited to proto-max-bulk-len bytes as Redis's.
std::optional<uint64_t> ParseOffset(CommandContext& ctx, std::string_view arg) {
  return bits::ParseBitOffset(arg, /*bits=*/0, ctx.server.config->proto_max_bulk_len);
}

// SETBIT key offset value: the old bit; the string grows with zero bytes and keeps its TTL.
void SetBitCommand(CommandContext& ctx, Args args) {
  const std::optional<uint64_t> offset = ParseOffset(ctx, args[2]);
  if (!offset) {
    ReplyError(ctx, BitOffsetError());
    return;
  }
  int64_t value = 0;
  if (!ParseInt64(args[3], &value) || (value & ~int64_t{1}) != 0) {
    ReplyError(ctx, Err(std::string(resp::kBitValueInvalid)));
    return;
  }
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  // The one byte the bit is in: a long string has its chunk read and written, not all of it.
  const uint64_t byte_offset = *offset >> 3;
  std::string buffer;
  char byte = 0;
  if (record) {
    auto read = storage::ReadStringRange(ctx.engine(), args[1], *record, byte_offset, 1, &buffer);
    if (ReplyIfError(ctx, read.status())) return;
    if (!read->empty()) byte = read->front();
  }
  const bool grew = !record || storage::StringLength(*record) <= byte_offset;
  std::string new_byte(1, byte);
  const bool old = bits::SetBit(new_byte, *offset & 7, value == 1);
  // Written only if something changed: a WATCH survives a bit set as it was (as Redis 7.0.15).
  if (grew || old != (value == 1)) {
    auto written = storage::WriteStringRange(ctx.engine(), args[1], record, byte_offset, new_byte);
    if (ReplyIfError(ctx, written.status())) return;
    NotifyKeyspaceEvent(ctx, kNotifyString, "setbit", args[1]);
  }
  ctx.reply.Int(old ? 1 : 0);
}

void GetBitCommand(CommandContext& ctx, Args args) {
  const std::optional<uint64_t> offset = ParseOffset(ctx, args[2]);
  if (!offset) {
    ReplyError(ctx, BitOffsetError());
    return;
  }
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  std::string buffer;
  auto byte = storage::ReadStringRange(ctx.engine(), args[1], *record, *offset >> 3, 1, &buffer);
  if (ReplyIfError(ctx, byte.status())) return;
  ctx.reply.Int(bits::GetBit(*byte, *offset & 7) ? 1 : 0);
}

// Calls visit(first_bit, bytes, piece) for the stored runs of bytes of `record` that hold
// `range` (in bits), in order, `piece` being the part of the range in `bytes` (relative to
// them), until it returns false. A long string's chunks are looked at where they are stored,
// never built into the whole range: the bits between runs are zeros.
template <typename Visit>
Status VisitBitRange(CommandContext& ctx, std::string_view key, const RecordView& record,
                     bits::BitRange range, Visit visit) {
  if (range.empty()) return Status::Ok();
  const auto first_byte = static_cast<uint64_t>(range.first >> 3);
  const auto last_byte = static_cast<uint64_t>(range.last >> 3);
  return storage::VisitStringRange(
      ctx.engine(), key, record, first_byte, last_byte - first_byte + 1,
      [&](uint64_t at, std::string_view bytes) {
        const auto first_bit = static_cast<int64_t>(at * 8);
        const auto end_bit = static_cast<int64_t>((at + bytes.size()) * 8);
        const bits::BitRange piece{std::max(range.first, first_bit) - first_bit,
                                   std::min(range.last, end_bit - 1) - first_bit};
        return visit(first_bit, bytes, piece);
      });
}

// BITPOS over `range` of a string: the first `bit` in its stored runs, or (for 0) the first
// bit between them.
StatusOr<int64_t> FindBitInString(CommandContext& ctx, std::string_view key,
                                  const RecordView& record, bool bit, bits::BitRange range,
                                  bool end_given) {
  int64_t found = -1;
  int64_t unseen = range.first;  // the first bit of the range no run has held yet
  Status visited =
      VisitBitRange(ctx, key, record, range,
                    [&](int64_t first_bit, std::string_view bytes, bits::BitRange piece) {
                      if (!bit && first_bit + piece.first > unseen) {  // zeros between two runs
                        found = unseen;
                        return false;
                      }
                      const int64_t in_piece = bits::FindBit(bytes, bit, piece, /*end_given=*/true);
                      if (in_piece >= 0) found = first_bit + in_piece;
                      unseen = first_bit + piece.last + 1;
                      return found < 0;
                    });
  if (!visited.ok()) return visited;
  if (found >= 0 || bit || range.empty()) return found;
  if (unseen <= range.last) return unseen;  // zeros after the last run
  // Without an end the string goes on with zero bits: the first 0 is the one after the range.
  return end_given ? -1 : range.last + 1;
}

// BITCOUNT's and BITPOS's optional unit: BYTE (the default) or BIT.
StatusOr<bits::Unit> ParseUnit(std::string_view arg) {
  if (IsCKeyword(arg, "bit")) return bits::Unit::kBit;
  if (IsCKeyword(arg, "byte")) return bits::Unit::kByte;
  return SyntaxError();
}

// BITCOUNT key [start end [BYTE|BIT]].
StatusOr<bits::BitRange> ParseCountRange(Args args, int64_t length) {
  if (args.size() == 2) return bits::ResolveRange(length, 0, -1, bits::Unit::kByte);
  if (args.size() != 4 && args.size() != 5) return SyntaxError();
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(args[2], &start) || !ParseInt64(args[3], &end)) return NotIntegerError();
  // Both from the end with start after end: empty, before clamping could make them overlap,
  // and before the unit is read (Redis 7.0 answers 0 here whatever follows).
  if (start < 0 && end < 0 && start > end) return bits::BitRange{};
  bits::Unit unit = bits::Unit::kByte;
  if (args.size() == 5) {
    auto parsed = ParseUnit(args[4]);
    if (!parsed.ok()) return parsed.status();
    unit = *parsed;
  }
  return bits::ResolveRange(length, start, end, unit);
}

void BitCountCommand(CommandContext& ctx, Args args) {
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  auto range = ParseCountRange(args, static_cast<int64_t>(storage::StringLength(*record)));
  if (ReplyIfError(ctx, range.status())) return;
  int64_t count = 0;
  Status counted = VisitBitRange(ctx, args[1], *record, *range,
                                 [&](int64_t, std::string_view bytes, bits::BitRange piece) {
                                   count += bits::CountBits(bytes, piece);
                                   return true;
                                 });
  if (ReplyIfError(ctx, counted)) return;
  ctx.reply.Int(count);
}

struct PosRange {
  bits::BitRange range;
  bool end_given = false;
};

// BITPOS key bit [start [end [BYTE|BIT]]]: start, then the unit, then end, as Redis reads them.
StatusOr<PosRange> ParsePosRange(Args args, int64_t length) {
  if (args.size() == 3) return PosRange{bits::ResolveRange(length, 0, -1, bits::Unit::kByte)};
  if (args.size() > 6) return SyntaxError();
  int64_t start = 0;
  if (!ParseInt64(args[3], &start)) return NotIntegerError();
  bits::Unit unit = bits::Unit::kByte;
  if (args.size() == 6) {
    auto parsed = ParseUnit(args[5]);
    if (!parsed.ok()) return parsed.status();
    unit = *parsed;
  }
  PosRange out;
  int64_t end = std::numeric_limits<int64_t>::max();  // to the end of the string
  if (args.size() >= 5) {
    if (!ParseInt64(args[4], &end)) return NotIntegerError();
    out.end_given = true;
  }
  out.range = bits::ResolveRange(length, start, end, unit);
  return out;
}

void BitPosCommand(CommandContext& ctx, Args args) {
  int64_t bit = 0;
  if (!ParseInt64(args[2], &bit)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  if (bit != 0 && bit != 1) {
    ReplyError(ctx, Err(std::string(resp::kBitArgumentNotBinary)));
    return;
  }
  std::optional<RecordView> record;
  if (!LookupTypedWithoutLongPayload(ctx, args[1], KeyType::kString, &record)) return;
  if (!record) {  // endless zero bits
    ctx.reply.Int(bit == 1 ? -1 : 0);
    return;
  }
  auto parsed = ParsePosRange(args, static_cast<int64_t>(storage::StringLength(*record)));
  if (ReplyIfError(ctx, parsed.status())) return;
  auto found = FindBitInString(ctx, args[1], *record, bit == 1, parsed->range, parsed->end_given);
  if (ReplyIfError(ctx, found.status())) return;
  ctx.reply.Int(*found);
}

StatusOr<bits::BitOp> ParseBitOp(std::string_view name) {
  if (IsCKeyword(name, "and")) return bits::BitOp::kAnd;
  if (IsCKeyword(name, "or")) return bits::BitOp::kOr;
  if (IsCKeyword(name, "xor")) return bits::BitOp::kXor;
  if (IsCKeyword(name, "not")) return bits::BitOp::kNot;
  return SyntaxError();
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]: the result's length. It replaces destkey,
// whatever that held, as a string without TTL; an empty result deletes destkey. The sources
// are read lookups (keyspace hits and misses), in order, up to the first of another type.
void BitOpCommand(CommandContext& ctx, Args args) {
  auto op = ParseBitOp(args[1]);
  if (ReplyIfError(ctx, op.status())) return;
  if (*op == bits::BitOp::kNot && args.size() != 4) {
    ReplyError(ctx, Err(std::string(resp::kBitOpNotOneSource)));
    return;
  }
  std::vector<Record> records;
  records.reserve(args.size() - 3);
  {
    LookupCounting counting(ctx, true);
    for (std::string_view key : args.subspan(3)) {
      std::optional<Record> record;
      if (!LookupTyped(ctx, key, KeyType::kString, &record)) return;
      records.push_back(record ? std::move(*record) : Record{});
    }
  }
  std::vector<std::string_view> sources;
  sources.reserve(records.size());
  for (const Record& record : records) sources.push_back(record.payload);
  const std::string result = bits::Combine(*op, sources);
  const std::string_view dest = args[2];
  const bool existed = StoreDeletesKey(ctx, result.empty(), dest);
  if (!result.empty()) {
    PutString(ctx, dest, result, 0);
  } else if (ReplyIfError(ctx, storage::DeleteIfPresent(ctx.engine(), dest, ctx.now_ms))) {
    return;
  }
  NotifyStored(ctx, kNotifyString, "set", dest, !result.empty(), existed);
  ctx.reply.Int(static_cast<int64_t>(result.size()));
}

}  // namespace

void RegisterBitmapCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"setbit", 4, F::kWrite, 1, 1, 1, SetBitCommand, "bitmap"});
  table.Register({"getbit", 3, F::kReadOnly | F::kFast, 1, 1, 1, GetBitCommand, "bitmap"});
  table.Register({"bitcount", -2, F::kReadOnly, 1, 1, 1, BitCountCommand, "bitmap"});
  table.Register({"bitpos", -3, F::kReadOnly, 1, 1, 1, BitPosCommand, "bitmap"});
  // Destination and sources in one key range (2 to the last argument), as Redis's COMMAND
  // INFO; a WATCH is touched only on the destination, the one whose record it writes.
  table.Register({"bitop", -4, F::kWrite, 2, -1, 1, BitOpCommand, "bitmap"});
}

}  // namespace sluice::server
