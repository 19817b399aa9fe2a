#include "storage/zset_intercard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"
#include "storage/set_type.h"
#include "storage/zset_sources.h"
#include "storage/zset_type.h"

namespace sluice::storage::testing {
namespace {

// Every member inline (the default limits) or every sorted set indexed from its first member.
constexpr InlineLimits kAlwaysIndexed{.max_entries = 0, .max_member = 0};

class ZSetInterCardTest : public EngineTest {
 protected:
  // A sorted set of `members`, scored 1, 2, 3... in that order.
  void AddZSet(std::string_view key, const std::vector<std::string>& members, bool indexed) {
    std::vector<ScoreMemberArg> pairs;
    for (size_t i = 0; i < members.size(); ++i) {
      pairs.push_back({static_cast<double>(i + 1), members[i]});
    }
    ZSetType zsets(*engine_, NowMs(), indexed ? kAlwaysIndexed : InlineLimits{});
    ASSERT_TRUE(zsets.Add(key, {}, pairs).ok());
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  void AddSet(std::string_view key, const std::vector<std::string>& members) {
    std::vector<std::string_view> views(members.begin(), members.end());
    ASSERT_TRUE(SetType(*engine_, NowMs()).Add(key, views).ok());
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  StatusOr<uint64_t> Count(std::vector<std::string_view> keys, uint64_t limit) {
    auto sources = LoadZSetOrSetSources(*engine_, NowMs(), keys);
    if (!sources.ok()) return sources.status();
    return ZSetInterCard(*engine_, NowMs(), *sources, limit);
  }

  uint64_t CountOrDie(std::vector<std::string_view> keys, uint64_t limit = 0) {
    StatusOr<uint64_t> count = Count(std::move(keys), limit);
    EXPECT_TRUE(count.ok()) << count.status().message();
    return count.ok() ? *count : UINT64_MAX;
  }
};

TEST_F(ZSetInterCardTest, CountsSortedSetsOfBothEncodingsAndSets) {
  AddZSet("inline", {"a", "b", "c", "d"}, false);
  AddZSet("indexed", {"d", "c", "b", "x", "y"}, true);
  AddSet("set", {"b", "c", "x", "q"});
  EXPECT_EQ(CountOrDie({"inline"}), 4u);
  EXPECT_EQ(CountOrDie({"indexed"}), 5u);
  EXPECT_EQ(CountOrDie({"set"}), 4u);
  EXPECT_EQ(CountOrDie({"inline", "indexed"}), 3u);
  EXPECT_EQ(CountOrDie({"indexed", "inline"}), 3u);
  EXPECT_EQ(CountOrDie({"inline", "set"}), 2u);
  EXPECT_EQ(CountOrDie({"set", "indexed"}), 3u);
  EXPECT_EQ(CountOrDie({"inline", "indexed", "set"}), 2u);
  EXPECT_EQ(CountOrDie({"inline", "inline"}), 4u);
  EXPECT_EQ(CountOrDie({"indexed", "inline", "indexed"}), 3u);
}

TEST_F(ZSetInterCardTest, LimitCapsTheCountAndZeroIsNoLimit) {
  AddZSet("z", {"a", "b", "c", "d"}, true);
  AddSet("s", {"a", "b", "c", "d", "e"});
  EXPECT_EQ(CountOrDie({"z", "s"}, 0), 4u);
  EXPECT_EQ(CountOrDie({"z", "s"}, 1), 1u);
  EXPECT_EQ(CountOrDie({"z", "s"}, 3), 3u);
  EXPECT_EQ(CountOrDie({"z", "s"}, 4), 4u);
  EXPECT_EQ(CountOrDie({"z", "s"}, 9), 4u);
}

TEST_F(ZSetInterCardTest, AMissingSourceIsAnEmptySet) {
  AddZSet("z", {"a"}, false);
  EXPECT_EQ(CountOrDie({"z", "nope"}), 0u);
  EXPECT_EQ(CountOrDie({"nope", "z"}), 0u);
  EXPECT_EQ(CountOrDie({"nope"}), 0u);
}

TEST_F(ZSetInterCardTest, AnotherTypeAnywhereIsWrongType) {
  AddZSet("z", {"a"}, false);
  PutAndCommit("str", StringRecord("v"));
  EXPECT_EQ(Count({"nope", "z", "str"}, 0).status().code(), Code::kWrongType);
  EXPECT_EQ(Count({"str", "nope"}, 0).status().code(), Code::kWrongType);
}

TEST_F(ZSetInterCardTest, SourcesAreLookedUpOnceEach) {
  AddZSet("z", {"a", "b"}, false);
  AddZSet("zi", {"a", "b", "c"}, true);
  AddSet("s", {"b"});
  const LookupCounter lookups = LookupsDuring([&] {
    EXPECT_EQ(CountOrDie({"z", "zi", "s", "nope"}), 0u);
    EXPECT_EQ(CountOrDie({"zi", "z", "s"}), 1u);
  });
  EXPECT_EQ(lookups.hits, 6u);
  EXPECT_EQ(lookups.misses, 1u);
}

// ZUNION's, ZINTER's and ZDIFF's read: each source looked up once, then read whole under the
// record found, with no second lookup: a sorted set's members in score order, a set's scored
// 1, a missing key's none.
TEST_F(ZSetInterCardTest, ScoredMembersOfReadsEachSourceUnderItsRecord) {
  AddZSet("z", {"b", "a"}, false);
  AddZSet("zi", {"c", "d", "e"}, true);
  AddSet("s", {"y", "x"});
  using Entries = std::vector<std::pair<std::string, double>>;
  std::vector<Entries> read;
  const LookupCounter lookups = LookupsDuring([&] {
    const std::vector<std::string_view> keys = {"z", "zi", "s", "nope"};
    auto sources = LoadZSetOrSetSources(*engine_, NowMs(), keys);
    ASSERT_TRUE(sources.ok()) << sources.status().message();
    for (const SetSource& source : *sources) {
      auto members = ScoredMembersOf(*engine_, NowMs(), source);
      ASSERT_TRUE(members.ok()) << members.status().message();
      Entries& entries = read.emplace_back();
      for (const ScoredMember& m : *members) entries.emplace_back(m.member, m.score);
    }
  });
  EXPECT_EQ(read,
            (std::vector<Entries>{
                {{"b", 1}, {"a", 2}}, {{"c", 1}, {"d", 2}, {"e", 3}}, {{"x", 1}, {"y", 1}}, {}}));
  EXPECT_EQ(lookups.hits, 3u);
  EXPECT_EQ(lookups.misses, 1u);
}

// The walk stops once the count reaches the limit: the members after it are never looked up.
// "c", the smallest set's third member, has an unreadable score in the other set, which only a
// lookup of it meets.
TEST_F(ZSetInterCardTest, TheWalkStopsAtTheLimit) {
  AddZSet("small", {"a", "b", "c"}, true);
  AddZSet("big", {"a", "b", "c", "d"}, true);
  std::optional<Record> big = GetOrDie("big");
  ASSERT_TRUE(big.has_value());
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("big", big->meta.version, "c"), "bad");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(CountOrDie({"big", "small"}, 2), 2u);
  EXPECT_EQ(Count({"big", "small"}, 3).status().code(), Code::kIo);
  EXPECT_EQ(Count({"big", "small"}, 0).status().code(), Code::kIo);
}

// Random sources of random kinds and sizes, against std::set.
TEST_F(ZSetInterCardTest, RandomSourcesAgreeWithStdSet) {
  std::mt19937_64 rng(20261126);
  const std::vector<std::string_view> keys = {"k0", "k1", "k2", "k3"};
  for (int round = 0; round < 60; ++round) {
    std::vector<std::set<std::string>> model(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      engine_->Delete(keys[k]);
      ASSERT_TRUE(engine_->Commit(false).ok());
      const size_t size = std::uniform_int_distribution<size_t>(0, round % 2 ? 300 : 12)(rng);
      const uint64_t universe = std::uniform_int_distribution<uint64_t>(1, 400)(rng);
      for (size_t i = 0; i < size; ++i) model[k].insert("m" + std::to_string(rng() % universe));
      const std::vector<std::string> members(model[k].begin(), model[k].end());
      if (members.empty()) continue;
      if (rng() % 3 == 0) {
        AddSet(keys[k], members);
      } else {
        AddZSet(keys[k], members, false);  // inline or indexed, as its size decides
      }
    }
    const size_t n = std::uniform_int_distribution<size_t>(1, keys.size())(rng);
    std::vector<std::string_view> picked;
    std::set<std::string> inter;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = rng() % keys.size();
      picked.push_back(keys[k]);
      if (i == 0) {
        inter = model[k];
        continue;
      }
      std::set<std::string> kept;
      std::set_intersection(inter.begin(), inter.end(), model[k].begin(), model[k].end(),
                            std::inserter(kept, kept.end()));
      inter = std::move(kept);
    }
    EXPECT_EQ(CountOrDie(picked, 0), inter.size()) << "round " << round;
    EXPECT_EQ(CountOrDie(picked, 3), std::min<uint64_t>(3, inter.size())) << "round " << round;
  }
}

}  // namespace
}  // namespace sluice::storage::testing
