#pragma once

// The sources of ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, as Redis 7.0's
// zunionInterDiffGenericCommand takes them (t_zset.c): each a sorted set, a plain set (its
// members scored 1, Redis's zuiNext of a set) or a missing key (an empty set). Sources are
// looked up once each, in order, before any is read, so a key of another type is WRONGTYPE
// whatever comes before it, and the keyspace counts one lookup per key, as Redis's; each is
// then read under the record found.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/set_algebra.h"
#include "storage/zset_type.h"

namespace sluice::storage {

// Looks up every key in order; WrongTypeStatus() at the first that holds neither a sorted set
// nor a set. (A SetSource may hold a sorted set here.)
StatusOr<std::vector<SetSource>> LoadZSetOrSetSources(Engine& engine, int64_t now_ms,
                                                      std::span<const std::string_view> keys);

// Those of `candidates` the source holds, each with the source's score (a set's: 1), in the
// candidates' order: a point read each. For a source much larger than the candidates (ZINTER's
// and ZDIFF's sources but the one whose members they start from), where reading all of it
// would be O(its size).
StatusOr<std::vector<ScoredMember>> ScoredMembersAmong(Engine& engine, int64_t now_ms,
                                                       const SetSource& source,
                                                       std::span<const ScoredMember> candidates);

// A source's members, read under the record LoadZSetOrSetSources found (no second lookup of
// the key): a sorted set's in score order, a set's each with score 1, none for a missing key.
StatusOr<std::vector<ScoredMember>> ScoredMembersOf(Engine& engine, int64_t now_ms,
                                                    const SetSource& source);

}  // namespace sluice::storage
