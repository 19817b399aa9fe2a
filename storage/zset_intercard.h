#pragma once

// ZINTERCARD's count, as Redis 7.0's zunionInterDiffGenericCommand computes it when only the
// cardinality is wanted (t_zset.c): SINTERCARD's walk (set_algebra.h's WalkIntersection: the
// smallest source walked, each of its members looked up in the others), reading sorted sets
// too, the count stopping as soon as it reaches the limit. Nothing is sorted and no member is kept:
// O(n * k) point reads for the smallest size n and k sources (a member of an inline sorted
// set is found by a walk of its record, as Redis's listpack search), fewer with a limit.
//
// A source is a sorted set or a plain set (Redis's zuiFind of a set member), or a missing key
// (an empty set, so the count is 0). Sources are looked up once each, in order, before any is
// read, so a key of another type is WRONGTYPE whatever comes before it, and the keyspace counts
// one lookup per key, as Redis's.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/record.h"
#include "storage/set_algebra.h"
#include "storage/zset_type.h"

namespace sluice::storage {

// Looks up every key in order; WrongTypeStatus() at the first that holds neither a sorted set
// nor a set. (A SetSource may hold a sorted set here.) ZUNION's, ZINTER's and ZDIFF's sources
// too, and their STORE forms'.
StatusOr<std::vector<SetSource>> LoadZSetOrSetSources(Engine& engine, int64_t now_ms,
                                                      std::span<const std::string_view> keys);

// A source's members, read under the record LoadZSetOrSetSources found (no second lookup of
// the key): a sorted set's in score order, a set's each with score 1 (Redis's zuiNext of a
// set), none for a missing key.
StatusOr<std::vector<ScoredMember>> ScoredMembersOf(Engine& engine, int64_t now_ms,
                                                    const SetSource& source);

// The size of the sources' intersection, counting no further than `limit` (0: no limit), by
// set_algebra.h's WalkIntersection.
StatusOr<uint64_t> ZSetInterCard(Engine& engine, int64_t now_ms, std::span<SetSource> sources,
                                 uint64_t limit);

}  // namespace sluice::storage
