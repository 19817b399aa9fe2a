#include "storage/key_encoding.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "common/ascii.h"
#include "storage/record.h"

namespace sluice::storage {

namespace {

constexpr size_t kLengthBytes = 4;
constexpr size_t kVersionBytes = 8;
constexpr uint64_t kSignBit = uint64_t{1} << 63;
constexpr size_t kExpiryOffset = 2;  // a record's expiry, after its type and format bytes

void StoreFixed64LE(char* p, uint64_t value) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

Status Corrupt(std::string what) { return IoError("corrupt record: " + std::move(what)); }
Status CorruptSubKey(std::string what) { return IoError("corrupt sub-key: " + std::move(what)); }

std::optional<KeyType> TypeFromByte(uint8_t byte) {
  switch (byte) {
    case static_cast<uint8_t>(KeyType::kString):
    case static_cast<uint8_t>(KeyType::kHash):
    case static_cast<uint8_t>(KeyType::kZSet):
    case static_cast<uint8_t>(KeyType::kList):
    case static_cast<uint8_t>(KeyType::kLimiter):
    case static_cast<uint8_t>(KeyType::kSet):
      return static_cast<KeyType>(byte);
    default:
      return std::nullopt;
  }
}

// Decodes the header; `header_bytes` receives its length and `payload_bytes` the payload's.
StatusOr<Metadata> DecodeHeader(std::string_view bytes, size_t* header_bytes,
                                size_t* payload_bytes) {
  if (bytes.size() < kSimpleHeaderBytes) {
    return Corrupt("shorter than its header (" + std::to_string(bytes.size()) + " bytes)");
  }
  std::optional<KeyType> type = TypeFromByte(static_cast<uint8_t>(bytes[0]));
  if (!type) return Corrupt("unknown type byte " + std::to_string(static_cast<uint8_t>(bytes[0])));
  const auto format = static_cast<uint8_t>(bytes[1]);
  if (format != kRecordFormat && format != kPaddedRecordFormat && format != kOutsideRecordFormat &&
      format != kChunkedRecordFormat) {
    return Corrupt("unknown format " + std::to_string(format));
  }
  Metadata meta;
  meta.type = *type;
  meta.expire_at_ms = static_cast<int64_t>(LoadFixed64LE(bytes.data() + kExpiryOffset));
  meta.stored_bytes = static_cast<uint32_t>(std::min<size_t>(bytes.size(), UINT32_MAX));
  meta.chunked = format == kChunkedRecordFormat;
  meta.payload_outside = format == kOutsideRecordFormat || meta.chunked;
  *header_bytes = kSimpleHeaderBytes;
  if (meta.payload_outside &&
      (meta.type != KeyType::kString || bytes.size() != kCompositeHeaderBytes)) {
    return Corrupt("long string header of " + std::to_string(bytes.size()) + " bytes, type " +
                   std::to_string(static_cast<int>(meta.type)));
  }
  if (IsCompositeType(meta.type) || meta.payload_outside) {
    if (bytes.size() < kCompositeHeaderBytes) {
      return Corrupt("composite header truncated (" + std::to_string(bytes.size()) + " bytes)");
    }
    meta.version = LoadFixed64LE(bytes.data() + kSimpleHeaderBytes);
    meta.size = LoadFixed64LE(bytes.data() + kSimpleHeaderBytes + 8);
    *header_bytes = kCompositeHeaderBytes;
  }
  *payload_bytes = bytes.size() - *header_bytes;
  if (format == kPaddedRecordFormat) {
    // [payload][zeros][count of zeros:1]
    const size_t padding = 1 + static_cast<uint8_t>(bytes.back());
    if (padding > *payload_bytes) return Corrupt("padding longer than the record");
    *payload_bytes -= padding;
  }
  return meta;
}

}  // namespace

// --- Types ------------------------------------------------------------------------------------

bool IsCompositeType(KeyType type) {
  return type == KeyType::kHash || type == KeyType::kZSet || type == KeyType::kList ||
         type == KeyType::kSet;
}

std::string_view TypeName(KeyType type) {
  switch (type) {
    case KeyType::kString:
      return "string";
    case KeyType::kHash:
      return "hash";
    case KeyType::kZSet:
      return "zset";
    case KeyType::kList:
      return "list";
    case KeyType::kLimiter:
      return "limiter";
    case KeyType::kSet:
      return "set";
  }
  return "unknown";
}

std::optional<KeyType> ParseTypeName(std::string_view name) {
  // Redis compares SCAN's TYPE argument case-insensitively.
  for (KeyType type : {KeyType::kString, KeyType::kHash, KeyType::kZSet, KeyType::kList,
                       KeyType::kLimiter, KeyType::kSet}) {
    if (EqualsIgnoreCase(name, TypeName(type))) return type;
  }
  return std::nullopt;
}

// --- Fixed-width integers -----------------------------------------------------------------------

void PutFixed64LE(std::string* dst, uint64_t value) {
  char buf[8];
  StoreFixed64LE(buf, value);
  dst->append(buf, sizeof(buf));
}

void PutFixed64BE(std::string* dst, uint64_t value) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>((value >> (8 * (7 - i))) & 0xff);
  dst->append(buf, sizeof(buf));
}

