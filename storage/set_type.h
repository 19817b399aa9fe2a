#pragma once

// Sets on the engine: a hash whose values are empty (storage/hash_type.h does the work).
//
// Layout (storage/key_encoding.h has the prefixes):
//   metadata  key -> [type=6][format][expire_at_ms:8][version:8][size:8]   26 bytes, no payload
//   subkeys   [len:4 BE][key][version:8 BE][member] -> ""
// SCARD is the metadata's size (O(1)); SADD, SREM, SISMEMBER and SMISMEMBER are one point read
// (and write) per member; SMEMBERS iterates the key's sub-entries in member order (bytewise;
// Redis's order is an intset's numeric one or its hash table's, neither promised). SMOVE is
// two point reads and at most two writes per key. SRANDMEMBER and SPOP sample positions as
// HRANDFIELD does (storage/random_sample.h): O(n) steps for all but tiny samples, O(k) memory.
// An SPOP right after an SPOP of the same set, and an SRANDMEMBER (without a count, with one
// from -1 to -1,024, or from 1 to 1,024 and a quarter of the set) right after an SRANDMEMBER,
// also read a set that fits the draws' budget whole, once until a change (SPOP's shuffled), or
// draw members ahead for the calls after them (storage/draws_ahead.h): a walk for every 29,000
// or so short members, not every call. SPOP of the whole set deletes the key (O(1) writes, the
// compaction filter reclaims the rest).
//
// Every operation reads the key's metadata once (expired keys are missing), returns
// WrongTypeStatus() for a key of another type, and stages its writes in the engine's batch.
// The algebra (SINTER, SUNION, SDIFF and their kin) is storage/set_algebra.h's.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/hash_type.h"
#include "storage/random_sample.h"
#include "storage/record.h"

namespace sluice::storage {

// One page of SSCAN.
struct SetScanPage {
  std::vector<std::string> members;
  std::optional<std::string> resume_after;  // the page's last member; nullopt: the scan is over
};

class SetType : private HashType {
 public:
  SetType(Engine& engine, int64_t now_ms) : HashType(engine, now_ms, KeyType::kSet) {}

  // SADD: adds the members, creating the key if needed; how many were new (a member named
  // twice counts once).
  StatusOr<uint64_t> Add(std::string_view key, std::span<const std::string_view> members);
  // SREM: removes the members; the key goes with its last member. How many were there.
  StatusOr<uint64_t> Remove(std::string_view key, std::span<const std::string_view> members);
  // SCARD: 0 for a missing key.
  StatusOr<uint64_t> Card(std::string_view key) { return Len(key); }
  StatusOr<bool> IsMember(std::string_view key, std::string_view member) {
    return Exists(key, member);
  }
  // SMISMEMBER: one answer per member, in order.
  StatusOr<std::vector<bool>> AreMembers(std::string_view key,
                                         std::span<const std::string_view> members);
  // SMEMBERS: every member in member order; empty for a missing key.
  StatusOr<std::vector<std::string>> Members(std::string_view key);
  // SSCAN: up to `count` members after `after` ("" = from the start), in member order, of `key`,
  // whose record (of a set) the caller has looked up already. A set of at most kScanWhole
  // members comes whole, as HSCAN's hash (HashType::ScanOf).
  using HashType::kScanWhole;
  StatusOr<SetScanPage> ScanOf(std::string_view key, const Record& record, std::string_view after,
                               size_t count);

  // SRANDMEMBER key count: the sampled members and the reply as picks into them, as
  // HashType::RandomFields (draws ahead included); empty for a missing key. With a negative
  // count the caller bounds -count (PlanSample).
  StatusOr<RandomSample<std::string>> RandomMembers(std::string_view key, int64_t count,
                                                    std::mt19937_64& rng);
  // SPOP key count: removes min(count, size) members drawn at random (each subset equally
  // likely) and returns them in member order; the whole set (and the key) when count >= size,
  // and then sets *took_all (if given).
  StatusOr<std::vector<std::string>> Pop(std::string_view key, uint64_t count, std::mt19937_64& rng,
                                         bool* took_all = nullptr);
  // SMOVE source destination member, as Redis's smoveCommand: false when the source is missing
  // (whatever the destination holds); WRONGTYPE when either key holds another type; then, with
  // both names the same, whether the member is there; else false when the source lacks the
  // member, or moves it (the destination gains it unless it has it) and returns true. A key
  // that does not change is not written.
  StatusOr<bool> Move(std::string_view source, std::string_view destination,
                      std::string_view member);
  // The STORE forms: `key` becomes a set of `members` (distinct, any order) whatever it held,
  // without TTL, under a fresh version; no members deletes it (and writes nothing when it is
  // missing).
  Status Replace(std::string_view key, std::span<const std::string> members);

  // For the algebra (storage/set_algebra.h): a key looked up once, then read or probed.
  // nullopt when missing; WrongTypeStatus() for another type.
  StatusOr<std::optional<Record>> Load(std::string_view key);
  // Every member of `key`, whose record (of a set) is `record`, in member order.
  StatusOr<std::vector<std::string>> MembersOf(std::string_view key, const Record& record);
  // Calls visit(member) for the members of `key` in member order, while it returns true (the
  // view is valid during the call; it may read, not write, the engine).
  Status VisitMembers(std::string_view key, const Record& record,
                      const std::function<StatusOr<bool>(std::string_view)>& visit);
  StatusOr<bool> Contains(std::string_view key, const Record& record, std::string_view member);
};

}  // namespace sluice::storage
