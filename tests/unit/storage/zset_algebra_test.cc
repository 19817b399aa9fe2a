#include "storage/zset_algebra.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace sluice::storage {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using Entries = std::vector<std::pair<std::string, double>>;

ZSetSource Source(Entries entries, double weight = 1) {
  ZSetSource source;
  for (auto& [member, score] : entries) source.members.push_back({member, score});
  source.weight = weight;
  return source;
}

Entries Flatten(const std::vector<ScoredMember>& members) {
  Entries out;
  for (const ScoredMember& m : members) out.emplace_back(m.member, m.score);
  return out;
}

TEST(ZSetAlgebraTest, AggregateSumTurnsNanIntoZeroMinAndMaxKeepTheTarget) {
  double target = kInf;
  ZAggregateInto(&target, -kInf, ZAggregate::kSum);
  EXPECT_EQ(target, 0.0);
  target = 1;
  ZAggregateInto(&target, std::nan(""), ZAggregate::kMin);
  EXPECT_EQ(target, 1.0);
  ZAggregateInto(&target, std::nan(""), ZAggregate::kMax);
  EXPECT_EQ(target, 1.0);
  ZAggregateInto(&target, -3, ZAggregate::kMin);
  EXPECT_EQ(target, -3.0);
  ZAggregateInto(&target, 7, ZAggregate::kMax);
  EXPECT_EQ(target, 7.0);
}

TEST(ZSetAlgebraTest, UnionWeightsAggregatesAndOrdersByScoreThenMember) {
  std::vector<ZSetSource> sources = {Source({{"x", 1}, {"y", 2}}, 2),
                                     Source({{"y", 10}, {"w", 4}, {"b", 4}})};
  EXPECT_EQ(Flatten(ZSetUnion(sources, ZAggregate::kSum)),
            (Entries{{"x", 2}, {"b", 4}, {"w", 4}, {"y", 14}}));
  EXPECT_EQ(Flatten(ZSetUnion(sources, ZAggregate::kMin)),
            (Entries{{"x", 2}, {"b", 4}, {"w", 4}, {"y", 4}}));
  EXPECT_EQ(Flatten(ZSetUnion(sources, ZAggregate::kMax)),
            (Entries{{"x", 2}, {"b", 4}, {"w", 4}, {"y", 10}}));
}

TEST(ZSetAlgebraTest, UnionCountsAWeightedNanAsZero) {
  std::vector<ZSetSource> sources = {Source({{"m", kInf}}, 0), Source({{"m", 5}})};
  // 0 * inf is 0 before MIN sees it.
  EXPECT_EQ(Flatten(ZSetUnion(sources, ZAggregate::kMin)), (Entries{{"m", 0}}));
}

TEST(ZSetAlgebraTest, InterAggregatesAWeightedNanUnchecked) {
  // The smaller source comes first; the other's 0 * inf is NaN: SUM makes it 0, MIN keeps 5.
  std::vector<ZSetSource> sources = {Source({{"m", kInf}, {"n", 1}}, 0), Source({{"m", 5}})};
  EXPECT_EQ(Flatten(ZSetInter(sources, ZAggregate::kSum)), (Entries{{"m", 0}}));
  sources = {Source({{"m", kInf}, {"n", 1}}, 0), Source({{"m", 5}})};
  EXPECT_EQ(Flatten(ZSetInter(sources, ZAggregate::kMin)), (Entries{{"m", 5}}));
}

TEST(ZSetAlgebraTest, SourcesAreSummedSmallestFirst) {
  // (1e16 + 1) + 1 loses both ones; 1e16 + (1 + 1) would not: the two one-member sets come first.
  std::vector<ZSetSource> sources = {Source({{"m", 1e16}, {"a", 0}, {"b", 0}}), Source({{"m", 1}}),
                                     Source({{"m", 1}})};
  std::vector<ScoredMember> got = ZSetUnion(sources, ZAggregate::kSum);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].score, 1e16 + 2);
}

TEST(ZSetAlgebraTest, InterNeedsEveryMemberEverywhereAndAnEmptySourceEmptiesIt) {
  std::vector<ZSetSource> sources = {Source({{"a", 1}, {"b", 2}, {"c", 3}}),
                                     Source({{"c", 1}, {"a", 1}})};
  EXPECT_EQ(Flatten(ZSetInter(sources, ZAggregate::kSum)), (Entries{{"a", 2}, {"c", 4}}));
  sources.push_back(Source({}));
  EXPECT_TRUE(ZSetInter(sources, ZAggregate::kSum).empty());
}

TEST(ZSetAlgebraTest, DiffKeepsTheFirstSourcesScoresWithoutWeights) {
  std::vector<ZSetSource> sources = {Source({{"a", 1}, {"b", 2}, {"c", 3}}, 10), Source({{"b", 0}}),
                                     Source({{"z", 0}})};
  EXPECT_EQ(Flatten(ZSetDiff(sources)), (Entries{{"a", 1}, {"c", 3}}));
  EXPECT_TRUE(ZSetDiff({}).empty());
}

}  // namespace
}  // namespace sluice::storage
