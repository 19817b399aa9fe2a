#include "storage/dump_payload.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

#include "storage/rdb_format.h"

namespace sluice::storage {
namespace {

static_assert(std::endian::native == std::endian::little,
              "RDB's integers and binary doubles are little endian, as this code reads them");

// Redis's RDB object types (rdb.h) that appear in a DUMP payload.
enum RdbType : uint8_t {
  kRdbString = 0,
  kRdbList = 1,
  kRdbSet = 2,
  kRdbZSet = 3,  // scores as text
  kRdbHash = 4,
  kRdbZSet2 = 5,  // scores as binary doubles
  kRdbSetIntset = 11,
  kRdbHashListpack = 16,
  kRdbZSetListpack = 17,
  kRdbListQuicklist2 = 18,
  kRdbSetListpack = 20,  // Redis 7.2's; decoded as well, it costs nothing
  // Not Redis's: a sluice limiter's state, which Redis refuses as an unknown type.
  kLimiterObject = 100,
};

constexpr uint8_t kQuicklistNodePlain = 1;
constexpr uint8_t kQuicklistNodePacked = 2;

const Status kBadFormat = Err("Bad data format");

// ---- Writing ------------------------------------------------------------------------------

void AppendBinaryDouble(std::string* out, double value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out->append(bytes, sizeof bytes);
}

// ---- Reading ------------------------------------------------------------------------------

// The entries of a listpack, as strings (integers in decimal); nullopt when malformed.
std::optional<std::vector<std::string>> ListpackEntries(std::string_view blob) {
  RdbReader in(blob);
  auto total = in.Unsigned(4, /*big=*/false);
  auto count = in.Unsigned(2, /*big=*/false);
  if (!total || !count || *total != blob.size()) return std::nullopt;
  std::vector<std::string> entries;
  for (;;) {
    const size_t entry_start = in.remaining();
    auto first = in.Byte();
    if (!first) return std::nullopt;
    const uint8_t b = *first;
    if (b == 0xff) break;
    std::optional<std::string> entry;
    auto read_int = [&](int bytes) -> std::optional<std::string> {
      auto raw = in.Unsigned(bytes, /*big=*/false);
      if (!raw) return std::nullopt;
      return SignedDecimal(*raw, bytes);
    };
    auto read_str = [&](uint64_t length) -> std::optional<std::string> {
      auto bytes = in.Bytes(length);
      if (!bytes) return std::nullopt;
      return std::string(*bytes);
    };
    if ((b & 0x80) == 0) {
      entry = std::to_string(b & 0x7f);
    } else if ((b & 0xc0) == 0x80) {
      entry = read_str(b & 0x3f);
    } else if ((b & 0xe0) == 0xc0) {
      auto low = in.Byte();
      if (!low) return std::nullopt;
      int value = ((b & 0x1f) << 8) | *low;
      if (value >= (1 << 12)) value -= 1 << 13;
      entry = std::to_string(value);
    } else if ((b & 0xf0) == 0xe0) {
      auto low = in.Byte();
      if (!low) return std::nullopt;
      entry = read_str((uint64_t{b & 0x0fu} << 8) | *low);
    } else if (b == 0xf0) {
      auto length = in.Unsigned(4, /*big=*/false);
      if (!length) return std::nullopt;
      entry = read_str(*length);
    } else if (b >= 0xf1 && b <= 0xf4) {
      constexpr int kWidths[] = {2, 3, 4, 8};
      entry = read_int(kWidths[b - 0xf1]);
    } else {
      return std::nullopt;
    }
    if (!entry) return std::nullopt;
    // The entry's length again, 7 bits a byte, for walking backwards: skipped.
    const size_t length = entry_start - in.remaining();
    const int backlen = length < 128         ? 1
                        : length < 16384     ? 2
                        : length < 2097152   ? 3
                        : length < 268435456 ? 4
                                             : 5;
    if (!in.Bytes(static_cast<uint64_t>(backlen))) return std::nullopt;
    entries.push_back(std::move(*entry));
  }
  if (in.remaining() != 0) return std::nullopt;
  if (*count != 0xffff && *count != entries.size()) return std::nullopt;
  return entries;
}

// The members of an intset, in decimal; nullopt when malformed.
std::optional<std::vector<std::string>> IntsetMembers(std::string_view blob) {
  RdbReader in(blob);
  auto width = in.Unsigned(4, /*big=*/false);
  auto count = in.Unsigned(4, /*big=*/false);
  if (!width || !count || (*width != 2 && *width != 4 && *width != 8)) return std::nullopt;
  if (in.remaining() != *count * *width) return std::nullopt;
  std::vector<std::string> members;
  members.reserve(*count);
  const int bytes = static_cast<int>(*width);
  for (uint64_t i = 0; i < *count; ++i) {
    members.push_back(SignedDecimal(*in.Unsigned(bytes, /*big=*/false), bytes));
  }
  return members;
}

// A sorted set's score as a string (listpack entries, RDB_TYPE_ZSET): Redis's strtod reading.
std::optional<double> ParseScore(std::string_view text) {
  if (text.empty() || text.size() > 128) return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || std::isnan(value)) return std::nullopt;
  return value;
}

// RDB_TYPE_ZSET's score: a length byte (253 NaN, 254 +inf, 255 -inf), then its text.
std::optional<double> TextScore(RdbReader& in) {
  auto length = in.Byte();
  if (!length || *length == 253) return std::nullopt;
  if (*length == 254) return HUGE_VAL;
  if (*length == 255) return -HUGE_VAL;
  auto text = in.Bytes(*length);
  if (!text) return std::nullopt;
  return ParseScore(*text);
}

// A count of elements that each take at least one byte: no more than the bytes left.
std::optional<uint64_t> Count(RdbReader& in) {
  auto count = in.Length();
  if (!count || *count == 0 || *count > in.remaining()) return std::nullopt;
  return count;
}

std::optional<std::vector<std::string>> Strings(RdbReader& in, uint64_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    auto s = in.String();
    if (!s) return std::nullopt;
    out.push_back(std::move(*s));
  }
  return out;
}

