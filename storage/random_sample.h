#pragma once

// Random samples of a collection's elements (HRANDFIELD, ZRANDMEMBER): which positions to read,
// and how to reach them through a sub-entry iterator, which has no positional index.

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"

namespace sluice::storage {

// Which elements of a collection of `size` a random sample reads, and the reply made of them.
struct SamplePlan {
  std::vector<uint64_t> positions;  // 0-based, in the collection's order: distinct, ascending
  std::vector<uint32_t> picks;      // the reply, in order: indexes into `positions`
};

// Redis's rules for the count of HRANDFIELD / ZRANDMEMBER / SRANDMEMBER:
//   count > 0   min(count, size) distinct elements, each subset equally likely (Floyd's
//               algorithm, O(k) draws), replied in position order, as Redis replies a sample of
//               a listpack in the listpack's order;
//   count < 0   exactly -count independent uniform picks (repeats allowed), in the order drawn;
//               every position is read when -count >= size;
//   count == 0, size == 0: nothing.
// The caller bounds -count (and a positive count past 2^32 needs a set that large): picks index
// with 32 bits, and a negative count's plan takes about 20 bytes a pick.
SamplePlan PlanSample(uint64_t size, int64_t count, std::mt19937_64& rng);

// Calls take(i, it) with `it` on the entry at positions[i], for every i, walking `it` (over
// exactly `size` entries) from whichever end is closer to the positions: in ascending order from
// the first entry, or descending from the last. An IoError if the entries end early.
Status VisitPositions(SubEntryIterator& it, uint64_t size, std::span<const uint64_t> positions,
                      const std::function<Status(size_t, const SubEntryIterator&)>& take);

// A sample as read: the elements at the plan's positions, and the reply as indexes into them.
template <typename T>
struct RandomSample {
  std::vector<T> elements;
  std::vector<uint32_t> picks;
};

}  // namespace sluice::storage
