#pragma once

// Hashes on the engine.
//
// Layout (storage/key_encoding.h has the prefixes):
//   metadata  key -> [type=2][format][expire_at_ms:8][version:8][size:8]   26 bytes, no payload
//   subkeys   [len:4 BE][key][version:8 BE][field] -> value
// HLEN is the metadata's size (O(1)); HGET/HSET/HDEL/HEXISTS are one point read or write per
// field; HGETALL/HKEYS/HVALS iterate the key's sub-entries in field order (Redis replies in
// insertion order for small hashes and in hash-table order for large ones; neither order is
// promised, and sluice's is bytewise by field).
//
// HRANDFIELD (RandomFields) reads the metadata, then walks the sub-entries in field order to the
// sampled positions, from whichever end of the hash is closer to them: O(min(last + 1, n - first))
// steps for sampled positions first..last, so O(n) for all but tiny samples, with O(k) memory
// for k sampled fields (the sub-entries have no positional index; see storage/random_sample.h).
// Calls in a row on an unchanged hash take picks from the hash read whole once (when it fits
// the draws' budget) or drawn ahead, a walk for about every 28,000 picks (storage/draws_ahead.h).
//
// Every operation reads the key's metadata once (expired keys are missing), returns
// WrongTypeStatus() for a key of another type, and stages its writes in the engine's batch.

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/random_sample.h"
#include "storage/record.h"

namespace sluice::storage {

// A field and its value, as read.
using FieldAndValue = std::pair<std::string, std::string>;

struct FieldValue {
  std::string_view field;
  std::string_view value;
};

// One page of HSCAN.
struct HashScanPage {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::optional<std::string> resume_after;  // the page's last field; nullopt: the scan is over
};

class HashType {
 public:
  HashType(Engine& engine, int64_t now_ms) : HashType(engine, now_ms, KeyType::kHash) {}

  // nullopt when the key or the field is missing.
  StatusOr<std::optional<std::string>> Get(std::string_view key, std::string_view field);
  // The same of `key`, whose record (of this type) the caller has looked up already.
  StatusOr<std::optional<std::string>> GetOf(std::string_view key, const Record& record,
                                             std::string_view field);
  // One entry per field, in order.
  StatusOr<std::vector<std::optional<std::string>>> MGet(std::string_view key,
                                                         std::span<const std::string_view> fields);
  StatusOr<bool> Exists(std::string_view key, std::string_view field);
  // The number of fields (0 for a missing key).
  StatusOr<uint64_t> Len(std::string_view key);

  // Sets every pair (a later pair for the same field wins), creating the key if needed.
  // Returns how many fields were new. With only_if_new, existing fields are left alone
  // (HSETNX).
  StatusOr<uint64_t> Set(std::string_view key, std::span<const FieldValue> pairs,
                         bool only_if_new = false);
  // Removes the fields; the key goes when its last field does. Returns how many existed.
  StatusOr<uint64_t> Delete(std::string_view key, std::span<const std::string_view> fields);

  // Every (field, value), ordered by field; empty for a missing key.
  StatusOr<std::vector<std::pair<std::string, std::string>>> GetAll(std::string_view key);
  // The same of `key`, whose record (of this type) the caller has looked up already.
  StatusOr<std::vector<std::pair<std::string, std::string>>> GetAllOf(std::string_view key,
                                                                      const Record& record);
  // HSCAN: up to `count` fields after `after` ("" = from the start), in field order, with their
  // values. A hash of at most kScanWhole fields comes whole, as Redis returns a small hash (a
  // listpack: up to hash-max-listpack-entries, 512 by default) in one reply whatever the
  // COUNT. The caller has looked the key's record (of this type) up already.
  static constexpr uint64_t kScanWhole = 512;
  StatusOr<HashScanPage> ScanOf(std::string_view key, const Record& record, std::string_view after,
                                size_t count);

  // HRANDFIELD key count: (field, value) pairs (values left empty unless with_values) and the
  // reply as picks into them, by PlanSample's rules for `count`; empty for a missing key. With
  // a negative count the caller bounds -count (PlanSample). A count TakesPicks allows takes
  // picks drawn ahead by the calls before (storage/random_draws.h), then draws the rest.
  StatusOr<RandomSample<FieldAndValue>> RandomFields(std::string_view key, int64_t count,
                                                     bool with_values, std::mt19937_64& rng);

 protected:
  // A set (storage/set_type.h) is laid out as a hash whose values are empty: the same
  // operations on keys of `type`.
  HashType(Engine& engine, int64_t now_ms, KeyType type)
      : engine_(engine), now_ms_(now_ms), type_(type) {}

  Engine& engine_;
  int64_t now_ms_;
  KeyType type_;
};

}  // namespace sluice::storage
