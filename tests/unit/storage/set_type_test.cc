#include "storage/set_type.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/hash_type.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

using Members = std::vector<std::string>;

class SetTypeTest : public EngineTest {
 protected:
  // The draws' own tests: pops and picks drawn ahead, not a set read whole (tested apart).
  void SetUp() override {
    EngineTest::SetUp();
    engine_->draws().set_pops.set_most_whole_bytes(0);
    engine_->draws().field_picks.set_most_whole_bytes(0);
  }

  SetType Sets() { return SetType(*engine_, NowMs()); }

  // SSCAN's page of `key`, under the record a lookup finds now (as each SSCAN request looks
  // its key up).
  StatusOr<SetScanPage> ScanPage(std::string_view key, std::string_view after, size_t count) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value()) << key << " is missing";
    if (!record) return Status(Code::kErr, "missing");
    return Sets().ScanOf(key, *record, after, count);
  }

  uint64_t Add(std::string_view key, std::vector<std::string_view> members) {
    StatusOr<uint64_t> added = Sets().Add(key, members);
    EXPECT_TRUE(added.ok()) << added.status().message();
    return added.ok() ? *added : 0;
  }

  uint64_t Remove(std::string_view key, std::vector<std::string_view> members) {
    StatusOr<uint64_t> removed = Sets().Remove(key, members);
    EXPECT_TRUE(removed.ok()) << removed.status().message();
    return removed.ok() ? *removed : 0;
  }

  uint64_t Card(std::string_view key) {
    StatusOr<uint64_t> n = Sets().Card(key);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  Members All(std::string_view key) {
    auto all = Sets().Members(key);
    EXPECT_TRUE(all.ok()) << all.status().message();
    return all.ok() ? *all : Members();
  }

  bool Move(std::string_view from, std::string_view to, std::string_view member) {
    auto moved = Sets().Move(from, to, member);
    EXPECT_TRUE(moved.ok()) << moved.status().message();
    return moved.ok() && *moved;
  }

  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }

  // Each of `outcomes` outcomes came up about `expected` times: within four standard
  // deviations (the counts are binomial, of small probabilities).
  static void ExpectEvenly(const std::map<std::string, int>& counts, size_t outcomes,
                           int expected) {
    ASSERT_EQ(counts.size(), outcomes);
    const double spread = 4 * std::sqrt(expected);
    for (const auto& [outcome, times] : counts) EXPECT_NEAR(times, expected, spread) << outcome;
  }

  // A set of `n` members named prefix0000 ... (sorted as numbered), committed.
  void AddNumbered(std::string_view key, std::string_view prefix, int n) {
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
      char digits[8];
      std::snprintf(digits, sizeof digits, "%04d", i);
      names.push_back(std::string(prefix) + digits);
    }
    Add(key, std::vector<std::string_view>(names.begin(), names.end()));
    Commit();
  }

  // The pops held for `key`, under its version now.
  const std::vector<std::string>* HeldPops(std::string_view key) {
    return HeldDraw(engine_->draws().set_pops, key);
  }
  size_t HeldPopCount(std::string_view key) {
    const std::vector<std::string>* held = HeldPops(key);
    if (held == nullptr) ADD_FAILURE() << "nothing held for " << key;
    return held ? held->size() : 0;
  }

  // Pops `key`, of `members` members, one at a time until it is gone, checking that each
  // member comes out once; `before` runs before each pop, given the members left.
  void PopEachOnce(std::string_view key, int members, const std::function<void(int)>& before) {
    std::set<std::string> seen;
    for (int left = members; left > 0; --left) {
      before(left);
      if (HasFatalFailure()) return;
      auto popped = Sets().Pop(key, 1, rng_);
      ASSERT_TRUE(popped.ok());
      ASSERT_EQ(popped->size(), 1u);
      EXPECT_TRUE(seen.insert(popped->front()).second) << popped->front() << " popped twice";
      if (left % 64 == 0) Commit();
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(members));
    EXPECT_FALSE(GetOrDie(key).has_value());
  }

  // How often each order came out of `rounds` rounds, each popping a fresh four-member set one
  // by one (the fourth pop, the last member, not counted).
  std::map<std::string, int> PopOrders(int rounds) {
    std::map<std::string, int> orders;
    for (int round = 0; round < rounds; ++round) {
      Add("u", {"a", "b", "c", "d"});
      std::string order;
      for (int pop = 0; pop < 3; ++pop) {
        auto popped = Sets().Pop("u", 1, rng_);
        EXPECT_TRUE(popped.ok() && popped->size() == 1);
        if (popped.ok() && !popped->empty()) order += popped->front();
      }
      ++orders[order];
      EXPECT_EQ(Sets().Pop("u", 1, rng_)->size(), 1u);
    }
    return orders;
  }

  std::mt19937_64 rng_{20251125};
};

