// A hash, set or sorted set after a long churn of deletions is copied under a fresh version
// (composite.h, ShedTombstones), so walks of its elements stop stepping over tombstones.

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/hash_type.h"
#include "storage/set_type.h"
#include "storage/tombstone_counts.h"
#include "storage/zset_type.h"

namespace sluice::storage::testing {
namespace {

class TombstoneSheddingTest : public EngineTest {
 protected:
  uint64_t Version(std::string_view key) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value()) << key;
    return record ? record->meta.version : 0;
  }
  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }
};

// HSET a new field, HDEL the oldest: 200 fields, thousands of tombstones.
TEST_F(TombstoneSheddingTest, AChurnedHashIsCopiedAndKeepsItsFields) {
  HashType hash(*engine_, NowMs());
  std::deque<std::string> fields;
  const uint64_t first_version = [&] {
    for (int i = 0; i < 200; ++i) {
      fields.push_back("f" + std::to_string(i));
      const std::string value = "v" + std::to_string(i);
      const FieldValue pair{fields.back(), value};
      EXPECT_TRUE(hash.Set("h", {&pair, 1}, false).ok());
    }
    Commit();
    return Version("h");
  }();
  uint64_t copies = 0;
  uint64_t version = first_version;
  for (int i = 200; i < 200 + 3 * static_cast<int>(kTombstoneFloor); ++i) {
    fields.push_back("f" + std::to_string(i));
    const std::string value = "v" + std::to_string(i);
    const FieldValue pair{fields.back(), value};
    ASSERT_TRUE(hash.Set("h", {&pair, 1}, false).ok());
    const std::string_view oldest[] = {fields.front()};
    ASSERT_EQ(*hash.Delete("h", oldest), 1u);
    fields.pop_front();
    if (Version("h") != version) {
      ++copies;
      version = Version("h");
    }
    if (i % 100 == 0) Commit();
  }
  // Every kTombstoneFloor deletions (above 8 per field): about three copies.
  EXPECT_GE(copies, 2u);
  EXPECT_LE(copies, 3u);
  StatusOr<std::vector<std::pair<std::string, std::string>>> all = hash.GetAll("h");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 200u);
  std::map<std::string, std::string> got(all->begin(), all->end());
  for (const std::string& field : fields) {
    EXPECT_EQ(got[field], "v" + field.substr(1)) << field;
  }
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 200u);
}

// A large hash with a few deletions is not copied: the copy must pay for itself.
TEST_F(TombstoneSheddingTest, AFewDeletionsCopyNothing) {
  HashType hash(*engine_, NowMs());
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back("f" + std::to_string(i));
  std::vector<FieldValue> pairs;
  for (const std::string& name : names) pairs.push_back({name, "v"});
  ASSERT_TRUE(hash.Set("big", pairs, false).ok());
  Commit();
  const uint64_t version = Version("big");
  for (int i = 0; i < 900; ++i) {
    const std::string_view one[] = {names[static_cast<size_t>(i)]};
    ASSERT_EQ(*hash.Delete("big", one), 1u);
  }
  EXPECT_EQ(Version("big"), version);
}

TEST_F(TombstoneSheddingTest, SetsShedTheTombstonesOfRemovalsAndPops) {
  SetType set(*engine_, NowMs());
  std::mt19937_64 rng(5);
  std::vector<std::string> members;
  for (int i = 0; i < 100; ++i) members.push_back("m" + std::to_string(i));
  std::vector<std::string_view> views(members.begin(), members.end());
  ASSERT_TRUE(set.Add("s", views).ok());
  const uint64_t version = Version("s");
  auto add = [&](uint64_t i) {
    std::string member = "n" + std::to_string(i);
    const std::string_view one[] = {member};
    EXPECT_TRUE(set.Add("s", one).ok());
    return member;
  };
  // SADD one, SREM it: just short of the floor.
  for (uint64_t i = 0; i < kTombstoneFloor - 5; ++i) {
    const std::string member = add(i);
    const std::string_view one[] = {member};
    ASSERT_EQ(*set.Remove("s", one), 1u);
    if (i % 100 == 0) Commit();
  }
  EXPECT_EQ(Version("s"), version);
  // SADD one, SPOP one: the pops reach it.
  for (uint64_t i = kTombstoneFloor; i < kTombstoneFloor + 10; ++i) {
    add(i);
    StatusOr<std::vector<std::string>> popped = set.Pop("s", 1, rng, nullptr);
    ASSERT_TRUE(popped.ok());
    ASSERT_EQ(popped->size(), 1u);
  }
  EXPECT_NE(Version("s"), version);
  EXPECT_EQ(*set.Card("s"), 100u);
  EXPECT_EQ(set.Members("s")->size(), 100u);
}

// A leaderboard: ZINCRBY of random members leaves the old score's index entry as a tombstone.
TEST_F(TombstoneSheddingTest, ASortedSetShedsTheTombstonesOfRescores) {
  InlineLimits limits;
  limits.max_entries = 0;  // indexed from the first member
  ZSetType zset(*engine_, NowMs(), limits);
  std::vector<std::string> members;
  for (int i = 0; i < 100; ++i) members.push_back("p" + std::to_string(i));
  std::map<std::string, double> model;
  for (const std::string& member : members) {
    const ScoreMemberArg arg{0, member};
    ASSERT_TRUE(zset.Add("lb", {}, {&arg, 1}).ok());
    model[member] = 0;
  }
  const uint64_t version = Version("lb");
  std::mt19937 rng(3);
  ZAddOptions incr;
  incr.incr = true;
  for (uint64_t i = 0; i < kTombstoneFloor + 10; ++i) {
    const std::string& member = members[rng() % members.size()];
    const ScoreMemberArg arg{1, member};
    ASSERT_TRUE(zset.Add("lb", incr, {&arg, 1}).ok());
    model[member] += 1;
    if (i % 100 == 0) Commit();
  }
  EXPECT_NE(Version("lb"), version);
  StatusOr<std::vector<ScoredMember>> all = zset.RangeByRank("lb", 0, -1, false);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 100u);
  for (const ScoredMember& entry : *all) EXPECT_EQ(entry.score, model[entry.member]);
  for (size_t i = 1; i < all->size(); ++i) EXPECT_LE((*all)[i - 1].score, (*all)[i].score);
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 100u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 100u);
}

// Many keys with a deletion or two each (per-user hashes) next to one hot key: the hot key's
// count survives the bound on counts, so it still reaches a copy. (Clearing every count at the
// bound, as a first version did, wiped it again and again.)
TEST(TombstoneCountsTest, AKeyWithManyDeletionsKeepsItsCountAmongManySmallOnes) {
  TombstoneCounts counts;
  uint64_t hot = 0;
  for (int i = 0; i < 60000; ++i) {
    hot = counts.Add("hot", 1);
    counts.Add("user" + std::to_string(i), 1);
    ASSERT_LE(counts.size(), TombstoneCounts::kCapacity);
  }
  EXPECT_EQ(hot, 60000u);
  counts.Forget("hot");
  EXPECT_EQ(counts.Add("hot", 1), 1u);
}

}  // namespace
}  // namespace sluice::storage::testing
