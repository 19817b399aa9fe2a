#pragma once

// The bit math of SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP over a string's bytes, as Redis
// 7.0's bitops.c computes it; no I/O. Bit 0 is the most significant bit of the first byte.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sluice::server::bits {

// The unit of BITCOUNT's and BITPOS's start and end.
enum class Unit { kByte, kBit };

// An inclusive range of bit positions; empty when first > last.
struct BitRange {
  int64_t first = 0;
  int64_t last = -1;
  bool empty() const { return first > last; }
};

// start..end (inclusive, in `unit`, negative counting from the end) over a string of
// `length` bytes, as Redis converts them: negatives are added to the length, then both are
// clamped to the string. Callers handle their own special cases first (BITCOUNT's).
BitRange ResolveRange(int64_t length, int64_t start, int64_t end, Unit unit);

// The set bits in `range` of `s` (BITCOUNT).
int64_t CountBits(std::string_view s, BitRange range);

// BITPOS: the first bit equal to `bit` in `range` of `s`, or -1. With no end given, a string
// is followed by zero bits, so looking for 0 past the last set bit finds the bit after the
// range (`end_given` false); with an end given, it does not.
int64_t FindBit(std::string_view s, bool bit, BitRange range, bool end_given);

// The bit at `offset`; 0 past the end (GETBIT).
bool GetBit(std::string_view s, uint64_t offset);
// Sets the bit at `offset`, which must be inside `s`; returns its old value (SETBIT).
bool SetBit(std::string& s, uint64_t offset, bool value);

enum class BitOp { kAnd, kOr, kXor, kNot };

// BITOP over `sources` (a missing key is an empty one): the result is as long as the longest
// source, shorter sources padded with zero bytes. kNot takes one source.
std::string Combine(BitOp op, std::span<const std::string_view> sources);

// A bit offset argument, as Redis's getBitOffsetFromArgument: a string2ll integer, or with
// `bits` > 0 also "#n" meaning n * bits (BITFIELD); negative, or a byte offset at or past
// `max_bytes` (proto-max-bulk-len), is refused (nullopt).
std::optional<uint64_t> ParseBitOffset(std::string_view arg, int bits, uint64_t max_bytes);

}  // namespace sluice::server::bits
