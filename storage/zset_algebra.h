#pragma once

// The sorted-set algebra of ZUNION, ZINTER and ZDIFF (and their STORE forms) over members
// already read, as Redis 7.0's zunionInterDiffGenericCommand computes it (t_zset.c):
//   union  every member of any source; its score is the weighted scores aggregated in source
//          order (a weighted score that is NaN, 0 * inf, counts as 0);
//   inter  the members of every source; the weighted score in the first source (NaN: 0)
//          aggregated with the others in source order;
//   diff   the members of the first source in none of the others, with their own scores
//          (no weights).
// Union and intersection take the sources ordered by size first (a stable sort, as glibc's
// qsort is for these arrays), so sums add up in Redis's order. SUM of +inf and -inf is 0, not
// NaN; MIN and MAX keep the current score against a NaN.
//
// The result is ordered by score, ties by member bytes, as Redis's skiplist replies it.

#include <span>
#include <vector>

#include "storage/zset_type.h"

namespace sluice::storage {

enum class ZAggregate { kSum, kMin, kMax };

struct ZSetSource {
  std::vector<ScoredMember> members;  // distinct members (a missing key: none)
  double weight = 1;
  // The source's size, when `members` holds only some of them (those that can be in an
  // intersection or a difference): it, not theirs, orders the sources. 0: members.size().
  uint64_t size = 0;
};

std::vector<ScoredMember> ZSetUnion(std::span<ZSetSource> sources, ZAggregate aggregate);
std::vector<ScoredMember> ZSetInter(std::span<ZSetSource> sources, ZAggregate aggregate);
std::vector<ScoredMember> ZSetDiff(std::span<const ZSetSource> sources);

// Redis's zunionInterAggregate: `value` into `*target`.
void ZAggregateInto(double* target, double value, ZAggregate aggregate);

}  // namespace sluice::storage
