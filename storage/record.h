#pragma once

// What is stored under a user key: its metadata (type, expiry, version, size) and an inline
// payload (a string's bytes, a limiter's encoded state). Composite types (hash, zset, list)
// keep their elements as sub-entries keyed by (user key, version), so dropping a large key
// is one metadata write; the compaction filter reclaims the orphaned sub-entries.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::storage {

enum class KeyType : uint8_t {
  kString = 1,
  kHash = 2,
  kZSet = 3,
  kList = 4,
  kLimiter = 5,
};

// TYPE's reply: "string", "hash", "zset", "list", "limiter".
std::string_view TypeName(KeyType type);
// Inverse of TypeName, for SCAN ... TYPE t; nullopt for an unknown name.
std::optional<KeyType> ParseTypeName(std::string_view name);

struct Metadata {
  KeyType type = KeyType::kString;
  int64_t expire_at_ms = 0;  // absolute unix ms; 0 means no expiry
  uint64_t version = 0;      // composite types: generation of the sub-entries
  uint64_t size = 0;         // composite types: element count
};

// The one expiry predicate, used by reads, the active cycle and the compaction filter.
// As in Redis, a key is expired strictly after its expiry time.
inline bool IsExpiredAt(const Metadata& meta, int64_t now_ms) {
  return meta.expire_at_ms != 0 && now_ms > meta.expire_at_ms;
}

struct Record {
  Metadata meta;
  std::string payload;
};

// A Record whose payload is a view into bytes owned elsewhere (see Engine::GetView).
struct RecordView {
  Metadata meta;
  std::string_view payload;
};

// Byte layout of a Record in the metadata column family (storage/key_encoding.cc).
std::string EncodeRecord(const Record& record);
// The same into `out` (its contents replaced), reusing its buffer.
void EncodeRecordTo(const Metadata& meta, std::string_view payload, std::string* out);
StatusOr<Record> DecodeRecord(std::string_view bytes);
// The same without copying the payload: a view into `bytes`.
StatusOr<RecordView> DecodeRecordView(std::string_view bytes);
// Decodes only the metadata (cheap: used by the compaction filter, TYPE, TTL, EXISTS).
StatusOr<Metadata> DecodeMetadata(std::string_view bytes);

}  // namespace sluice::storage
