#include "server/commands/bitfield_ops.h"

#include <limits>

#include "common/string2ll.h"

namespace sluice::server::bits {
namespace {

enum class Fit { kFits, kOver, kUnder };

struct Checked {
  Fit fit = Fit::kFits;
  uint64_t wrapped = 0;  // value + increment in the field's width, two's complement
};

// Redis's checkUnsignedBitfieldOverflow: `value` as stored (a SET value is its 64-bit two's
// complement), the arithmetic unsigned as Redis's.
Checked CheckUnsigned(uint64_t value, int64_t increment, int bits) {
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const auto max_increment = static_cast<int64_t>(max - value);
  const auto min_increment = static_cast<int64_t>(-value);
  Checked out;
  out.wrapped = (value + static_cast<uint64_t>(increment)) & max;
  if (value > max || (increment > 0 && increment > max_increment)) {
    out.fit = Fit::kOver;
  } else if (increment < 0 && increment < min_increment) {
    out.fit = Fit::kUnder;
  }
  return out;
}

// Redis's checkSignedBitfieldOverflow, including its bounds computed with wrapping
// subtraction (a SET value far below the minimum can count as above the maximum, as in Redis).
Checked CheckSigned(int64_t value, int64_t increment, int bits) {
  const int64_t max =
      bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const auto max_increment =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const auto min_increment =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  Checked out;
  uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(increment);
  if (bits < 64) {  // sign-extend from the field's top bit
    const uint64_t high = ~uint64_t{0} << bits;
    sum = (sum & (uint64_t{1} << (bits - 1))) != 0 ? (sum | high) : (sum & ~high);
  }
  out.wrapped = sum;
  if (value > max || (bits != 64 && increment > max_increment) ||
      (value >= 0 && increment > 0 && increment > max_increment)) {
    out.fit = Fit::kOver;
  } else if (value < min || (bits != 64 && increment < min_increment) ||
             (value < 0 && increment < 0 && increment < min_increment)) {
    out.fit = Fit::kUnder;
  }
  return out;
}

std::optional<int64_t> Store(FieldType type, int64_t value, int64_t increment, Overflow overflow) {
  const Checked checked = type.is_signed
                              ? CheckSigned(value, increment, type.bits)
                              : CheckUnsigned(static_cast<uint64_t>(value), increment, type.bits);
  if (checked.fit == Fit::kFits) {
    return static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(increment));
  }
  switch (overflow) {
    case Overflow::kWrap:
      return static_cast<int64_t>(checked.wrapped);
    case Overflow::kSat:
      if (type.is_signed) {
        const int64_t max = type.bits == 64 ? std::numeric_limits<int64_t>::max()
                                            : (int64_t{1} << (type.bits - 1)) - 1;
        return checked.fit == Fit::kOver ? max : -max - 1;
      }
      return checked.fit == Fit::kOver ? static_cast<int64_t>((uint64_t{1} << type.bits) - 1) : 0;
    case Overflow::kFail:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FieldType> ParseFieldType(std::string_view arg) {
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return std::nullopt;
  std::string_view width = arg.substr(1);
  width = width.substr(0, width.find('\0'));
  int64_t bits = 0;
  const bool is_signed = arg[0] == 'i';
  if (!ParseInt64(width, &bits) || bits < 1 || bits > (is_signed ? 64 : 63)) return std::nullopt;
  return FieldType{is_signed, static_cast<int>(bits)};
}

int64_t GetField(std::string_view s, uint64_t offset, FieldType type) {
  uint64_t value = 0;
  for (int j = 0; j < type.bits; ++j, ++offset) {
    const uint64_t byte = offset >> 3;
    const uint64_t bit =
        byte < s.size() ? (static_cast<uint8_t>(s[byte]) >> (7 - (offset & 7))) & 1 : 0;
    value = (value << 1) | bit;
  }
  if (type.is_signed && type.bits < 64 && (value & (uint64_t{1} << (type.bits - 1))) != 0) {
    value |= ~uint64_t{0} << type.bits;
  }
  return static_cast<int64_t>(value);
}

void SetField(std::string& s, uint64_t offset, FieldType type, int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  for (int j = type.bits - 1; j >= 0; --j, ++offset) {
    const uint64_t byte = offset >> 3;
    const auto mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
    auto current = static_cast<uint8_t>(s[byte]);
    current = ((bits >> j) & 1) != 0 ? (current | mask) : (current & static_cast<uint8_t>(~mask));
    s[byte] = static_cast<char>(current);
  }
}

std::optional<int64_t> FieldForSet(FieldType type, int64_t value, Overflow overflow) {
  return Store(type, value, 0, overflow);
}

std::optional<int64_t> FieldForIncrBy(FieldType type, int64_t old, int64_t increment,
                                      Overflow overflow) {
  return Store(type, old, increment, overflow);
}

}  // namespace sluice::server::bits
