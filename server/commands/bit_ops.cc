#include "server/commands/bit_ops.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/string2ll.h"

namespace sluice::server::bits {
namespace {

uint8_t ByteAt(std::string_view s, int64_t i) {
  return static_cast<uint8_t>(s[static_cast<size_t>(i)]);
}

// The bits of a byte from bit `from` (0 = most significant) to the end, and up to bit `to`.
uint8_t FromBitMask(int64_t from) { return static_cast<uint8_t>(0xFF >> (from & 7)); }
uint8_t ToBitMask(int64_t to) { return static_cast<uint8_t>(0xFF << (7 - (to & 7))); }

int64_t PopCount(const char* p, size_t n) {
  int64_t count = 0;
  // Eight bytes at a time: a 512 MB string is counted in well under a second.
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word = 0;
    std::memcpy(&word, p, 8);
    count += std::popcount(word);
  }
  for (; n > 0; ++p, --n) count += std::popcount(static_cast<uint8_t>(*p));
  return count;
}

// The first byte index in [from, to) whose value is not `skip`, or `to`.
int64_t SkipBytes(std::string_view s, int64_t from, int64_t to, uint8_t skip) {
  const uint64_t skip_word = skip == 0 ? 0 : ~uint64_t{0};
  while (from + 8 <= to) {  // whole words first: long runs of zeros or ones are common
    uint64_t word = 0;
    std::memcpy(&word, s.data() + from, 8);
    if (word != skip_word) break;
    from += 8;
  }
  while (from < to && ByteAt(s, from) == skip) ++from;
  return from;
}

}  // namespace

BitRange ResolveRange(int64_t length, int64_t start, int64_t end, Unit unit) {
  const int64_t total = unit == Unit::kBit ? length * 8 : length;
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<int64_t>(start, 0);
  end = std::max<int64_t>(end, 0);
  end = std::min(end, total - 1);
  if (start > end) return {};
  if (unit == Unit::kBit) return {start, end};
  return {start * 8, end * 8 + 7};
}

int64_t CountBits(std::string_view s, BitRange range) {
  if (range.empty()) return 0;
  const int64_t first_byte = range.first >> 3;
  const int64_t last_byte = range.last >> 3;
  const uint8_t first_mask = FromBitMask(range.first);
  const uint8_t last_mask = ToBitMask(range.last);
  if (first_byte == last_byte) {
    return std::popcount(static_cast<uint8_t>(ByteAt(s, first_byte) & first_mask & last_mask));
  }
  int64_t count = std::popcount(static_cast<uint8_t>(ByteAt(s, first_byte) & first_mask));
  count += std::popcount(static_cast<uint8_t>(ByteAt(s, last_byte) & last_mask));
  count += PopCount(s.data() + first_byte + 1, static_cast<size_t>(last_byte - first_byte - 1));
  return count;
}

int64_t FindBit(std::string_view s, bool bit, BitRange range, bool end_given) {
  if (range.empty()) return -1;  // an empty range holds neither a 0 nor a 1
  const int64_t first_byte = range.first >> 3;
  const int64_t last_byte = range.last >> 3;
  // The first wanted bit of byte i, its mask applied: looks for a 1 in the byte, or in its
  // complement when looking for a 0. -1 if there is none.
  auto find_in = [&](int64_t i, uint8_t mask) -> int64_t {
    const auto byte = static_cast<uint8_t>((bit ? ByteAt(s, i) : ~ByteAt(s, i)) & mask);
    return byte == 0 ? -1 : i * 8 + std::countl_zero(byte);
  };
  const uint8_t first_mask = FromBitMask(range.first);
  const uint8_t last_mask = ToBitMask(range.last);
  if (first_byte == last_byte) {
    const int64_t found = find_in(first_byte, first_mask & last_mask);
    if (found >= 0) return found;
  } else {
    int64_t found = find_in(first_byte, first_mask);
    if (found >= 0) return found;
    const int64_t i = SkipBytes(s, first_byte + 1, last_byte, bit ? 0x00 : 0xFF);
    found = find_in(i, i == last_byte ? last_mask : 0xFF);
    if (found >= 0) return found;
  }
  // Without an end the string continues with zero bits: the first 0 is the one after it.
  if (!bit && !end_given) return range.last + 1;
  return -1;
}

bool GetBit(std::string_view s, uint64_t offset) {
  const uint64_t byte = offset >> 3;
  if (byte >= s.size()) return false;
  return ((static_cast<uint8_t>(s[byte]) >> (7 - (offset & 7))) & 1) != 0;
}

bool SetBit(std::string& s, uint64_t offset, bool value) {
  const uint64_t byte = offset >> 3;
  const auto mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
  auto current = static_cast<uint8_t>(s[byte]);
  const bool old = (current & mask) != 0;
  current = value ? (current | mask) : (current & static_cast<uint8_t>(~mask));
  s[byte] = static_cast<char>(current);
  return old;
}

std::string Combine(BitOp op, std::span<const std::string_view> sources) {
  size_t length = 0;
  for (std::string_view source : sources) length = std::max(length, source.size());
  std::string result(length, '\0');
  if (sources.empty()) return result;
  std::memcpy(result.data(), sources[0].data(), sources[0].size());
  auto* out = reinterpret_cast<uint8_t*>(result.data());
  if (op == BitOp::kNot) {
    for (size_t j = 0; j < length; ++j) out[j] = static_cast<uint8_t>(~out[j]);
    return result;
  }
  // One pass per source, the bytes past its end taken as zeros.
  for (std::string_view source : sources.subspan(1)) {
    const auto* in = reinterpret_cast<const uint8_t*>(source.data());
    const size_t n = source.size();
    switch (op) {
      case BitOp::kAnd:
        for (size_t j = 0; j < n; ++j) out[j] &= in[j];
        std::memset(out + n, 0, length - n);
        break;
      case BitOp::kOr:
        for (size_t j = 0; j < n; ++j) out[j] |= in[j];
        break;
      case BitOp::kXor:
        for (size_t j = 0; j < n; ++j) out[j] ^= in[j];
        break;
      case BitOp::kNot:
        break;
    }
  }
  return result;
}

std::optional<uint64_t> ParseBitOffset(std::string_view arg, int bits, uint64_t max_bytes) {
  const bool times_bits = bits > 0 && !arg.empty() && arg[0] == '#';
  int64_t offset = 0;
  if (!ParseInt64(times_bits ? arg.substr(1) : arg, &offset)) return std::nullopt;
  // Redis multiplies in a long long without a check: a product past INT64_MAX wraps (and is
  // then most likely negative, so refused), which is what this does without the UB.
  if (times_bits) {
    offset = static_cast<int64_t>(static_cast<uint64_t>(offset) * static_cast<uint64_t>(bits));
  }
  if (offset < 0 || static_cast<uint64_t>(offset >> 3) >= max_bytes) return std::nullopt;
  return static_cast<uint64_t>(offset);
}

}  // namespace sluice::server::bits