// The pops' tests that hold whether a streak draws ahead or reads the set whole.
class SetPopTest : public SetTypeTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    SetTypeTest::SetUp();
    if (GetParam()) {
      engine_->draws().set_pops.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
    }
  }
};

INSTANTIATE_TEST_SUITE_P(DrawsAheadOrWhole, SetPopTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Whole" : "DrawsAhead";
                         });

TEST_F(SetTypeTest, AddRemoveCardAndMembersInMemberOrder) {
  EXPECT_EQ(Add("s", {"b", "a", "c", "a"}), 3u);
  EXPECT_EQ(Add("s", {"a", "d"}), 1u);
  EXPECT_EQ(Card("s"), 4u);
  const uint64_t writes = engine_->StagedWriteCount();
  EXPECT_EQ(Add("s", {"a", "b", "a"}), 0u);
  EXPECT_EQ(engine_->StagedWriteCount(), writes);  // nothing added, nothing written
  EXPECT_EQ(Card("missing"), 0u);
  Commit();
  Reopen();
  EXPECT_EQ(All("s"), (Members{"a", "b", "c", "d"}));
  EXPECT_EQ(Remove("s", {"a", "zz", "a"}), 1u);
  EXPECT_EQ(Remove("missing", {"a"}), 0u);
  EXPECT_EQ(All("s"), (Members{"b", "c", "d"}));
  EXPECT_EQ(All("missing"), Members{});
  // Members are bytes: the empty one, NUL and high bytes (bytewise order, 0xff last).
  EXPECT_EQ(Add("b", {"", std::string_view("a\0b", 3), "\xff", "a"}), 4u);
  EXPECT_EQ(All("b"), (Members{"", "a", std::string("a\0b", 3), "\xff"}));
}

TEST_F(SetTypeTest, IsMemberAndAreMembers) {
  Add("s", {"a", ""});
  EXPECT_TRUE(*Sets().IsMember("s", "a"));
  EXPECT_TRUE(*Sets().IsMember("s", ""));
  EXPECT_FALSE(*Sets().IsMember("s", "b"));
  EXPECT_FALSE(*Sets().IsMember("missing", "a"));
  const std::string_view asked[] = {"b", "a", "", "a"};
  EXPECT_EQ(*Sets().AreMembers("s", asked), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(*Sets().AreMembers("missing", asked), (std::vector<bool>(4, false)));
}

TEST_F(SetTypeTest, TheLastMemberTakesTheKey) {
  Add("s", {"a", "b"});
  Commit();
  EXPECT_EQ(Remove("s", {"a", "b"}), 2u);
  Commit();
  EXPECT_FALSE(GetOrDie("s").has_value());
  Add("p", {"x"});
  auto popped = Sets().Pop("p", 1, rng_);
  ASSERT_TRUE(popped.ok());
  EXPECT_EQ(*popped, Members{"x"});
  EXPECT_FALSE(GetOrDie("p").has_value());
}

TEST_F(SetTypeTest, WrongTypeIsRefusedBothWays) {
  PutAndCommit("str", StringRecord("v"));
  const std::string_view one[] = {"a"};
  EXPECT_EQ(Sets().Add("str", one).status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().Remove("str", one).status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().Card("str").status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().IsMember("str", "a").status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().AreMembers("str", one).status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().Members("str").status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().RandomMembers("str", 1, rng_).status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().Pop("str", 0, rng_).status().code(), Code::kWrongType);
  // A set is not a hash, though it is laid out as one.
  Add("s", {"a"});
  EXPECT_EQ(HashType(*engine_, NowMs()).Len("s").status().code(), Code::kWrongType);
  const FieldValue pair[] = {{"f", "v"}};
  EXPECT_EQ(HashType(*engine_, NowMs()).Set("s", pair).status().code(), Code::kWrongType);
  EXPECT_EQ(GetOrDie("s")->meta.type, KeyType::kSet);
  EXPECT_EQ(TypeName(KeyType::kSet), "set");
  EXPECT_EQ(ParseTypeName("SET"), KeyType::kSet);
}

TEST_F(SetTypeTest, ExpiredSetIsMissingAndRecreatedUnderANewVersion) {
  Add("s", {"a", "b"});
  auto record = GetOrDie("s");
  ASSERT_TRUE(record.has_value());
  const uint64_t old_version = record->meta.version;
  record->meta.expire_at_ms = NowMs() + 1000;
  engine_->Put("s", *record);
  Commit();
  AdvanceMs(1001);
  EXPECT_EQ(Card("s"), 0u);
  EXPECT_FALSE(*Sets().IsMember("s", "a"));
  EXPECT_EQ(Add("s", {"c"}), 1u);
  EXPECT_EQ(All("s"), Members{"c"});  // nothing of the old version shows through
  EXPECT_NE(GetOrDie("s")->meta.version, old_version);
  EXPECT_EQ(GetOrDie("s")->meta.expire_at_ms, 0);
}

TEST_F(SetTypeTest, DelAndExpiryLeaveMembersToCompaction) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("member" + std::to_string(i));
  std::vector<std::string_view> views(names.begin(), names.end());
  EXPECT_EQ(Add("s", views), 500u);
  EXPECT_EQ(Add("t", views), 500u);
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1000u);

  engine_->Delete("s");  // DEL: one metadata write
  auto t = GetOrDie("t");
  t->meta.expire_at_ms = NowMs() + 10;
  engine_->Put("t", *t);
  Commit();
  AdvanceMs(11);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_EQ(RawEntries(), 0u);
}

