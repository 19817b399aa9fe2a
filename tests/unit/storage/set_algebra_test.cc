#include "storage/set_algebra.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace sluice::storage::testing {
namespace {

using Members = std::vector<std::string>;

class SetAlgebraTest : public EngineTest {
 protected:
  SetType Sets() { return SetType(*engine_, NowMs()); }

  void Add(std::string_view key, const Members& members) {
    std::vector<std::string_view> views(members.begin(), members.end());
    ASSERT_TRUE(Sets().Add(key, views).ok());
  }

  std::vector<SetSource> Load(SetType& sets, std::vector<std::string_view> keys) {
    auto sources = LoadSetSources(sets, keys);
    EXPECT_TRUE(sources.ok()) << sources.status().message();
    return sources.ok() ? std::move(*sources) : std::vector<SetSource>();
  }

  Members Inter(std::vector<std::string_view> keys) {
    SetType sets = Sets();
    auto result = SetInter(sets, Load(sets, keys));
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : Members();
  }
  Members Union(std::vector<std::string_view> keys) {
    SetType sets = Sets();
    auto result = SetUnion(sets, Load(sets, keys));
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : Members();
  }
  Members Diff(std::vector<std::string_view> keys) {
    SetType sets = Sets();
    auto result = SetDiff(sets, Load(sets, keys));
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : Members();
  }
  uint64_t InterCard(std::vector<std::string_view> keys, uint64_t limit) {
    SetType sets = Sets();
    auto result = SetInterCard(sets, Load(sets, keys), limit);
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : 0;
  }
};

TEST_F(SetAlgebraTest, InterUnionDiffInMemberOrder) {
  Add("a", {"x", "y", "z"});
  Add("b", {"y", "z", "w"});
  Add("c", {"z", "v"});
  EXPECT_EQ(Inter({"a", "b"}), (Members{"y", "z"}));
  EXPECT_EQ(Inter({"a", "b", "c"}), Members{"z"});
  EXPECT_EQ(Inter({"a"}), (Members{"x", "y", "z"}));
  EXPECT_EQ(Inter({"a", "a"}), (Members{"x", "y", "z"}));
  EXPECT_EQ(Union({"a", "b", "c"}), (Members{"v", "w", "x", "y", "z"}));
  EXPECT_EQ(Union({"a", "a"}), (Members{"x", "y", "z"}));
  EXPECT_EQ(Diff({"a", "b"}), Members{"x"});
  EXPECT_EQ(Diff({"b", "a", "c"}), Members{"w"});
  EXPECT_EQ(Diff({"a"}), (Members{"x", "y", "z"}));
  EXPECT_EQ(Diff({"a", "a"}), Members{});
  EXPECT_EQ(InterCard({"a", "b"}, 0), 2u);
  EXPECT_EQ(InterCard({"a", "b"}, 1), 1u);
  EXPECT_EQ(InterCard({"a", "b"}, 5), 2u);
}

TEST_F(SetAlgebraTest, MissingSourcesAreEmptySets) {
  Add("a", {"x", "y"});
  EXPECT_EQ(Inter({"a", "nope"}), Members{});
  EXPECT_EQ(Inter({"nope"}), Members{});
  EXPECT_EQ(InterCard({"nope", "a"}, 0), 0u);
  EXPECT_EQ(Union({"nope", "a", "nope2"}), (Members{"x", "y"}));
  EXPECT_EQ(Diff({"a", "nope"}), (Members{"x", "y"}));
  EXPECT_EQ(Diff({"nope", "a"}), Members{});
}

TEST_F(SetAlgebraTest, AnotherTypeAnywhereIsWrongType) {
  Add("a", {"x"});
  PutAndCommit("str", StringRecord("v"));
  SetType sets = Sets();
  const std::string_view keys[] = {"nope", "a", "str"};
  EXPECT_EQ(LoadSetSources(sets, keys).status().code(), Code::kWrongType);
}

TEST_F(SetAlgebraTest, SourcesAreLookedUpOnceEach) {
  Add("a", {"x", "y"});
  Add("b", {"y"});
  ASSERT_TRUE(engine_->Commit(false).ok());
  const LookupCounter lookups = LookupsDuring([&] {
    Inter({"a", "b", "nope"});
    Inter({"a", "b"});
    Diff({"a", "b"});
    Union({"a", "b"});
  });
  EXPECT_EQ(lookups.hits, 8u);
  EXPECT_EQ(lookups.misses, 1u);
}

// Both of SDIFF's ways (look members up, or read the others whole) and SINTER's walk, against
// std::set on random sets of random sizes.
TEST_F(SetAlgebraTest, RandomSetsAgreeWithStdSet) {
  std::mt19937_64 rng(20251125);
  const std::vector<std::string_view> keys = {"k0", "k1", "k2", "k3"};
  for (int round = 0; round < 60; ++round) {
    std::vector<std::set<std::string>> model(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      engine_->Delete(keys[k]);
      const size_t size = std::uniform_int_distribution<size_t>(0, round % 2 ? 400 : 12)(rng);
      const uint64_t universe = std::uniform_int_distribution<uint64_t>(1, 600)(rng);
      Members members;
      for (size_t i = 0; i < size; ++i) {
        members.push_back("m" + std::to_string(rng() % universe));
        model[k].insert(members.back());
      }
      if (!members.empty()) Add(keys[k], members);
    }
    const size_t n = std::uniform_int_distribution<size_t>(1, keys.size())(rng);
    std::vector<std::string_view> picked;
    std::vector<std::set<std::string>> sets;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = rng() % keys.size();
      picked.push_back(keys[k]);
      sets.push_back(model[k]);
    }
    std::set<std::string> inter = sets[0];
    std::set<std::string> uni;
    std::set<std::string> diff = sets[0];
    for (size_t i = 0; i < n; ++i) {
      std::set<std::string> kept;
      std::set_intersection(inter.begin(), inter.end(), sets[i].begin(), sets[i].end(),
                            std::inserter(kept, kept.end()));
      inter = std::move(kept);
      uni.insert(sets[i].begin(), sets[i].end());
      if (i > 0) {
        for (const std::string& m : sets[i]) diff.erase(m);
      }
    }
    EXPECT_EQ(Inter(picked), Members(inter.begin(), inter.end())) << "round " << round;
    EXPECT_EQ(Union(picked), Members(uni.begin(), uni.end())) << "round " << round;
    EXPECT_EQ(Diff(picked), Members(diff.begin(), diff.end())) << "round " << round;
    EXPECT_EQ(InterCard(picked, 0), inter.size());
    EXPECT_EQ(InterCard(picked, 3), std::min<uint64_t>(3, inter.size()));
  }
}

}  // namespace
}  // namespace sluice::storage::testing
