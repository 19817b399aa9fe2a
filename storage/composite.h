#pragma once

// What the composite types (hash, zset, list, set: storage/hash_type.h, zset_type.h,
// list_type.h, set_type.h) share: loading a key of one type, creating one under a fresh
// version, storing it back or dropping it once empty, and copying one under another name
// (RENAME).
//
// A composite key is one metadata record (type, expiry, version, element count, and a small
// type-specific payload) plus one sub-entry per element under (user key, version), but for a
// small sorted set or a short list, whose elements are in that payload. Dropping
// the key (DEL, UNLINK, overwrite by SET, expiry) writes only the metadata; the sub-entries of
// a version that is no longer the key's are garbage that the compaction filter removes.

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/record.h"

namespace sluice::storage {

// A key holding another type than the operation's. The server replies Redis's WRONGTYPE text
// for Code::kWrongType (resp/error_prefix.cc fills in the message); no text lives here.
Status WrongTypeStatus();

// `key`'s record: nullopt when missing or expired; WrongTypeStatus() when it holds another type.
StatusOr<std::optional<Record>> LoadTyped(Engine& engine, std::string_view key, KeyType type,
                                          int64_t now_ms);
// The size (meta.size) of `key`'s record of `type`, 0 when missing or expired; WrongTypeStatus()
// when it holds another type. Reads the metadata alone: ZCARD of an inline set copies no
// members.
StatusOr<uint64_t> LoadSize(Engine& engine, std::string_view key, KeyType type, int64_t now_ms);

// A new, empty composite record of `type` under a fresh version (no expiry).
Record NewComposite(Engine& engine, KeyType type);

// Stages `record` under `key`, or the key's deletion when record.meta.size is 0: Redis never
// keeps an empty hash, zset or list.
void StoreOrDelete(Engine& engine, std::string_view key, const Record& record);

// An empty STORE result (SINTERSTORE, ZUNIONSTORE ...): the destination is deleted when it
// exists, and nothing is written when it does not, so a WATCH of it survives, as in Redis.
Status DeleteIfPresent(Engine& engine, std::string_view key, int64_t now_ms);

// RENAME of a composite key: copies every sub-entry of `from` (whose record is `src`) to `to`
// under a fresh version and returns the record to store under `to` (same type, expiry, size and
// payload). O(n) in the number of elements, copied in bounded chunks; the caller stores the
// record and deletes `from`, whose old sub-entries the compaction filter then removes.
StatusOr<Record> CopyComposite(Engine& engine, std::string_view from, const Record& src,
                               std::string_view to);

// After `deleted` elements of `key` (a hash, set or indexed sorted set, whose record is `record`)
// went in this operation: once its version has deleted kTombstoneFloor elements and
// kTombstonesPerElement per element left, copies it under a fresh version (CopyComposite) and
// updates `record`. A walk of its elements (HGETALL, SMEMBERS, SPOP, ZRANGE, HSCAN) steps over
// every tombstone of its version until compaction drops them, which a long churn of deletions
// (HSET and HDEL of a 200-field hash, SPOP, ZINCRBY of a leaderboard) made 50 to 500 times
// slower than Redis; the copy has none. Amortized O(1) per deletion. Not for lists: their pops
// leave tombstones no walk meets, and copying a long queue would hold the loop.
inline constexpr uint64_t kTombstoneFloor = 4096;
inline constexpr uint64_t kTombstonesPerElement = 8;
Status ShedTombstones(Engine& engine, std::string_view key, Record& record, uint64_t deleted);
// Its two halves: counts the deletions and says whether the key is due for a copy; makes it.
bool CountTombstones(Engine& engine, std::string_view key, const Record& record, uint64_t deleted);
Status CopyWithoutTombstones(Engine& engine, std::string_view key, Record& record);

// MEMORY USAGE: the bytes `key` (whose record is `record`) takes as stored, before
// compression: its record's key and value, plus its elements' sub-entries (an indexed sorted
// set's member also has its score-index entry). Up to `samples` elements are read (0: all)
// and the others counted at their average, as Redis samples a key's nested values.
StatusOr<uint64_t> StoredBytes(Engine& engine, std::string_view key, const Record& record,
                               uint64_t samples);

// How many elements a range of `count` elements starting at `start` holds, Redis-style: the
// shared index arithmetic of LRANGE, LTRIM, ZRANGE and ZREMRANGEBYRANK. Negative indexes count
// from the end; the result is clamped to [0, length). nullopt for an empty range.
struct IndexRange {
  uint64_t start = 0;  // first index, inclusive
  uint64_t stop = 0;   // last index, inclusive
};
std::optional<IndexRange> ClampIndexRange(int64_t start, int64_t stop, uint64_t length);

}  // namespace sluice::storage