TEST_F(SetTypeTest, CopyCompositeCarriesMembersAndTtl) {
  Add("src", {"a", "b", "c"});
  auto src = GetOrDie("src");
  src->meta.expire_at_ms = NowMs() + 60000;
  engine_->Put("src", *src);
  Commit();
  auto copied = CopyComposite(*engine_, "src", *src, "dst");
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(copied->meta.type, KeyType::kSet);
  EXPECT_NE(copied->meta.version, src->meta.version);
  EXPECT_EQ(copied->meta.expire_at_ms, src->meta.expire_at_ms);
  engine_->Put("dst", *copied);
  engine_->Delete("src");
  Commit();
  EXPECT_EQ(All("dst"), (Members{"a", "b", "c"}));
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 3u);
  auto bytes = StoredBytes(*engine_, "dst", *GetOrDie("dst"), 0);
  ASSERT_TRUE(bytes.ok());
  EXPECT_GT(*bytes, 3 * EncodeSubKey("dst", copied->meta.version, "a").size());
}

TEST_F(SetTypeTest, MoveFollowsRedis) {
  PutAndCommit("str", StringRecord("v"));
  Add("s", {"a", "b"});
  // A missing source: 0, whatever the destination holds.
  EXPECT_FALSE(Move("missing", "str", "a"));
  EXPECT_EQ(Sets().Move("s", "str", "a").status().code(), Code::kWrongType);
  EXPECT_EQ(Sets().Move("str", "s", "a").status().code(), Code::kWrongType);
  // Onto itself: whether the member is there; nothing written.
  const uint64_t writes = engine_->StagedWriteCount();
  EXPECT_TRUE(Move("s", "s", "a"));
  EXPECT_FALSE(Move("s", "s", "zz"));
  EXPECT_FALSE(Move("s", "d", "zz"));
  EXPECT_EQ(engine_->StagedWriteCount(), writes);
  EXPECT_TRUE(Move("s", "d", "a"));
  EXPECT_EQ(All("s"), Members{"b"});
  EXPECT_EQ(All("d"), Members{"a"});
  // Already in the destination: the source loses it, the destination's record is not written.
  Add("s", {"a"});
  Commit();
  const uint64_t before = engine_->StagedWriteCount();
  EXPECT_TRUE(Move("s", "d", "a"));
  EXPECT_TRUE(engine_->KeyWrittenSince("s", before));
  EXPECT_FALSE(engine_->KeyWrittenSince("d", before));
  EXPECT_EQ(All("d"), Members{"a"});
  // The last member: the source goes.
  EXPECT_TRUE(Move("s", "d", "b"));
  EXPECT_FALSE(GetOrDie("s").has_value());
  EXPECT_EQ(All("d"), (Members{"a", "b"}));
  EXPECT_EQ(Card("d"), 2u);
}

