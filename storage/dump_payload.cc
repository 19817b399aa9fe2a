#include "storage/dump_payload.h"

#include <lzf.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/string2ll.h"
#include "storage/crc64.h"

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

void AppendLength(std::string* out, uint64_t length) {
  if (length < (1 << 6)) {
    out->push_back(static_cast<char>(length));
  } else if (length < (1 << 14)) {
    out->push_back(static_cast<char>(0x40 | (length >> 8)));
    out->push_back(static_cast<char>(length & 0xff));
  } else if (length <= UINT32_MAX) {
    out->push_back(static_cast<char>(0x80));
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(length >> shift));
  } else {
    out->push_back(static_cast<char>(0x81));
    for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(length >> shift));
  }
}

void AppendString(std::string* out, std::string_view s) {
  AppendLength(out, s.size());
  out->append(s);
}

void AppendBinaryDouble(std::string* out, double value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out->append(bytes, sizeof bytes);
}

// ---- Reading ------------------------------------------------------------------------------

// A cursor over a payload's bytes; every read fails (nullopt) past the end.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  size_t remaining() const { return data_.size() - pos_; }

  std::optional<uint8_t> Byte() {
    if (remaining() < 1) return std::nullopt;
    return static_cast<uint8_t>(data_[pos_++]);
  }

  std::optional<std::string_view> Bytes(uint64_t n) {
    if (remaining() < n) return std::nullopt;
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  // An unsigned integer of `n` bytes, big endian (`big`) or little endian.
  std::optional<uint64_t> Unsigned(int n, bool big) {
    auto bytes = Bytes(static_cast<uint64_t>(n));
    if (!bytes) return std::nullopt;
    uint64_t value = 0;
    for (int i = 0; i < n; ++i) {
      const auto byte = static_cast<uint8_t>((*bytes)[static_cast<size_t>(big ? i : n - 1 - i)]);
      value = (value << 8) | byte;
    }
    return value;
  }

  // An RDB length; `*encoded` tells a special string encoding (its number in the result).
  std::optional<uint64_t> Length(bool* encoded = nullptr) {
    auto first = Byte();
    if (!first) return std::nullopt;
    if (encoded != nullptr) *encoded = false;
    switch (*first >> 6) {
      case 0:
        return *first & 0x3f;
      case 1: {
        auto next = Byte();
        if (!next) return std::nullopt;
        return (uint64_t{*first & 0x3fu} << 8) | *next;
      }
      case 2:
        if (*first == 0x80) return Unsigned(4, /*big=*/true);
        if (*first == 0x81) return Unsigned(8, /*big=*/true);
        return std::nullopt;
      default:
        if (encoded == nullptr) return std::nullopt;
        *encoded = true;
        return *first & 0x3f;
    }
  }

  // An RDB string: raw, an integer (8, 16 or 32 bits) or LZF compressed.
  std::optional<std::string> String() {
    bool encoded = false;
    auto length = Length(&encoded);
    if (!length) return std::nullopt;
    if (!encoded) {
      auto bytes = Bytes(*length);
      if (!bytes) return std::nullopt;
      return std::string(*bytes);
    }
    switch (*length) {
      case 0:
      case 1:
      case 2: {
        const int size = 1 << *length;
        auto raw = Unsigned(size, /*big=*/false);
        if (!raw) return std::nullopt;
        const int unused = 64 - 8 * size;  // sign-extend from the integer's width
        return std::to_string(static_cast<int64_t>(*raw << unused) >> unused);
      }
      case 3:
        return Lzf();
      default:
        return std::nullopt;
    }
  }

 private:
  std::optional<std::string> Lzf() {
    auto compressed_length = Length();
    auto length = Length();
    if (!compressed_length || !length || *length == 0) return std::nullopt;
    auto compressed = Bytes(*compressed_length);
    // A back reference of three bytes copies at most 264: LZF expands no more than 88 times,
    // and a claimed length beyond that cannot be true (it would only be an allocation).
    if (!compressed || *length > 88 * *compressed_length + 8) return std::nullopt;
    std::string out(*length, '\0');
    const unsigned produced =
        lzf_decompress(compressed->data(), static_cast<unsigned>(compressed->size()), out.data(),
                       static_cast<unsigned>(out.size()));
    if (produced != *length) return std::nullopt;
    return out;
  }

  std::string_view data_;
  size_t pos_ = 0;
};

