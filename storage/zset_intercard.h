#pragma once

// ZINTERCARD's count, as Redis 7.0's zunionInterDiffGenericCommand computes it when only the
// cardinality is wanted (t_zset.c): SINTERCARD's walk (set_algebra.h's WalkIntersection: the
// smallest source walked, each of its members looked up in the others), reading sorted sets
// too, the count stopping as soon as it reaches the limit. Nothing is sorted and no member is kept:
// O(n * k) point reads for the smallest size n and k sources (a member of an inline sorted
// set is found by a walk of its record, as Redis's listpack search), fewer with a limit.
//
// A source is a sorted set or a plain set (Redis's zuiFind of a set member), or a missing key
// (an empty set, so the count is 0), as storage/zset_sources.h's LoadZSetOrSetSources found
// it.

#include <cstdint>
#include <span>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/set_algebra.h"

namespace sluice::storage {

// The size of the sources' intersection, counting no further than `limit` (0: no limit), by
// set_algebra.h's WalkIntersection.
StatusOr<uint64_t> ZSetInterCard(Engine& engine, int64_t now_ms, std::span<SetSource> sources,
                                 uint64_t limit);

}  // namespace sluice::storage