TEST_F(SetTypeTest, ReplaceTakesOverAnyTypeWithoutTtl) {
  engine_->Put("str", StringRecord("v", NowMs() + 60000));
  Add("s", {"old"});
  Commit();
  const std::string members[] = {"x", "y"};
  ASSERT_TRUE(Sets().Replace("str", members).ok());
  ASSERT_TRUE(Sets().Replace("s", members).ok());
  Commit();
  EXPECT_EQ(All("str"), (Members{"x", "y"}));
  EXPECT_EQ(GetOrDie("str")->meta.expire_at_ms, 0);
  EXPECT_EQ(All("s"), (Members{"x", "y"}));
  // Empty: deleted, and nothing written for a missing key.
  ASSERT_TRUE(Sets().Replace("s", {}).ok());
  const uint64_t writes = engine_->StagedWriteCount();
  ASSERT_TRUE(Sets().Replace("never", {}).ok());
  EXPECT_EQ(engine_->StagedWriteCount(), writes);
  Commit();
  EXPECT_FALSE(GetOrDie("s").has_value());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 2u);  // str's x and y
}

TEST_F(SetTypeTest, ScanPagesALargeSetAndASmallOneWhole) {
  Add("small", {"c", "a", "b"});
  auto whole = ScanPage("small", "b", 1);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->members, (Members{"a", "b", "c"}));
  EXPECT_FALSE(whole->resume_after.has_value());
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back("m" + std::to_string(10000 + i));
  std::vector<std::string_view> views(names.begin(), names.end());
  Add("big", views);
  Members seen;
  std::string after;
  for (int pages = 0; pages < 200; ++pages) {
    auto page = ScanPage("big", after, 64);
    ASSERT_TRUE(page.ok());
    EXPECT_LE(page->members.size(), 64u);
    seen.insert(seen.end(), page->members.begin(), page->members.end());
    if (!page->resume_after) break;
    after = *page->resume_after;
  }
  EXPECT_EQ(seen, names);  // every member once, in order
}

// SSCAN's page: under a record looked up before, with no lookup of the key.
TEST_F(SetTypeTest, ScanOfReadsUnderTheRecordGiven) {
  Add("s", {"c", "a", "b"});
  Commit();
  std::optional<Record> record = GetOrDie("s");
  ASSERT_TRUE(record.has_value());
  StatusOr<SetScanPage> page = SetScanPage{};
  const LookupCounter lookups = LookupsDuring([&] { page = Sets().ScanOf("s", *record, "b", 1); });
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->members, (Members{"a", "b", "c"}));  // small: whole
  EXPECT_FALSE(page->resume_after.has_value());
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

TEST_F(SetTypeTest, RandomMembersFollowTheCountRules) {
  Add("s", {"a", "b", "c", "d", "e"});
  const std::set<std::string> all = {"a", "b", "c", "d", "e"};
  std::set<std::string> came_up;
  for (int round = 0; round < 200; ++round) {
    auto sample = Sets().RandomMembers("s", 3, rng_);
    ASSERT_TRUE(sample.ok());
    ASSERT_EQ(sample->picks.size(), 3u);
    std::set<std::string> distinct;
    for (uint32_t pick : sample->picks) {
      ASSERT_LT(pick, sample->elements.size());
      const std::string& m = sample->elements[pick];
      EXPECT_TRUE(all.contains(m)) << m;
      distinct.insert(m);
      came_up.insert(m);
    }
    EXPECT_EQ(distinct.size(), 3u);
  }
  EXPECT_EQ(came_up, all);
  auto repeats = Sets().RandomMembers("s", -20, rng_);
  ASSERT_TRUE(repeats.ok());
  EXPECT_EQ(repeats->picks.size(), 20u);
  auto more = Sets().RandomMembers("s", 9, rng_);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->picks.size(), 5u);
  auto none = Sets().RandomMembers("missing", -3, rng_);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->picks.empty());
}

