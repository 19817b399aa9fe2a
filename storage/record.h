#pragma once

// What is stored under a user key: its metadata (type, expiry, version, size) and an inline
// payload (a string's bytes, a limiter's encoded state). Composite types (hash, zset, list,
// set) keep their elements as sub-entries keyed by (user key, version), so dropping a large key
// is one metadata write; the compaction filter reclaims the orphaned sub-entries.

#include <cstdint>
#include <limits>
#include <memory>
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
  kSet = 6,
};

// TYPE's reply: "string", "hash", "zset", "list", "limiter", "set".
std::string_view TypeName(KeyType type);
// Inverse of TypeName, for SCAN ... TYPE t; nullopt for an unknown name.
std::optional<KeyType> ParseTypeName(std::string_view name);

struct Metadata {
  KeyType type = KeyType::kString;
  int64_t expire_at_ms = 0;  // absolute unix ms; 0 means no expiry
  uint64_t version = 0;      // composite types: generation of the sub-entries
  uint64_t size = 0;         // composite types: element count
  // A long string whose bytes are sub-entries under `version` (key_encoding.h), `size` long.
  // Set by the engine when it reads; a writer passes the bytes and the engine decides.
  bool payload_outside = false;
  // With payload_outside: the bytes are in chunks (storage/long_string.h), as every long
  // string written since chunks came; else in one sub-entry, as written before.
  bool chunked = false;
  // The size of the record this was read from (0: not read). A limiter's state written back
  // with it keeps that size when it fits (PaddedRecordBytes in storage/key_encoding.h).
  uint32_t stored_bytes = 0;
};

// The expiry of a swept record: one found expired, counted and reported ("expired"), and
// then rewritten with this expiry instead of deleted. A tombstone is a new memtable entry, and
// so is the next write of its key after it (RocksDB rewrites an entry in place only over a
// value); a swept record is the key's entry rewritten in place, and so is the next write, as
// a limiter key that expires between calls is. It reads as expired for any time and under any
// hold, and nothing else is expired at it: the active cycle and reads pass it without counting
// it again, and the compaction filter drops it as any expired record.
inline constexpr int64_t kSweptExpireAtMs = std::numeric_limits<int64_t>::min();

inline bool IsSwept(const Metadata& meta) { return meta.expire_at_ms == kSweptExpireAtMs; }

// The expiry predicate. As in Redis, a key is expired strictly after its expiry time. Reads,
// the active cycle and the compaction filter use it under the hold below (IsExpiredAt of a
// RecordView).
inline bool IsExpiredAt(const Metadata& meta, int64_t now_ms) {
  return meta.expire_at_ms != 0 && now_ms > meta.expire_at_ms;
}

// Which limiter records within a hold's bounds it keeps, read from their payload (the server
// knows its states' layout, storage does not): the states a policy change concerns, so that
// other limiter keys expire on time. Immutable once built: compaction threads call it too.
class LimiterPayloadFilter {
 public:
  virtual ~LimiterPayloadFilter() = default;
  virtual bool Keeps(std::string_view payload, int64_t now_ms) const = 0;
};

// Limiter keys kept past their expiry while a policy change settles (contract section 5): a
// key may hold a state written under a policy's old definition, whose expiry the old
// definition set and the new one may lengthen. A limiter key expiring at or after `from_ms`
// that the payload filter keeps stays live until `until_ms`, by when every such state is
// fresh under any definition involved. A state past its expiry decides as a fresh key would
// (algorithms/decision.h), so keeping one longer changes no decision.
struct ExpiryHold {
  int64_t from_ms = 0;
  int64_t until_ms = 0;
  std::shared_ptr<const LimiterPayloadFilter> payload_filter;  // nullptr: every limiter record

  bool Covers(int64_t expire_at_ms, int64_t now_ms) const {
    return expire_at_ms >= from_ms && now_ms <= until_ms;
  }
  bool Keeps(const Metadata& meta, std::string_view payload, int64_t now_ms) const {
    return meta.type == KeyType::kLimiter && Covers(meta.expire_at_ms, now_ms) &&
           (payload_filter == nullptr || payload_filter->Keeps(payload, now_ms));
  }
};

struct Record {
  Metadata meta;
  std::string payload;
};

// A Record whose payload is a view into bytes owned elsewhere (see Engine::GetView).
struct RecordView {
  Metadata meta;
  std::string_view payload;
};

// The expiry predicate under a hold (nullopt: none).
inline bool IsExpiredAt(const RecordView& record, int64_t now_ms,
                        const std::optional<ExpiryHold>& hold) {
  if (IsSwept(record.meta)) return true;  // even under a hold from the dawn of time
  return IsExpiredAt(record.meta, now_ms) &&
         !(hold && hold->Keeps(record.meta, record.payload, now_ms));
}

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