// Pairs of a listpack (a hash's fields and values, a sorted set's members and scores).
std::optional<std::vector<std::string>> ListpackPairs(RdbReader& in) {
  auto blob = in.String();
  if (!blob) return std::nullopt;
  auto entries = ListpackEntries(*blob);
  if (!entries || entries->empty() || entries->size() % 2 != 0) return std::nullopt;
  return entries;
}

// The object after the type byte; false when malformed.
bool DecodeObject(uint8_t type, RdbReader& in, DumpValue* value) {
  switch (type) {
    case kRdbString:
    case kLimiterObject: {
      auto s = in.String();
      if (!s) return false;
      value->type = type == kRdbString ? KeyType::kString : KeyType::kLimiter;
      value->bytes = std::move(*s);
      return true;
    }
    case kRdbList:
    case kRdbSet: {
      auto count = Count(in);
      if (!count) return false;
      auto elements = Strings(in, *count);
      if (!elements) return false;
      value->type = type == kRdbList ? KeyType::kList : KeyType::kSet;
      value->elements = std::move(*elements);
      return true;
    }
    case kRdbSetIntset:
    case kRdbSetListpack: {
      auto blob = in.String();
      if (!blob) return false;
      auto members = type == kRdbSetIntset ? IntsetMembers(*blob) : ListpackEntries(*blob);
      if (!members || members->empty()) return false;
      value->type = KeyType::kSet;
      value->elements = std::move(*members);
      return true;
    }
    case kRdbListQuicklist2: {
      auto nodes = Count(in);
      if (!nodes) return false;
      value->type = KeyType::kList;
      for (uint64_t i = 0; i < *nodes; ++i) {
        auto container = in.Length();
        auto blob = in.String();
        if (!container || !blob) return false;
        if (*container == kQuicklistNodePlain) {
          value->elements.push_back(std::move(*blob));
          continue;
        }
        if (*container != kQuicklistNodePacked) return false;
        auto entries = ListpackEntries(*blob);
        if (!entries) return false;
        for (std::string& entry : *entries) value->elements.push_back(std::move(entry));
      }
      return !value->elements.empty();
    }
    case kRdbZSet:
    case kRdbZSet2: {
      auto count = Count(in);
      if (!count) return false;
      value->type = KeyType::kZSet;
      for (uint64_t i = 0; i < *count; ++i) {
        auto member = in.String();
        if (!member) return false;
        std::optional<double> score;
        if (type == kRdbZSet2) {
          auto bytes = in.Bytes(sizeof(double));
          if (!bytes) return false;
          double binary = 0;
          std::memcpy(&binary, bytes->data(), sizeof binary);
          if (!std::isnan(binary)) score = binary;
        } else {
          score = TextScore(in);
        }
        if (!score) return false;
        value->scored.push_back({std::move(*member), *score});
      }
      return true;
    }
    case kRdbZSetListpack: {
      auto entries = ListpackPairs(in);
      if (!entries) return false;
      value->type = KeyType::kZSet;
      for (size_t i = 0; i < entries->size(); i += 2) {
        auto score = ParseScore((*entries)[i + 1]);
        if (!score) return false;
        value->scored.push_back({std::move((*entries)[i]), *score});
      }
      return true;
    }
    case kRdbHash: {
      auto count = Count(in);
      if (!count) return false;
      auto strings = Strings(in, 2 * *count);
      if (!strings) return false;
      value->type = KeyType::kHash;
      for (size_t i = 0; i < strings->size(); i += 2) {
        value->fields.emplace_back(std::move((*strings)[i]), std::move((*strings)[i + 1]));
      }
      return true;
    }
    case kRdbHashListpack: {
      auto entries = ListpackPairs(in);
      if (!entries) return false;
      value->type = KeyType::kHash;
      for (size_t i = 0; i < entries->size(); i += 2) {
        value->fields.emplace_back(std::move((*entries)[i]), std::move((*entries)[i + 1]));
      }
      return true;
    }
    default:
      return false;
  }
}