TEST_P(SetPopTest, PopRemovesWhatItReturns) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("m" + std::to_string(i));
  std::vector<std::string_view> views(names.begin(), names.end());
  Add("s", views);
  Commit();
  std::set<std::string> left(names.begin(), names.end());
  const uint64_t counts[] = {0, 1, 7, 100};
  for (uint64_t count : counts) {
    auto popped = Sets().Pop("s", count, rng_);
    ASSERT_TRUE(popped.ok());
    ASSERT_EQ(popped->size(), count);
    EXPECT_TRUE(std::is_sorted(popped->begin(), popped->end()));
    for (const std::string& m : *popped) {
      EXPECT_EQ(left.erase(m), 1u) << m;  // there, and only once
      EXPECT_FALSE(*Sets().IsMember("s", m));
    }
    EXPECT_EQ(Card("s"), left.size());
    Commit();
  }
  EXPECT_EQ(All("s"), Members(left.begin(), left.end()));
  auto rest = Sets().Pop("s", 1000, rng_);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(*rest, Members(left.begin(), left.end()));
  EXPECT_FALSE(GetOrDie("s").has_value());
  auto none = Sets().Pop("s", 3, rng_);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(SetTypeTest, PopsTakeTheMembersDrawnAheadUntilTheSetChangesOtherwise) {
  AddNumbered("s", "m", 2000);
  auto held = [&] { return HeldPops("s"); };
  // A first pop draws what it pops; the pop after it draws ahead.
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  ASSERT_NE(held(), nullptr);
  EXPECT_TRUE(held()->empty());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  EXPECT_EQ(held()->size(), DrawAheadBounds::kMinAhead);
  const std::string next = held()->back();
  auto popped = Sets().Pop("s", 1, rng_);
  ASSERT_TRUE(popped.ok());
  EXPECT_EQ(*popped, Members{next});
  EXPECT_EQ(held()->size(), DrawAheadBounds::kMinAhead - 1);
  // Three held members, popped together, come back in member order.
  Members three(held()->end() - 3, held()->end());
  std::sort(three.begin(), three.end());
  EXPECT_EQ(*Sets().Pop("s", 3, rng_), three);
  EXPECT_EQ(Card("s"), 1994u);

  auto pop_twice = [&] {
    ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
    ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
    ASSERT_NE(held(), nullptr);
    ASSERT_FALSE(held()->empty());
  };
  Add("s", {"new"});
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(pop_twice());
  const std::string removed = held()->front();
  EXPECT_EQ(Remove("s", {removed}), 1u);
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(pop_twice());
  const std::string moved = held()->front();
  EXPECT_TRUE(Move("s", "t", moved));
  EXPECT_EQ(held(), nullptr);
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  EXPECT_TRUE(Sets().Pop("s", 5000, rng_).ok());  // the whole set
  EXPECT_EQ(engine_->draws().set_pops.size(), 0u);
}

TEST_P(SetPopTest, APopNeverTakesAMemberRemovedSinceTheDraw) {
  AddNumbered("s", "m", 1100);
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  const std::vector<std::string>* held = HeldPops("s");
  ASSERT_NE(held, nullptr);
  const std::string next = held->back();
  EXPECT_EQ(Remove("s", {next}), 1u);
  auto popped = Sets().Pop("s", 1, rng_);
  ASSERT_TRUE(popped.ok());
  ASSERT_EQ(popped->size(), 1u);
  EXPECT_NE(popped->front(), next);
  EXPECT_EQ(Card("s"), 1096u);
  EXPECT_EQ(All("s").size(), 1096u);
}

TEST_P(SetPopTest, ADiscardedBatchTakesTheMembersDrawnAheadWithIt) {
  AddNumbered("s", "a", 1100);
  std::vector<std::string> staged;
  for (int i = 0; i < 1000; ++i) staged.push_back("b" + std::to_string(i));
  Add("s", std::vector<std::string_view>(staged.begin(), staged.end()));
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());  // draws ahead from both, staged members too
  EXPECT_EQ(engine_->draws().set_pops.size(), 1u);
  engine_->DiscardStaged();
  EXPECT_EQ(engine_->draws().set_pops.size(), 0u);
  std::set<std::string> seen;
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());  // a streak of pops again
  for (uint64_t left = 1099; left > 0; --left) {
    auto popped = Sets().Pop("s", 1, rng_);
    ASSERT_TRUE(popped.ok());
    ASSERT_EQ(popped->size(), 1u);
    EXPECT_EQ(popped->front()[0], 'a') << popped->front() << " was never committed";
    EXPECT_TRUE(seen.insert(popped->front()).second) << popped->front() << " popped twice";
    EXPECT_EQ(Card("s"), left - 1);
    if (left % 100 == 0) Commit();
  }
  EXPECT_FALSE(GetOrDie("s").has_value());
}

