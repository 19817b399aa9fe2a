#include "storage/zset_algebra.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace sluice::storage {

namespace {

uint64_t SizeOf(const ZSetSource& source) {
  return std::max<uint64_t>(source.size, source.members.size());
}

void SortBySize(std::span<ZSetSource> sources) {
  std::stable_sort(sources.begin(), sources.end(),
                   [](const ZSetSource& a, const ZSetSource& b) { return SizeOf(a) < SizeOf(b); });
}

// Redis's weighted score: weight * score, NaN counted as 0.
double Weighted(double weight, double score) {
  const double value = weight * score;
  return std::isnan(value) ? 0.0 : value;
}

void SortByScore(std::vector<ScoredMember>& members) {
  std::sort(members.begin(), members.end(), [](const ScoredMember& a, const ScoredMember& b) {
    if (a.score != b.score) return a.score < b.score;
    return a.member < b.member;
  });
}

}  // namespace

void ZAggregateInto(double* target, double value, ZAggregate aggregate) {
  switch (aggregate) {
    case ZAggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0.0;  // +inf + -inf
      return;
    case ZAggregate::kMin:
      *target = value < *target ? value : *target;
      return;
    case ZAggregate::kMax:
      *target = value > *target ? value : *target;
      return;
  }
}

std::vector<ScoredMember> ZSetUnion(std::span<ZSetSource> sources, ZAggregate aggregate) {
  SortBySize(sources);
  std::unordered_map<std::string_view, double> scores;
  std::vector<std::string_view> order;  // first seen, so that the result's build is stable
  for (const ZSetSource& source : sources) {
    for (const ScoredMember& m : source.members) {
      const double score = Weighted(source.weight, m.score);
      auto [it, added] = scores.try_emplace(m.member, score);
      if (added) {
        order.push_back(m.member);
      } else {
        ZAggregateInto(&it->second, score, aggregate);
      }
    }
  }
  std::vector<ScoredMember> out;
  out.reserve(order.size());
  for (std::string_view member : order) out.push_back({std::string(member), scores[member]});
  SortByScore(out);
  return out;
}

std::vector<ScoredMember> ZSetInter(std::span<ZSetSource> sources, ZAggregate aggregate) {
  std::vector<ScoredMember> out;
  if (sources.empty()) return out;
  SortBySize(sources);
  std::vector<std::unordered_map<std::string_view, double>> others(sources.size() - 1);
  for (size_t i = 1; i < sources.size(); ++i) {
    others[i - 1].reserve(sources[i].members.size());
    for (const ScoredMember& m : sources[i].members) others[i - 1].emplace(m.member, m.score);
  }
  for (const ScoredMember& m : sources[0].members) {
    double score = Weighted(sources[0].weight, m.score);
    bool everywhere = true;
    for (size_t i = 1; i < sources.size() && everywhere; ++i) {
      auto it = others[i - 1].find(m.member);
      if (it == others[i - 1].end()) {
        everywhere = false;
      } else {
        // Not NaN-checked before aggregating, as Redis: SUM turns it into 0, MIN and MAX skip it.
        ZAggregateInto(&score, it->second * sources[i].weight, aggregate);
      }
    }
    if (everywhere) out.push_back({m.member, score});
  }
  SortByScore(out);
  return out;
}

std::vector<ScoredMember> ZSetDiff(std::span<const ZSetSource> sources) {
  std::vector<ScoredMember> out;
  if (sources.empty()) return out;
  std::unordered_set<std::string_view> removed;
  for (size_t i = 1; i < sources.size(); ++i) {
    for (const ScoredMember& m : sources[i].members) removed.insert(m.member);
  }
  for (const ScoredMember& m : sources[0].members) {
    if (!removed.contains(m.member)) out.push_back(m);
  }
  SortByScore(out);
  return out;
}

}  // namespace sluice::storage
