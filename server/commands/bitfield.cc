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

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;

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

// Runs the operations on `payload` in order, one reply each: GET the value, SET the old
// value, INCRBY the new one, nil for a write refused under OVERFLOW FAIL. Returns whether a
// field changed (a SET of the value a field holds changes nothing, as in Redis 7.0.15: the
// key is not written, so a WATCH of it survives).
bool ExecBitfield(CommandContext& ctx, const BitfieldArgs& args, std::string* payload) {
  bool changed = false;
  ctx.reply.Array(static_cast<int64_t>(args.ops.size()));
  for (const FieldOp& op : args.ops) {
    const int64_t old = bits::GetField(*payload, op.offset, op.type);
    if (op.kind == FieldOp::Kind::kGet) {
      ctx.reply.Int(old);
      continue;
    }
    const std::optional<int64_t> stored =
        op.kind == FieldOp::Kind::kSet ? bits::FieldForSet(op.type, op.value, op.overflow)
                                       : bits::FieldForIncrBy(op.type, old, op.value, op.overflow);
    if (!stored) {
      ctx.reply.Null();
      continue;
    }
    bits::SetField(*payload, op.offset, op.type, *stored);
    changed = changed || *stored != old;
    ctx.reply.Int(op.kind == FieldOp::Kind::kSet ? old : *stored);
  }
  return changed;
}

void BitfieldGeneric(CommandContext& ctx, Args args, bool read_only) {
  auto parsed = ParseBitfield(args, ctx.server.config->proto_max_bulk_len);
  if (ReplyIfError(ctx, parsed.status())) return;
  std::optional<Record> record;
  if (!parsed->writes) {
    LookupCounting counting(ctx, true);  // BITFIELD's GETs are read lookups, as BITFIELD_RO's
    if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
    std::string payload = record ? std::move(record->payload) : std::string();
    (void)ExecBitfield(ctx, *parsed, &payload);
    return;
  }
  if (read_only) {
    ReplyError(ctx, Err(std::string(resp::kBitfieldRoGetOnly)));
    return;
  }
  if (!LookupTyped(ctx, args[1], KeyType::kString, &record)) return;
  std::string payload = record ? std::move(record->payload) : std::string();
  const uint64_t length = (parsed->last_bit_written >> 3) + 1;
  const bool grew = payload.size() < length;
  if (grew) payload.resize(length, '\0');
  const bool changed = ExecBitfield(ctx, *parsed, &payload);
  if (changed || grew) {
    PutString(ctx, args[1], payload, record ? record->meta.expire_at_ms : 0);
    NotifyKeyspaceEvent(ctx, kNotifyString, "setbit", args[1]);
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