TEST_F(SetTypeTest, PopsOneByOneEmptyALargeSetWithAWalkPerDrawAhead) {
  constexpr int kMembers = 5000;
  AddNumbered("s", "m", kMembers);
  int walks = 0;
  PopEachOnce("s", kMembers, [&](int) {
    const std::vector<std::string>* held = HeldPops("s");
    if (held == nullptr || held->empty()) ++walks;
  });
  // The first pop's walk, then one per kMinAhead + 1 pops, the copy that sheds the
  // tombstones (after about 4,500 pops) keeping the draw.
  EXPECT_EQ(walks,
            1 + (kMembers - 1 + DrawAheadBounds::kMinAhead) / (DrawAheadBounds::kMinAhead + 1));
}

TEST_F(SetTypeTest, SuccessivePopsAreUniform) {
  ExpectEvenly(PopOrders(2400), 24, 100);  // the second pop draws the rest ahead
}

TEST_F(SetTypeTest, SuccessivePopsOfASetReadWholeAreUniform) {
  engine_->draws().set_pops.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
  ExpectEvenly(PopOrders(2400), 24, 100);  // the second pop reads the rest whole
}

TEST_F(SetTypeTest, AStreakOfPopsReadsASmallSetWholeOnce) {
  engine_->draws().set_pops.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
  constexpr int kMembers = 5000;
  AddNumbered("s", "m", kMembers);
  PopEachOnce("s", kMembers, [&](int left) {
    if (left > kMembers - 2) return;
    // Since the second pop, every member left is held: no pop walks the set, and the copy
    // that sheds the tombstones (after about 4,500 pops) keeps them.
    const std::vector<std::string>* held = HeldPops("s");
    ASSERT_NE(held, nullptr) << left;
    ASSERT_EQ(held->size(), static_cast<size_t>(left));
  });
}

TEST_F(SetTypeTest, ADrawAheadOfASetTooLargeToReadWholeTakesWhatItsRoomHolds) {
  // Room for 3,000 members of the longest held: 5,000 members of 200 bytes do not fit whole.
  const size_t room = (sizeof(std::string) + DrawAheadBounds::kShortElement) * 3000;
  engine_->draws().set_pops.set_most_whole_bytes(room);
  AddNumbered("s", std::string(196, 'm'), 5000);
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  EXPECT_EQ(HeldPopCount("s"), 3000u);  // not AheadCount's 1,024
  EXPECT_LE(engine_->draws().set_pops.bytes(), room);
}

TEST_F(SetTypeTest, ASetTooLargeToReadWholeIsDrawnAheadForTheRestOfItsStreak) {
  // Room for 4,600 members of 5 bytes: not the 4,999 the second pop finds (the read gives up
  // past the room), but the 3,998 left after 1,000 pops more.
  engine_->draws().set_pops.set_most_whole_bytes((sizeof(std::string) + 5) * 4600);
  AddNumbered("s", "m", 5000);
  for (int pop = 0; pop < 2 + 1000; ++pop) {
    ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
    if (pop == 1) EXPECT_EQ(HeldPopCount("s"), DrawAheadBounds::kMinAhead);
  }
  ASSERT_EQ(HeldPopCount("s"), DrawAheadBounds::kMinAhead - 1000);
  // A pop past what is held takes it and draws the rest, ahead again: not the set whole.
  auto popped = Sets().Pop("s", 30, rng_);
  ASSERT_TRUE(popped.ok());
  EXPECT_EQ(popped->size(), 30u);
  EXPECT_EQ(HeldPopCount("s"), DrawAheadBounds::kMinAhead);
  // A new streak reads it whole.
  Add("s", {"new"});
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  EXPECT_EQ(HeldPopCount("s"), Card("s"));
}

TEST_F(SetTypeTest, ALongMemberDrawnAheadIsPoppedAsOftenAsAShortOne) {
  const std::string long_member(DrawAheadBounds::kShortElement + 1, 'z');
  int short_first = 0;
  int long_third = 0;
  for (int round = 0; round < 3000; ++round) {
    Add("u", {"s1", "s2", "s3", long_member});
    Members popped;
    for (int pop = 0; pop < 3; ++pop) {  // the second draws ahead the third
      auto one = Sets().Pop("u", 1, rng_);
      ASSERT_TRUE(one.ok());
      popped.push_back(one->front());
    }
    if (popped[0] != long_member && popped[1] != long_member) {
      ++short_first;
      if (popped[2] == long_member) ++long_third;
    }
    ASSERT_EQ(Sets().Pop("u", 1, rng_)->size(), 1u);
  }
  // Half of the time, as a fresh draw gives. Held only when short, it would be a quarter.
  EXPECT_NEAR(static_cast<double>(long_third) / short_first, 0.5, 0.05);

  // Long members: the draw holds the first one ahead, and no more.
  std::vector<std::string> longs;
  for (int i = 0; i < 50; ++i) longs.push_back(long_member + std::to_string(i));
  Add("l", std::vector<std::string_view>(longs.begin(), longs.end()));
  ASSERT_TRUE(Sets().Pop("l", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("l", 1, rng_).ok());
  const std::vector<std::string>* held = HeldDraw(engine_->draws().set_pops, "l");
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->size(), 1u);
}

