#pragma once

// DUMP's and RESTORE's serialized values, in Redis 7.0's format, so that keys move between
// Redis and sluice (MIGRATE-style tools, redis-shake, RIOT, a script of DUMP and RESTORE):
//   <object type byte> <object> <RDB version: 2 bytes, little endian> <CRC-64: 8 bytes, LE>
// (rdb_format.h's footer).
//
// Decoding takes what Redis 7.0 writes (RDB version 10 and older): strings (raw, integer
// encoded or LZF compressed, through Debian's liblzf), lists as quicklists of listpacks or
// plain nodes, or as the old linked list; sets as intsets, listpacks or plain; sorted sets and
// hashes as listpacks or plain. The ziplist encodings of Redis 6 and older, streams and module
// types are not decoded ("Bad data format"), nor is anything malformed, empty or holding a
// member twice (Redis's deep sanitization, which sluice always does). As in Redis, the body is
// read from the whole payload: one cut short reads on into the footer, and bytes left before
// the footer are ignored.
//
// Encoding writes the plain RDB types (string, list, set, sorted set with binary scores, hash),
// which Redis 7.0 loads, and RDB version 10. A limiter's state has no Redis type: it is
// written as sluice's own type byte (kLimiterObject), which Redis refuses as "Bad data format"
// and sluice restores.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "storage/record.h"
#include "storage/zset_type.h"

namespace sluice::storage {

struct DumpValue {
  KeyType type = KeyType::kString;
  std::string bytes;                                        // kString, kLimiter
  std::vector<std::string> elements;                        // kList in order, kSet
  std::vector<ScoredMember> scored;                         // kZSet
  std::vector<std::pair<std::string, std::string>> fields;  // kHash
};

std::string EncodeDumpPayload(const DumpValue& value);

// The value of a payload, or Redis's errors: "DUMP payload version or checksum are wrong" for
// a bad version or CRC (or fewer than 10 bytes), "Bad data format" for anything else wrong.
StatusOr<DumpValue> DecodeDumpPayload(std::string_view payload);

}  // namespace sluice::storage
