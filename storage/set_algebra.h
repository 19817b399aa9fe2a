#pragma once

// The set algebra of SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD, as Redis 7.0's
// t_set.c computes it:
//   inter  the members of every source; empty as soon as one source is missing. Walks the
//          smallest source and looks each member up in the others, smallest first (Redis's
//          algorithm): O(n * k) point reads for the smallest size n and k sources, stopping
//          once `limit` members are found (SINTERCARD's LIMIT; 0: no limit);
//   union  every member of any source: reads every source whole, O(total size);
//   diff   the members of the first source in none of the others. Like Redis, it picks the
//          cheaper of two ways: look each member of the first up in the others (O(n * k) point
//          reads) when n * k / 2 is at most the sources' total size, else read every source
//          whole (O(total size)).
// Results are in member (bytewise) order, without repeats.
//
// Sources are looked up once each, in order (LoadSetSources), before any is read, so a source
// of another type is WRONGTYPE whatever comes before it, and the keyspace counts one lookup
// per key, as Redis's.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/record.h"
#include "storage/set_type.h"

namespace sluice::storage {

struct SetSource {
  std::string_view key;
  std::optional<Record> record;  // nullopt: a missing key, an empty set

  uint64_t size() const { return record ? record->meta.size : 0; }
};

// Looks up every key in order; WrongTypeStatus() at the first that holds another type.
StatusOr<std::vector<SetSource>> LoadSetSources(SetType& sets,
                                                std::span<const std::string_view> keys);

// How an intersection reads a present source: its members, and whether it holds one. A set's
// through SetType; ZINTERCARD's reader also takes sorted sets (storage/zset_intercard.h).
class IntersectionReader {
 public:
  using Visitor = std::function<StatusOr<bool>(std::string_view)>;
  virtual ~IntersectionReader() = default;
  // Calls visit(member) for each member while it returns true.
  virtual Status Visit(const SetSource& source, const Visitor& visit) = 0;
  virtual StatusOr<bool> Contains(const SetSource& source, std::string_view member) = 0;
};

// Redis's intersection walk: the sources ordered by size, smallest first (a stable sort, as
// Redis's qsort of them), each member of the smallest looked up in the others in that order,
// take(member) called for each member in all of them while it returns true. A missing source
// makes the intersection empty: nothing is read.
Status WalkIntersection(IntersectionReader& reader, std::span<const SetSource> sources,
                        const std::function<bool(std::string_view)>& take);

StatusOr<std::vector<std::string>> SetInter(SetType& sets, std::span<const SetSource> sources);
// SINTERCARD: the size of the intersection, counting no further than `limit` (0: no limit).
StatusOr<uint64_t> SetInterCard(SetType& sets, std::span<const SetSource> sources, uint64_t limit);
StatusOr<std::vector<std::string>> SetUnion(SetType& sets, std::span<const SetSource> sources);
StatusOr<std::vector<std::string>> SetDiff(SetType& sets, std::span<const SetSource> sources);

}  // namespace sluice::storage
