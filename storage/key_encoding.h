#pragma once

// Byte layouts of everything sluice stores in RocksDB.
//
// Metadata column family ("default"), key = the user key as is, value = a Record:
//
//   [type:1][format:1][expire_at_ms:8 LE]                      strings, limiters (10 bytes)
//   [type:1][format:1][expire_at_ms:8 LE][version:8 LE][size:8 LE]   hash, zset, list, set (26 B)
//   followed by the payload (a string's bytes, a limiter's state, a list's head/tail, a small
//   sorted set's members ...).
//   [type:1][format:1 = kChunkedRecordFormat][expire_at_ms:8 LE][version:8 LE][size:8 LE]
//   a long string (26 bytes, no payload): its `size` bytes are "subkeys" entries, chunks of
//   4 KB (storage/long_string.h), so that walks of the key space (active expiry, SCAN,
//   DBSIZE) never read them, and a write or read of a few bytes touches one chunk.
//   kOutsideRecordFormat is the same record of a long string written before chunks: its bytes
//   are the one entry EncodeSubKey(user_key, version, "").
// The composite types' layouts in full: storage/hash_type.h, zset_type.h, list_type.h,
// set_type.h.
//
// `format` is kRecordFormat, or kPaddedRecordFormat for a limiter's state: the payload is
// followed by zero bytes and one last byte counting them, which round the value up to a size
// class, or keep the size its key's record had one class up (PaddedRecordBytes). A state
// whose encoding grows or shrinks by a few bytes (a sliding log gaining or dropping an entry,
// a varint crossing a byte) then keeps its size, and RocksDB rewrites its memtable entry in
// place instead of inserting a new one. Any other
// format is refused as corrupt, so a future layout can be told apart. Integers in values are
// little-endian; integers in keys are big-endian so that RocksDB's bytewise order is numeric
// order.
//
// "subkeys" column family (hash fields, list items, zset member -> score, set members):
//   [user_key_len:4 BE][user_key][version:8 BE][sub_key]
// "zscore" column family (sorted-set score index; the value is empty):
//   [user_key_len:4 BE][user_key][version:8 BE][score:8, EncodeOrderedDouble][member]
//
// The length prefix keeps one key's sub-entries contiguous and apart from any other key's
// (without it, "a" + version could collide with a user key that starts with "a\0...").

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "storage/record.h"

namespace sluice::storage {

inline constexpr uint8_t kRecordFormat = 1;
inline constexpr uint8_t kPaddedRecordFormat = 2;
inline constexpr uint8_t kOutsideRecordFormat = 3;
inline constexpr uint8_t kChunkedRecordFormat = 4;
inline constexpr size_t kSimpleHeaderBytes = 10;     // type, format, expire_at_ms
inline constexpr size_t kCompositeHeaderBytes = 26;  // + version, size

// Hash, zset, list, set: the types whose elements live in sub-entries under a version.
bool IsCompositeType(KeyType type);

// The stored size of a padded record of `unpadded` bytes (header, payload and the count
// byte): 32, 64, 128 or 256 bytes, then multiples of 128, so padding is at most 127 bytes.
size_t PaddedRecordBytes(size_t unpadded);
// The same for a record rewritten over one stored at `stored_bytes` (0: none): a record that
// shrank into a smaller class keeps the size it had, if that is at most twice its own class
// and the padding's count byte can say so. RocksDB rewrites a memtable entry in place only
// with a value no larger than the one there, and keeps the smaller size after: a sliding log
// whose entries wander across a class boundary would otherwise be a skiplist insert each
// time it grew back.
size_t PaddedRecordBytes(size_t unpadded, size_t stored_bytes);

// Swept records (kSweptExpireAtMs in storage/record.h): the largest record swept in place; a
// larger one is deleted, as rewriting it whole would cost more in the WAL than its memtable
// insert.
inline constexpr size_t kLargestSweptRecordBytes = 256;
// Whether the stored record in `record` is swept in place when it expires (else deleted; an
// empty `record`, unknown, is deleted too).
bool SweepsInPlace(std::string_view record);
// Whether `bytes`, a stored record, is one the active cycle or a read swept (undecoded: a
// look at its expiry field).
bool IsSweptRecord(std::string_view bytes);
// Turns the stored record in `bytes` into its swept form: the same bytes and size, its
// expiry kSweptExpireAtMs.
void MarkSwept(std::string* bytes);

// --- Fixed-width integers ------------------------------------------------------------------
void PutFixed64LE(std::string* dst, uint64_t value);
void PutFixed64BE(std::string* dst, uint64_t value);
void PutFixed32BE(std::string* dst, uint32_t value);
// The caller guarantees at least 8 (4) readable bytes at `p`.
uint64_t LoadFixed64LE(const char* p);
uint64_t LoadFixed64BE(const char* p);
uint32_t LoadFixed32BE(const char* p);

// --- Order-preserving doubles ---------------------------------------------------------------
// Maps a double to 8 bytes whose unsigned big-endian order is the numeric order:
// -inf < negative < 0 < positive < +inf. -0.0 is encoded as +0.0 (they compare equal, as in
// Redis, so equal scores order by member). NaN has no place in the order: callers reject it
// before encoding (Redis refuses NaN scores); it encodes above +inf.
uint64_t OrderedDoubleBits(double value);
double DoubleFromOrderedBits(uint64_t bits);
void PutOrderedDouble(std::string* dst, double value);

// --- Sub-entries ----------------------------------------------------------------------------
// The common prefix of every sub-entry of (user_key, version) in both sub-entry families.
std::string SubKeyPrefix(std::string_view user_key, uint64_t version);
// The prefix of every sub-entry of user_key, whatever the version.
std::string UserKeyPrefix(std::string_view user_key);
// The smallest string greater than every string starting with `prefix` (an exclusive upper
// bound for iteration); empty if there is none (prefix is all 0xff bytes, or empty).
std::string PrefixSuccessor(std::string_view prefix);

std::string EncodeSubKey(std::string_view user_key, uint64_t version, std::string_view sub_key);
// A sorted set's score index key is the prefix, the score in kScoreBytes ordered bytes, the member.
inline constexpr size_t kScoreBytes = 8;
std::string EncodeZScoreKey(std::string_view user_key, uint64_t version, double score,
                            std::string_view member);

// Decoded keys are views into the bytes passed to the decoder.
struct SubKeyOwner {
  std::string_view user_key;
  uint64_t version = 0;
  std::string_view rest;  // what follows the version
};
struct SubKey {
  std::string_view user_key;
  uint64_t version = 0;
  std::string_view sub_key;
};
struct ZScoreKey {
  std::string_view user_key;
  uint64_t version = 0;
  double score = 0;
  std::string_view member;
};

// The owner (user key, version) of an entry of either sub-entry family.
StatusOr<SubKeyOwner> DecodeSubKeyOwner(std::string_view bytes);
StatusOr<SubKey> DecodeSubKey(std::string_view bytes);
StatusOr<ZScoreKey> DecodeZScoreKey(std::string_view bytes);

}  // namespace sluice::storage