// The entries of a listpack, as strings (integers in decimal); nullopt when malformed.
std::optional<std::vector<std::string>> ListpackEntries(std::string_view blob) {
  Reader in(blob);
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
      const int unused = 64 - 8 * bytes;
      return std::to_string(static_cast<int64_t>(*raw << unused) >> unused);
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
  Reader in(blob);
  auto width = in.Unsigned(4, /*big=*/false);
  auto count = in.Unsigned(4, /*big=*/false);
  if (!width || !count || (*width != 2 && *width != 4 && *width != 8)) return std::nullopt;
  if (in.remaining() != *count * *width) return std::nullopt;
  std::vector<std::string> members;
  members.reserve(*count);
  const int bytes = static_cast<int>(*width);
  const int unused = 64 - 8 * bytes;
  for (uint64_t i = 0; i < *count; ++i) {
    members.push_back(
        std::to_string(static_cast<int64_t>(*in.Unsigned(bytes, false) << unused) >> unused));
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
std::optional<double> TextScore(Reader& in) {
  auto length = in.Byte();
  if (!length || *length == 253) return std::nullopt;
  if (*length == 254) return HUGE_VAL;
  if (*length == 255) return -HUGE_VAL;
  auto text = in.Bytes(*length);
  if (!text) return std::nullopt;
  return ParseScore(*text);
}

bool HasDuplicates(const std::vector<std::string>& names) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(names.size());
  for (const std::string& name : names) {
    if (!seen.insert(name).second) return true;
  }
  return false;
}

// A count of elements that each take at least one byte: no more than the bytes left.
std::optional<uint64_t> Count(Reader& in) {
  auto count = in.Length();
  if (!count || *count == 0 || *count > in.remaining()) return std::nullopt;
  return count;
}

std::optional<std::vector<std::string>> Strings(Reader& in, uint64_t count) {
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
std::optional<std::vector<std::string>> ListpackPairs(Reader& in) {
  auto blob = in.String();
  if (!blob) return std::nullopt;
  auto entries = ListpackEntries(*blob);
  if (!entries || entries->empty() || entries->size() % 2 != 0) return std::nullopt;
  return entries;
}

// The object after the type byte; false when malformed.
bool DecodeObject(uint8_t type, Reader& in, DumpValue* value) {
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

// The names a value must not repeat: a set's members, a sorted set's, a hash's fields.
std::vector<std::string> UniqueNames(const DumpValue& value) {
  std::vector<std::string> names;
  if (value.type == KeyType::kSet) names = value.elements;
  for (const ScoredMember& each : value.scored) names.push_back(each.member);
  for (const auto& [field, unused] : value.fields) names.push_back(field);
  return names;
}

}  // namespace

std::string EncodeDumpPayload(const DumpValue& value) {
  std::string out;
  switch (value.type) {
    case KeyType::kString:
    case KeyType::kLimiter:
      out.push_back(
          static_cast<char>(value.type == KeyType::kString ? kRdbString : kLimiterObject));
      AppendString(&out, value.bytes);
      break;
    case KeyType::kList:
    case KeyType::kSet:
      out.push_back(static_cast<char>(value.type == KeyType::kList ? kRdbList : kRdbSet));
      AppendLength(&out, value.elements.size());
      for (const std::string& element : value.elements) AppendString(&out, element);
      break;
    case KeyType::kZSet:
      out.push_back(static_cast<char>(kRdbZSet2));
      AppendLength(&out, value.scored.size());
      for (const ScoredMember& each : value.scored) {
        AppendString(&out, each.member);
        AppendBinaryDouble(&out, each.score);
      }
      break;
    case KeyType::kHash:
      out.push_back(static_cast<char>(kRdbHash));
      AppendLength(&out, value.fields.size());
      for (const auto& [field, field_value] : value.fields) {
        AppendString(&out, field);
        AppendString(&out, field_value);
      }
      break;
  }
  out.push_back(static_cast<char>(kDumpRdbVersion & 0xff));
  out.push_back(static_cast<char>(kDumpRdbVersion >> 8));
  const uint64_t crc = Crc64Jones(0, out);
  for (int shift = 0; shift < 64; shift += 8) out.push_back(static_cast<char>(crc >> shift));
  return out;
}

StatusOr<DumpValue> DecodeDumpPayload(std::string_view payload) {
  const Status wrong_footer = Err("DUMP payload version or checksum are wrong");
  if (payload.size() < 10) return wrong_footer;
  const std::string_view footer = payload.substr(payload.size() - 10);
  const auto version = static_cast<uint16_t>(static_cast<uint8_t>(footer[0]) |
                                             (static_cast<uint8_t>(footer[1]) << 8));
  if (version > kDumpRdbVersion) return wrong_footer;
  uint64_t stored_crc = 0;
  for (int i = 7; i >= 0; --i) stored_crc = (stored_crc << 8) | static_cast<uint8_t>(footer[2 + i]);
  if (Crc64Jones(0, payload.substr(0, payload.size() - 8)) != stored_crc) return wrong_footer;

  // The whole payload, footer included, as Redis reads it: a body cut short reads on into the
  // footer, and bytes left over before it are ignored.
  Reader in(payload);
  auto type = in.Byte();
  DumpValue value;
  if (!type || !DecodeObject(*type, in, &value)) return kBadFormat;
  if (HasDuplicates(UniqueNames(value))) return kBadFormat;
  return value;
}

}  // namespace sluice::storage