TEST_F(SetTypeTest, APopOfACountPastWhatIsHeldStaysUniform) {
  // Two short members and three long: after two single pops (the second draws ahead, and holds
  // up to the first long member), a pop of two takes what is held, and draws the rest.
  const std::string long_member(DrawAheadBounds::kShortElement + 1, 'z');
  const std::vector<std::string> longs = {long_member + "1", long_member + "2", long_member + "3"};
  int one_short_left = 0;
  int both_long = 0;
  for (int round = 0; round < 6000; ++round) {
    Add("u", {"a", "b", longs[0], longs[1], longs[2]});
    auto first = Sets().Pop("u", 1, rng_);
    auto second = Sets().Pop("u", 1, rng_);
    auto two = Sets().Pop("u", 2, rng_);
    ASSERT_TRUE(first.ok() && second.ok() && two.ok());
    ASSERT_EQ(two->size(), 2u);
    const int shorts_popped = (first->front().size() == 1) + (second->front().size() == 1);
    if (shorts_popped == 1) {  // one short and two long left
      ++one_short_left;
      if ((*two)[0].size() > 1 && (*two)[1].size() > 1) ++both_long;
    }
    ASSERT_EQ(Sets().Pop("u", 1, rng_)->size(), 1u);
  }
  // A third of the time, as any two of three are equally likely; a pop that waited for a held
  // sample long enough to cover the count took two long members 22% of the time.
  EXPECT_NEAR(static_cast<double>(both_long) / one_short_left, 1.0 / 3, 0.04);
}

TEST_F(SetTypeTest, ADrawAheadOfLongMembersTakesLittleMemory) {
  std::vector<std::string> longs;
  for (int i = 0; i < 2000; ++i) longs.push_back(std::string(300, 'z') + std::to_string(i));
  Add("l", std::vector<std::string_view>(longs.begin(), longs.end()));
  ASSERT_TRUE(Sets().Pop("l", 1, rng_).ok());
  ASSERT_TRUE(Sets().Pop("l", 1, rng_).ok());
  ASSERT_EQ(HeldDraw(engine_->draws().set_pops, "l")->size(), 1u);
  // One member of about 300 bytes held: not the 1,024 slots the draw had.
  EXPECT_LT(engine_->draws().set_pops.bytes(), 1000u);
}

TEST_F(SetTypeTest, SuccessivePicksAreIndependentAndUniform) {
  // Each round picks three times from a fresh four-member set: the second call draws ahead.
  std::map<std::string, int> triples;
  for (int round = 0; round < 6400; ++round) {
    Add("u", {"a", "b", "c", "d"});
    std::string triple;
    for (int pick = 0; pick < 3; ++pick) {
      auto one = Sets().RandomMembers("u", -1, rng_);
      ASSERT_TRUE(one.ok());
      ASSERT_EQ(one->picks.size(), 1u);
      triple += one->elements[one->picks[0]];
    }
    ++triples[triple];
    ASSERT_EQ(Sets().Pop("u", 4, rng_)->size(), 4u);  // the key goes, and its draws
  }
  ExpectEvenly(triples, 64, 100);
}

TEST_F(SetTypeTest, ALongMemberIsPickedAsOftenAsAShortOne) {
  const std::string long_member(DrawAheadBounds::kShortElement + 1, 'z');
  Add("u", {"s1", "s2", "s3", long_member});
  int short_first = 0;
  int long_third = 0;
  for (int round = 0; round < 8000; ++round) {
    Remove("u", {"s1"});  // a change: the next picks draw afresh
    Add("u", {"s1"});
    std::vector<std::string> picks;
    for (int pick = 0; pick < 3; ++pick) {
      auto one = Sets().RandomMembers("u", -1, rng_);
      ASSERT_TRUE(one.ok());
      picks.push_back(one->elements[one->picks[0]]);
    }
    if (picks[0] != long_member && picks[1] != long_member) {
      ++short_first;
      if (picks[2] == long_member) ++long_third;
    }
  }
  // A quarter of the time: picks are independent. Held only when short, it would be less.
  EXPECT_NEAR(static_cast<double>(long_third) / short_first, 0.25, 0.03);
}

