#include "storage/random_sample.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace sluice::storage {

SamplePlan PlanSample(uint64_t size, int64_t count, std::mt19937_64& rng) {
  SamplePlan plan;
  if (count == 0 || size == 0) return plan;
  auto uniform = [&](uint64_t max) { return std::uniform_int_distribution<uint64_t>(0, max)(rng); };
  if (count > 0) {
    const uint64_t k = std::min(static_cast<uint64_t>(count), size);
    if (k == size) {
      plan.positions.resize(size);
      std::iota(plan.positions.begin(), plan.positions.end(), uint64_t{0});
    } else {
      // Floyd: for j in [size - k, size), take a uniform t in [0, j], or j itself when t is
      // taken already. Every k-subset comes out with the same probability.
      std::unordered_set<uint64_t> chosen;
      chosen.reserve(k);
      for (uint64_t j = size - k; j < size; ++j) {
        if (!chosen.insert(uniform(j)).second) chosen.insert(j);
      }
      plan.positions.assign(chosen.begin(), chosen.end());
      std::sort(plan.positions.begin(), plan.positions.end());
    }
    plan.picks.resize(k);
    std::iota(plan.picks.begin(), plan.picks.end(), uint32_t{0});
    return plan;
  }
  const uint64_t n = uint64_t{0} - static_cast<uint64_t>(count);  // |count|, INT64_MIN too
  plan.picks.resize(n);
  if (n >= size) {
    // Every position is read: the draws are the picks.
    plan.positions.resize(size);
    std::iota(plan.positions.begin(), plan.positions.end(), uint64_t{0});
    for (uint32_t& pick : plan.picks) pick = static_cast<uint32_t>(uniform(size - 1));
    return plan;
  }
  std::vector<uint64_t> draws(n);
  for (uint64_t& draw : draws) draw = uniform(size - 1);
  plan.positions = draws;
  std::sort(plan.positions.begin(), plan.positions.end());
  plan.positions.erase(std::unique(plan.positions.begin(), plan.positions.end()),
                       plan.positions.end());
  for (uint64_t i = 0; i < n; ++i) {
    plan.picks[i] = static_cast<uint32_t>(
        std::lower_bound(plan.positions.begin(), plan.positions.end(), draws[i]) -
        plan.positions.begin());
  }
  return plan;
}

Status VisitPositions(SubEntryIterator& it, uint64_t size, std::span<const uint64_t> positions,
                      const std::function<Status(size_t, const SubEntryIterator&)>& take) {
  if (positions.empty()) return Status::Ok();
  const bool from_head = positions.back() < size - positions.front();
  if (from_head) {
    it.SeekToFirst();
    uint64_t at = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
      for (; at < positions[i] && it.Valid(); ++at) it.Next();
      if (!it.Valid()) break;
      SLUICE_RETURN_IF_ERROR(take(i, it));
    }
  } else {
    it.SeekToLast();
    uint64_t at = size - 1;
    for (size_t i = positions.size(); i-- > 0;) {
      for (; at > positions[i] && it.Valid(); --at) it.Prev();
      if (!it.Valid()) break;
      SLUICE_RETURN_IF_ERROR(take(i, it));
    }
  }
  SLUICE_RETURN_IF_ERROR(it.status());
  if (!it.Valid()) return IoError("fewer elements stored than the key's size");
  return Status::Ok();
}

}  // namespace sluice::storage