// Whether the value names something twice that must be unique: a set's member, a sorted set's,
// a hash's field (views into `value`: nothing is copied).
bool HasDuplicateNames(const DumpValue& value) {
  std::unordered_set<std::string_view> seen;
  auto repeated = [&](std::string_view name) { return !seen.insert(name).second; };
  if (value.type == KeyType::kSet) {
    for (const std::string& member : value.elements) {
      if (repeated(member)) return true;
    }
  }
  for (const ScoredMember& each : value.scored) {
    if (repeated(each.member)) return true;
  }
  for (const auto& [field, unused] : value.fields) {
    if (repeated(field)) return true;
  }
  return false;
}

}  // namespace

std::string EncodeDumpPayload(const DumpValue& value) {
  std::string out;
  switch (value.type) {
    case KeyType::kString:
    case KeyType::kLimiter:
      out.push_back(
          static_cast<char>(value.type == KeyType::kString ? kRdbString : kLimiterObject));
      AppendRdbString(&out, value.bytes);
      break;
    case KeyType::kList:
    case KeyType::kSet:
      out.push_back(static_cast<char>(value.type == KeyType::kList ? kRdbList : kRdbSet));
      AppendRdbLength(&out, value.elements.size());
      for (const std::string& element : value.elements) AppendRdbString(&out, element);
      break;
    case KeyType::kZSet:
      out.push_back(static_cast<char>(kRdbZSet2));
      AppendRdbLength(&out, value.scored.size());
      for (const ScoredMember& each : value.scored) {
        AppendRdbString(&out, each.member);
        AppendBinaryDouble(&out, each.score);
      }
      break;
    case KeyType::kHash:
      out.push_back(static_cast<char>(kRdbHash));
      AppendRdbLength(&out, value.fields.size());
      for (const auto& [field, field_value] : value.fields) {
        AppendRdbString(&out, field);
        AppendRdbString(&out, field_value);
      }
      break;
  }
  SealRdbPayload(&out);
  return out;
}

StatusOr<DumpValue> DecodeDumpPayload(std::string_view payload) {
  if (!RdbFooterValid(payload)) return Err("DUMP payload version or checksum are wrong");
  // The whole payload, footer included, as Redis reads it: a body cut short reads on into the
  // footer, and bytes left over before it are ignored.
  RdbReader in(payload);
  auto type = in.Byte();
  DumpValue value;
  if (!type || !DecodeObject(*type, in, &value)) return kBadFormat;
  if (HasDuplicateNames(value)) return kBadFormat;
  return value;
}

}  // namespace sluice::storage