TEST_F(SetTypeTest, PicksTakenTogetherComeInTheOrderDrawn) {
  // Picks of two at a time from three short members and a long one: the calls after the first
  // take what the second drew ahead, up to and with the first long pick. Each slot holds the
  // long member a quarter of the time; taken back to front, it came first nearly half the time.
  const std::string long_member(DrawAheadBounds::kShortElement + 1, 'z');
  Add("u", {"s1", "s2", "s3", long_member});
  int long_in_slot[2] = {0, 0};
  constexpr int kCalls = 8000;
  for (int call = 0; call < kCalls; ++call) {
    auto two = Sets().RandomMembers("u", -2, rng_);
    ASSERT_TRUE(two.ok());
    ASSERT_EQ(two->picks.size(), 2u);
    for (int slot = 0; slot < 2; ++slot) {
      if (two->elements[two->picks[slot]] == long_member) ++long_in_slot[slot];
    }
  }
  EXPECT_NEAR(static_cast<double>(long_in_slot[0]) / kCalls, 0.25, 0.02);
  EXPECT_NEAR(static_cast<double>(long_in_slot[1]) / kCalls, 0.25, 0.02);
}

// A streak on a set of 1,025 members draws 1 + 1,024 picks, as many as the set has: the walk
// reads every position, and the picks repeat some. Every pick is still a whole member.
TEST_F(SetTypeTest, PicksOfAsManyAsTheSetHasEachComeWhole) {
  AddNumbered("s", "m", 1025);
  for (int call = 0; call < 200; ++call) {
    auto got = Sets().RandomMembers("s", -1, rng_);
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->picks.size(), 1u);
    const std::string& member = got->elements[got->picks[0]];
    ASSERT_EQ(member.size(), 5u) << "call " << call;  // m0000 ... m1024
  }
}

TEST_F(SetTypeTest, PicksDrawnAheadGoWithAnyChangeOfTheSet) {
  AddNumbered("s", "m", 2000);
  auto held = [&] { return HeldDraw(engine_->draws().field_picks, "s"); };
  auto pick_twice = [&] {
    ASSERT_TRUE(Sets().RandomMembers("s", -1, rng_).ok());
    ASSERT_TRUE(Sets().RandomMembers("s", -3, rng_).ok());
    ASSERT_NE(held(), nullptr);
    ASSERT_EQ(held()->size(), DrawAheadBounds::kMinAhead);
  };
  ASSERT_NO_FATAL_FAILURE(pick_twice());
  const std::string next(held()->back().field());
  auto one = Sets().RandomMembers("s", -1, rng_);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->elements[one->picks[0]], next);
  EXPECT_EQ(Card("s"), 2000u);  // picks take nothing

  Add("s", {"new"});
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(pick_twice());
  EXPECT_EQ(Remove("s", {"new"}), 1u);
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(pick_twice());
  ASSERT_TRUE(Sets().Pop("s", 1, rng_).ok());
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(pick_twice());
  EXPECT_TRUE(Move("s", "t", "m0001") || Move("s", "t", "m0002"));
  EXPECT_EQ(held(), nullptr);
}

TEST_F(SetTypeTest, ADiscardedBatchTakesThePicksDrawnAheadWithIt) {
  AddNumbered("s", "a", 1100);
  std::vector<std::string> staged;
  for (int i = 0; i < 1000; ++i) staged.push_back("b" + std::to_string(i));
  Add("s", std::vector<std::string_view>(staged.begin(), staged.end()));
  ASSERT_TRUE(Sets().RandomMembers("s", -1, rng_).ok());
  ASSERT_TRUE(Sets().RandomMembers("s", -1, rng_).ok());  // draws ahead, staged members too
  engine_->DiscardStaged();
  EXPECT_EQ(engine_->draws().field_picks.size(), 0u);
  for (int call = 0; call < 3000; ++call) {
    auto one = Sets().RandomMembers("s", -1, rng_);
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(one->picks.size(), 1u);
    ASSERT_EQ(one->elements[one->picks[0]][0], 'a') << "never committed";
  }
}

}  // namespace
}  // namespace sluice::storage::testing