void PutFixed32BE(std::string* dst, uint32_t value) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>((value >> (8 * (3 - i))) & 0xff);
  dst->append(buf, sizeof(buf));
}

uint64_t LoadFixed64LE(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

uint64_t LoadFixed64BE(const char* p) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

uint32_t LoadFixed32BE(const char* p) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

// --- Records ----------------------------------------------------------------------------------

std::string EncodeRecord(const Record& record) {
  std::string out;
  EncodeRecordTo(record.meta, record.payload, &out);
  return out;
}

size_t PaddedRecordBytes(size_t unpadded) {
  constexpr size_t kStep = 128;
  if (unpadded > 2 * kStep) return (unpadded + kStep - 1) / kStep * kStep;
  size_t size = 32;
  while (size < unpadded) size *= 2;
  return size;
}

size_t PaddedRecordBytes(size_t unpadded, size_t stored_bytes) {
  constexpr size_t kMostZeros = 255;  // what the count byte can say
  const size_t size = PaddedRecordBytes(unpadded);
  const bool keeps =
      stored_bytes > size && stored_bytes <= 2 * size && stored_bytes - unpadded <= kMostZeros;
  return keeps ? stored_bytes : size;
}

void EncodeRecordTo(const Metadata& meta, std::string_view payload, std::string* out) {
  // A long string's record is its header alone: the payload is the caller's sub-entry.
  if (meta.payload_outside) payload = {};
  const bool versioned = IsCompositeType(meta.type) || meta.payload_outside;
  // Limiter states are rewritten on every decision: padded so that they keep their size.
  const bool padded = meta.type == KeyType::kLimiter;
  const uint8_t format = meta.chunked           ? kChunkedRecordFormat
                         : meta.payload_outside ? kOutsideRecordFormat
                         : padded               ? kPaddedRecordFormat
                                                : kRecordFormat;
  const size_t unpadded = (versioned ? kCompositeHeaderBytes : kSimpleHeaderBytes) +
                          payload.size() + (padded ? 1 : 0);
  const size_t total = padded ? PaddedRecordBytes(unpadded, meta.stored_bytes) : unpadded;
  out->clear();
  out->reserve(total);
  out->push_back(static_cast<char>(meta.type));
  out->push_back(static_cast<char>(format));
  PutFixed64LE(out, static_cast<uint64_t>(meta.expire_at_ms));
  if (versioned) {
    PutFixed64LE(out, meta.version);
    PutFixed64LE(out, meta.size);
  }
  out->append(payload);
  if (padded) {
    const size_t zeros = total - unpadded;
    out->append(zeros, '\0');
    out->push_back(static_cast<char>(zeros));
  }
}

bool SweepsInPlace(std::string_view record) {
  return !record.empty() && record.size() <= kLargestSweptRecordBytes;
}

bool IsSweptRecord(std::string_view bytes) {
  return bytes.size() >= kSimpleHeaderBytes &&
         LoadFixed64LE(bytes.data() + kExpiryOffset) == static_cast<uint64_t>(kSweptExpireAtMs);
}

void MarkSwept(std::string* bytes) {
  assert(bytes->size() >= kSimpleHeaderBytes);
  StoreFixed64LE(bytes->data() + kExpiryOffset, static_cast<uint64_t>(kSweptExpireAtMs));
}

StatusOr<Metadata> DecodeMetadata(std::string_view bytes) {
  size_t header_bytes = 0;
  size_t payload_bytes = 0;
  return DecodeHeader(bytes, &header_bytes, &payload_bytes);
}

StatusOr<RecordView> DecodeRecordView(std::string_view bytes) {
  size_t header_bytes = 0;
  size_t payload_bytes = 0;
  StatusOr<Metadata> meta = DecodeHeader(bytes, &header_bytes, &payload_bytes);
  if (!meta.ok()) return meta.status();
  return RecordView{*meta, bytes.substr(header_bytes, payload_bytes)};
}

StatusOr<Record> DecodeRecord(std::string_view bytes) {
  StatusOr<RecordView> view = DecodeRecordView(bytes);
  if (!view.ok()) return view.status();
  return Record{view->meta, std::string(view->payload)};
}

// --- Order-preserving doubles ---------------------------------------------------------------

uint64_t OrderedDoubleBits(double value) {
  if (value == 0) value = 0.0;  // folds -0.0 into +0.0
  uint64_t bits = std::bit_cast<uint64_t>(value);
  // Negative numbers: flip every bit (larger magnitude sorts lower). Positive: set the sign
  // bit so they sort above every negative.
  return (bits & kSignBit) ? ~bits : (bits | kSignBit);
}

double DoubleFromOrderedBits(uint64_t bits) {
  bits = (bits & kSignBit) ? (bits & ~kSignBit) : ~bits;
  return std::bit_cast<double>(bits);
}

void PutOrderedDouble(std::string* dst, double value) {
  PutFixed64BE(dst, OrderedDoubleBits(value));
}

// --- Sub-entries ------------------------------------------------------------------------------

std::string UserKeyPrefix(std::string_view user_key) {
  std::string out;
  out.reserve(kLengthBytes + user_key.size() + kVersionBytes);
  // Keys are bounded by proto-max-bulk-len (far below 4 GiB), so the length always fits.
  PutFixed32BE(&out, static_cast<uint32_t>(user_key.size()));
  out.append(user_key);
  return out;
}

std::string SubKeyPrefix(std::string_view user_key, uint64_t version) {
  std::string out = UserKeyPrefix(user_key);
  PutFixed64BE(&out, version);
  return out;
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    auto last = static_cast<uint8_t>(out.back());
    if (last != 0xff) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return out;
}

std::string EncodeSubKey(std::string_view user_key, uint64_t version, std::string_view sub_key) {
  std::string out = SubKeyPrefix(user_key, version);
  out.append(sub_key);
  return out;
}

std::string EncodeZScoreKey(std::string_view user_key, uint64_t version, double score,
                            std::string_view member) {
  std::string out = SubKeyPrefix(user_key, version);
  PutOrderedDouble(&out, score);
  out.append(member);
  return out;
}

StatusOr<SubKeyOwner> DecodeSubKeyOwner(std::string_view bytes) {
  if (bytes.size() < kLengthBytes) return CorruptSubKey("no length prefix");
  const uint64_t key_len = LoadFixed32BE(bytes.data());
  // Compare in 64 bits: no overflow whatever the stored length says.
  if (bytes.size() - kLengthBytes < key_len + kVersionBytes) {
    return CorruptSubKey("shorter than its user key and version");
  }
  SubKeyOwner owner;
  owner.user_key = bytes.substr(kLengthBytes, key_len);
  owner.version = LoadFixed64BE(bytes.data() + kLengthBytes + key_len);
  owner.rest = bytes.substr(kLengthBytes + key_len + kVersionBytes);
  return owner;
}

StatusOr<SubKey> DecodeSubKey(std::string_view bytes) {
  StatusOr<SubKeyOwner> owner = DecodeSubKeyOwner(bytes);
  if (!owner.ok()) return owner.status();
  return SubKey{owner->user_key, owner->version, owner->rest};
}

StatusOr<ZScoreKey> DecodeZScoreKey(std::string_view bytes) {
  StatusOr<SubKeyOwner> owner = DecodeSubKeyOwner(bytes);
  if (!owner.ok()) return owner.status();
  if (owner->rest.size() < kScoreBytes) return CorruptSubKey("score truncated");
  ZScoreKey out;
  out.user_key = owner->user_key;
  out.version = owner->version;
  out.score = DoubleFromOrderedBits(LoadFixed64BE(owner->rest.data()));
  out.member = owner->rest.substr(kScoreBytes);
  return out;
}

}  // namespace sluice::storage
