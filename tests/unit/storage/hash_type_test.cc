#include "storage/hash_type.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

class HashTypeTest : public EngineTest {
 protected:
  HashType Hash() { return HashType(*engine_, NowMs()); }

  // HSCAN's page of `key`, under the record a lookup finds now (as each HSCAN request looks
  // its key up).
  StatusOr<HashScanPage> ScanPage(std::string_view key, std::string_view after, size_t count) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value()) << key << " is missing";
    if (!record) return Status(Code::kErr, "missing");
    return Hash().ScanOf(key, *record, after, count);
  }

  uint64_t Set(std::string_view key, std::vector<FieldValue> pairs, bool only_if_new = false) {
    StatusOr<uint64_t> added = Hash().Set(key, pairs, only_if_new);
    EXPECT_TRUE(added.ok()) << added.status().message();
    return added.ok() ? *added : 0;
  }

  std::optional<std::string> Get(std::string_view key, std::string_view field) {
    StatusOr<std::optional<std::string>> value = Hash().Get(key, field);
    EXPECT_TRUE(value.ok()) << value.status().message();
    return value.ok() ? *value : std::nullopt;
  }

  uint64_t Len(std::string_view key) {
    StatusOr<uint64_t> n = Hash().Len(key);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  Pairs All(std::string_view key) {
    auto all = Hash().GetAll(key);
    EXPECT_TRUE(all.ok()) << all.status().message();
    return all.ok() ? *all : Pairs();
  }

  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }
};

TEST_F(HashTypeTest, SetGetLenAndOverwrite) {
  EXPECT_EQ(Set("h", {{"a", "1"}, {"b", "2"}}), 2u);
  EXPECT_EQ(Set("h", {{"a", "x"}, {"c", "3"}}), 1u);
  EXPECT_EQ(Get("h", "a"), "x");
  EXPECT_EQ(Get("h", "c"), "3");
  EXPECT_EQ(Get("h", "zz"), std::nullopt);
  EXPECT_EQ(Get("missing", "a"), std::nullopt);
  EXPECT_EQ(Len("h"), 3u);
  EXPECT_EQ(Len("missing"), 0u);
  Commit();
  Reopen();
  EXPECT_EQ(Len("h"), 3u);
  EXPECT_EQ(All("h"), (Pairs{{"a", "x"}, {"b", "2"}, {"c", "3"}}));
}

// DUMP's read: the fields under a record looked up before, with no lookup of the key.
TEST_F(HashTypeTest, GetAllOfReadsUnderTheRecordGiven) {
  Set("h", {{"b", "2"}, {"a", "1"}});
  Commit();
  std::optional<Record> record = GetOrDie("h");
  ASSERT_TRUE(record.has_value());
  StatusOr<Pairs> all = Pairs{};
  const LookupCounter lookups = LookupsDuring([&] { all = Hash().GetAllOf("h", *record); });
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, (Pairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// SORT's BY and GET of a hash field: the field under a record looked up before, with no
// lookup of the key.
TEST_F(HashTypeTest, GetOfReadsUnderTheRecordGiven) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  Commit();
  std::optional<Record> record = GetOrDie("h");
  ASSERT_TRUE(record.has_value());
  StatusOr<std::optional<std::string>> b = std::optional<std::string>();
  StatusOr<std::optional<std::string>> missing = std::optional<std::string>("x");
  const LookupCounter lookups = LookupsDuring([&] {
    b = Hash().GetOf("h", *record, "b");
    missing = Hash().GetOf("h", *record, "zz");
  });
  ASSERT_TRUE(b.ok() && missing.ok());
  EXPECT_EQ(*b, "2");
  EXPECT_EQ(*missing, std::nullopt);
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// HSCAN's page: under a record looked up before, with no lookup of the key; a small hash
// comes whole, a large one from `after` on.
TEST_F(HashTypeTest, ScanOfReadsUnderTheRecordGiven) {
  Set("small", {{"b", "2"}, {"a", "1"}});
  std::vector<FieldValue> many;
  std::vector<std::string> names;
  for (uint64_t i = 0; i <= HashType::kScanWhole; ++i)
    names.push_back("f" + std::to_string(1000 + i));
  for (const std::string& name : names) many.push_back({name, "v"});
  ASSERT_TRUE(Hash().Set("big", many).ok());
  Commit();
  std::optional<Record> small = GetOrDie("small");
  std::optional<Record> big = GetOrDie("big");
  ASSERT_TRUE(small.has_value() && big.has_value());
  StatusOr<HashScanPage> whole = HashScanPage{};
  StatusOr<HashScanPage> page = HashScanPage{};
  const LookupCounter lookups = LookupsDuring([&] {
    whole = Hash().ScanOf("small", *small, "a", 1);
    page = Hash().ScanOf("big", *big, "f1000", 2);
  });
  ASSERT_TRUE(whole.ok() && page.ok());
  EXPECT_EQ(whole->pairs, (Pairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(whole->resume_after.has_value());
  EXPECT_EQ(page->pairs, (Pairs{{"f1001", "v"}, {"f1002", "v"}}));
  EXPECT_EQ(page->resume_after, "f1002");
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

TEST_F(HashTypeTest, RepeatedFieldInOneCallCountsOnce) {
  EXPECT_EQ(Set("h", {{"f", "1"}, {"f", "2"}}), 1u);
  EXPECT_EQ(Get("h", "f"), "2");
  EXPECT_EQ(Len("h"), 1u);
}

TEST_F(HashTypeTest, OnlyIfNewKeepsExistingValues) {
  EXPECT_EQ(Set("h", {{"f", "1"}}, /*only_if_new=*/true), 1u);
  EXPECT_EQ(Set("h", {{"f", "2"}}, /*only_if_new=*/true), 0u);
  EXPECT_EQ(Get("h", "f"), "1");
}

TEST_F(HashTypeTest, MGetAndExists) {
  Set("h", {{"a", "1"}, {"b", ""}});
  const std::string_view fields[] = {"a", "nope", "b"};
  auto values = Hash().MGet("h", fields);
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(*values, (std::vector<std::optional<std::string>>{"1", std::nullopt, ""}));
  auto missing = Hash().MGet("missing", fields);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->size(), 3u);
  EXPECT_TRUE(*Hash().Exists("h", "b"));
  EXPECT_FALSE(*Hash().Exists("h", "c"));
}

TEST_F(HashTypeTest, DeleteLastFieldDeletesTheKey) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  const std::string_view some[] = {"a", "a", "zz"};
  EXPECT_EQ(*Hash().Delete("h", some), 1u);
  EXPECT_EQ(Len("h"), 1u);
  const std::string_view rest[] = {"b"};
  EXPECT_EQ(*Hash().Delete("h", rest), 1u);
  auto meta = engine_->GetMetadata("h", NowMs());
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(meta->has_value());
  EXPECT_EQ(*Hash().Delete("h", rest), 0u);
}

TEST_F(HashTypeTest, WrongTypeIsRefused) {
  PutAndCommit("s", StringRecord("v"));
  auto got = Hash().Get("s", "f");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kWrongType);
  const FieldValue pair[] = {{"f", "v"}};
  EXPECT_EQ(Hash().Set("s", pair).status().code(), Code::kWrongType);
  EXPECT_EQ(Hash().Len("s").status().code(), Code::kWrongType);
  EXPECT_EQ(Hash().GetAll("s").status().code(), Code::kWrongType);
  std::mt19937_64 rng(1);
  EXPECT_EQ(Hash().RandomFields("s", 1, true, rng).status().code(), Code::kWrongType);
}

TEST_F(HashTypeTest, ExpiredHashIsMissingAndRecreatedUnderANewVersion) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  auto record = GetOrDie("h");
  ASSERT_TRUE(record.has_value());
  const uint64_t old_version = record->meta.version;
  record->meta.expire_at_ms = NowMs() + 1000;
  engine_->Put("h", *record);
  Commit();
  AdvanceMs(1001);
  EXPECT_EQ(Get("h", "a"), std::nullopt);
  EXPECT_EQ(Len("h"), 0u);
  EXPECT_EQ(Set("h", {{"c", "3"}}), 1u);
  EXPECT_EQ(All("h"), (Pairs{{"c", "3"}}));  // nothing of the old version shows through
  EXPECT_NE(GetOrDie("h")->meta.version, old_version);
  EXPECT_EQ(GetOrDie("h")->meta.expire_at_ms, 0);
}

TEST_F(HashTypeTest, DelBumpsVersionAndCompactionDropsOldFields) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("field" + std::to_string(i));
  std::vector<FieldValue> pairs;
  for (const std::string& name : names) pairs.push_back({name, "value"});
  EXPECT_EQ(Set("h", pairs), 500u);
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 500u);

  engine_->Delete("h");  // DEL: one metadata write
  EXPECT_EQ(Set("h", {{"new", "1"}}), 1u);
  Commit();
  EXPECT_EQ(All("h"), (Pairs{{"new", "1"}}));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 501u);  // the old ones are still on disk
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
  EXPECT_EQ(All("h"), (Pairs{{"new", "1"}}));
}

TEST_F(HashTypeTest, OverwriteByStringOrphansTheFields) {
  Set("h", {{"a", "1"}, {"b", "2"}});
  Commit();
  PutAndCommit("h", StringRecord("now a string"));
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_EQ(GetOrDie("h")->payload, "now a string");
}

TEST_F(HashTypeTest, CopyCompositeCarriesFieldsAndTtl) {
  Set("src", {{"a", "1"}, {"b", "2"}});
  auto src = GetOrDie("src");
  ASSERT_TRUE(src.has_value());
  src->meta.expire_at_ms = NowMs() + 60000;
  engine_->Put("src", *src);
  Commit();
  auto copied = CopyComposite(*engine_, "src", *src, "dst");
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_NE(copied->meta.version, src->meta.version);
  EXPECT_EQ(copied->meta.expire_at_ms, src->meta.expire_at_ms);
  EXPECT_EQ(copied->meta.size, 2u);
  engine_->Put("dst", *copied);
  engine_->Delete("src");
  Commit();
  EXPECT_EQ(All("dst"), (Pairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(Len("src"), 0u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 2u);
}

TEST_F(HashTypeTest, CopyCompositeOfManyFieldsCrossesChunks) {
  std::vector<std::string> names;
  for (int i = 0; i < 2500; ++i) names.push_back("f" + std::to_string(i));
  std::vector<FieldValue> pairs;
  for (const std::string& name : names) pairs.push_back({name, name});
  Set("src", pairs);
  Commit();
  auto src = GetOrDie("src");
  auto copied = CopyComposite(*engine_, "src", *src, "dst");
  ASSERT_TRUE(copied.ok());
  engine_->Put("dst", *copied);
  Commit();
  EXPECT_EQ(All("dst").size(), 2500u);
  EXPECT_EQ(Get("dst", "f2499"), "f2499");
}

TEST(ClampIndexRangeTest, RedisIndexRules) {
  using Pair = std::pair<int64_t, int64_t>;
  auto range = [](int64_t start, int64_t stop, uint64_t len) {
    std::optional<IndexRange> r = ClampIndexRange(start, stop, len);
    return r ? Pair(static_cast<int64_t>(r->start), static_cast<int64_t>(r->stop)) : Pair(-1, -1);
  };
  EXPECT_EQ(range(0, -1, 5), Pair(0, 4));
  EXPECT_EQ(range(-2, -1, 5), Pair(3, 4));
  EXPECT_EQ(range(-100, 1, 5), Pair(0, 1));
  EXPECT_EQ(range(2, 100, 5), Pair(2, 4));
  EXPECT_EQ(range(3, 2, 5), Pair(-1, -1));
  EXPECT_EQ(range(5, 10, 5), Pair(-1, -1));
  EXPECT_EQ(range(0, -6, 5), Pair(-1, -1));
  EXPECT_EQ(range(0, 0, 0), Pair(-1, -1));
  EXPECT_EQ(range(INT64_MIN, INT64_MAX, 3), Pair(0, 2));
}

TEST_F(HashTypeTest, ScanPagesALargeHashInFieldOrderAndASmallOneWhole) {
  std::vector<std::string> fields;
  for (int i = 0; i < 600; ++i) fields.push_back("f" + std::to_string(1000 + i));
  for (const std::string& field : fields) Set("h", {{field, "v" + field}});
  Set("small", {{"b", "2"}, {"a", "1"}});
  Commit();

  auto whole = ScanPage("small", "zzz", 1);  // small: whole, whatever the position and count
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->pairs, (Pairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(whole->resume_after.has_value());

  std::vector<std::string> seen;
  std::string after;
  for (int page = 0;; ++page) {
    ASSERT_LT(page, 100);
    auto got = ScanPage("h", after, 64);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_LE(got->pairs.size(), 64u);
    for (const auto& [field, value] : got->pairs) {
      EXPECT_EQ(value, "v" + field);
      seen.push_back(field);
    }
    if (!got->resume_after) break;
    after = *got->resume_after;
    // The field a page ended on may go before the next page: the scan goes on after it.
    if (page == 1) {
      ASSERT_EQ(Hash().Delete("h", std::vector<std::string_view>{after}).value(), 1u);
    }
  }
  EXPECT_EQ(seen, fields);
}

// ---- Random samples (HRANDFIELD; PlanSample serves ZRANDMEMBER too) ---------------------------

bool DistinctAscending(const std::vector<uint64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater_equal<>()) == v.end();
}

TEST(PlanSampleTest, PositiveCountsPlanDistinctPositionsEachAsLikely) {
  std::mt19937_64 rng(11);
  std::vector<int> times(10);
  for (int round = 0; round < 30000; ++round) {
    SamplePlan plan = PlanSample(10, 3, rng);
    ASSERT_EQ(plan.positions.size(), 3u);
    ASSERT_TRUE(DistinctAscending(plan.positions));
    ASSERT_EQ(plan.picks, (std::vector<uint32_t>{0, 1, 2}));
    for (uint64_t p : plan.positions) {
      ASSERT_LT(p, 10u);
      ++times[p];
    }
  }
  for (int n : times) {
    EXPECT_NEAR(n, 9000, 450);  // 90,000 positions over 10: 9,000 each
  }
  SamplePlan all = PlanSample(4, 9, rng);
  EXPECT_EQ(all.positions, (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(all.picks, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(PlanSample(4, 0, rng).picks.empty());
  EXPECT_TRUE(PlanSample(0, 5, rng).picks.empty());
  EXPECT_TRUE(PlanSample(0, -5, rng).picks.empty());
}

TEST(PlanSampleTest, NegativeCountsPlanExactlyThatManyUniformPicks) {
  std::mt19937_64 rng(12);
  for (auto [size, count] :
       {std::pair<uint64_t, int64_t>{10, -100000}, {1000, -7}, {5, -5}, {1, -3}, {3, -1}}) {
    SamplePlan plan = PlanSample(size, count, rng);
    ASSERT_EQ(plan.picks.size(), static_cast<size_t>(-count));
    ASSERT_TRUE(DistinctAscending(plan.positions));
    ASSERT_LE(plan.positions.size(), size);
    std::vector<int> times(size);
    std::set<uint32_t> used;
    for (uint32_t pick : plan.picks) {
      ASSERT_LT(pick, plan.positions.size());
      ++times[plan.positions[pick]];
      used.insert(pick);
    }
    // A sparse plan reads no position it does not reply.
    if (static_cast<uint64_t>(-count) < size) {
      EXPECT_EQ(used.size(), plan.positions.size());
    }
    if (size == 10) {
      for (int n : times) EXPECT_NEAR(n, 10000, 500);
    }
  }
}

class HashRandomTest : public HashTypeTest {
 protected:
  // The draws' own tests: picks drawn ahead, not a hash read whole (tested apart).
  void SetUp() override {
    HashTypeTest::SetUp();
    engine_->draws().field_picks.set_most_whole_bytes(0);
  }

  // Fields f000... with values v000...
  std::map<std::string, std::string> AddNumbered(std::string_view key, int fields) {
    std::map<std::string, std::string> all;
    for (int i = 0; i < fields; ++i) {
      char name[16];
      std::snprintf(name, sizeof(name), "%03d", i);
      all[std::string("f") + name] = std::string("v") + name;
    }
    std::vector<FieldValue> pairs;
    for (const auto& [field, value] : all) pairs.push_back({field, value});
    Set(key, pairs);
    Commit();
    return all;
  }

  // The reply a sample makes, each field checked against the hash.
  Pairs Sample(std::string_view key, int64_t count, bool with_values,
               const std::map<std::string, std::string>& all) {
    auto got = Hash().RandomFields(key, count, with_values, rng_);
    EXPECT_TRUE(got.ok()) << got.status().message();
    if (!got.ok()) return {};
    Pairs out;
    for (uint32_t pick : got->picks) {
      EXPECT_LT(pick, got->elements.size());
      if (pick >= got->elements.size()) return {};
      const auto& [field, value] = got->elements[pick];
      auto known = all.find(field);
      EXPECT_TRUE(known != all.end()) << field;
      if (known != all.end()) {
        EXPECT_EQ(value, with_values ? known->second : "") << field;
      }
      out.emplace_back(field, value);
    }
    return out;
  }

  // 5,600 samples of two fields of an eight-field hash "h": each of the 28 subsets comes up as
  // often, and successive samples overlap as independent ones do.
  void ExpectUniformIndependentPairs() {
    const auto all = AddNumbered("h", 8);
    constexpr int kRounds = 5600;
    std::map<std::string, int> subsets;  // 28 of two fields
    std::map<std::string, int> overlaps;
    std::set<std::string> before;
    for (int round = 0; round < kRounds; ++round) {
      Pairs got = Sample("h", 2, /*with_values=*/false, all);
      ASSERT_EQ(got.size(), 2u);
      ASSERT_LT(got[0].first, got[1].first);  // distinct, in field order
      ++subsets[got[0].first + "," + got[1].first];
      const std::set<std::string> now = {got[0].first, got[1].first};
      if (round > 0) {
        std::vector<std::string> common;
        std::set_intersection(now.begin(), now.end(), before.begin(), before.end(),
                              std::back_inserter(common));
        ++overlaps[std::to_string(common.size())];
      }
      before = now;
    }
    ASSERT_EQ(subsets.size(), 28u);
    for (const auto& [subset, times] : subsets) {
      EXPECT_NEAR(times, kRounds / 28, 4 * std::sqrt(kRounds / 28)) << subset;
    }
    // Two independent 2-subsets of 8 share no field 15/28 of the time, one 12/28, both 1/28.
    const double pairs = kRounds - 1;
    EXPECT_NEAR(overlaps["0"], pairs * 15 / 28, 4 * std::sqrt(pairs * 15 / 28));
    EXPECT_NEAR(overlaps["1"], pairs * 12 / 28, 4 * std::sqrt(pairs * 12 / 28));
    EXPECT_NEAR(overlaps["2"], pairs / 28, 4 * std::sqrt(pairs / 28));
  }

  std::mt19937_64 rng_{20240605};
};

TEST_F(HashRandomTest, PositiveCountsAreDistinctAndEveryFieldComesUp) {
  const auto all = AddNumbered("h", 15);
  std::set<std::string> seen;
  for (int round = 0; round < 200; ++round) {
    Pairs got = Sample("h", 4, round % 2 == 0, all);
    ASSERT_EQ(got.size(), 4u);
    std::set<std::string> distinct;
    for (const auto& [field, value] : got) distinct.insert(field);
    EXPECT_EQ(distinct.size(), 4u);
    seen.insert(distinct.begin(), distinct.end());
  }
  EXPECT_EQ(seen.size(), 15u);
  const Pairs whole(all.begin(), all.end());
  EXPECT_EQ(Sample("h", 15, true, all), whole);  // the whole hash, in field order
  EXPECT_EQ(Sample("h", 1000, true, all), whole);
}

TEST_F(HashRandomTest, NegativeCountsRepeatAndGiveExactlyThatMany) {
  const auto all = AddNumbered("h", 5);
  std::map<std::string, int> times;
  for (int round = 0; round < 100; ++round) {
    Pairs got = Sample("h", -8, true, all);
    ASSERT_EQ(got.size(), 8u);
    for (const auto& [field, value] : got) ++times[field];
  }
  ASSERT_EQ(times.size(), 5u);
  for (const auto& [field, n] : times) EXPECT_GT(n, 100) << field;  // 800 picks: ~160 each
  const auto one = AddNumbered("one", 1);
  EXPECT_EQ(Sample("one", -3, true, one), (Pairs(3, {"f000", "v000"})));
  EXPECT_TRUE(Sample("h", 0, true, all).empty());
  EXPECT_TRUE(Sample("missing", 3, true, all).empty());
  EXPECT_TRUE(Sample("missing", -3, false, all).empty());
}

// Single picks from a large hash reach fields at both ends (the walk starts at the closer one).
TEST_F(HashRandomTest, SinglePicksReachEveryFieldOfALargeHash) {
  const auto all = AddNumbered("big", 400);
  std::set<std::string> seen;
  for (int round = 0; round < 4000; ++round) {
    Pairs got = Sample("big", round % 2 ? -1 : 1, round % 3 == 0, all);
    ASSERT_EQ(got.size(), 1u);
    seen.insert(got[0].first);
  }
  EXPECT_GT(seen.size(), 380u);  // 4000 uniform picks of 400 miss about 0.005 of them
  EXPECT_TRUE(seen.count("f000") + seen.count("f001") + seen.count("f002") > 0);
  EXPECT_TRUE(seen.count("f399") + seen.count("f398") + seen.count("f397") > 0);
}

// Positive counts up to a quarter of the hash take independent picks drawn ahead until they
// have that many distinct fields (storage/random_draws.h): every subset comes up as often, and
// one call's sample says nothing of the next's. Taking the picks without replacement instead
// would make successive samples disjoint.
TEST_F(HashRandomTest, SuccessiveDistinctSamplesAreUniformAndIndependent) {
  ASSERT_NO_FATAL_FAILURE(ExpectUniformIndependentPairs());
  const std::vector<DrawnField>* held = HeldDraw(engine_->draws().field_picks, "h");
  ASSERT_NE(held, nullptr);
  EXPECT_LE(held->size(), DrawAheadBounds::kMinAhead);  // drawn ahead, not whole
}

// The same from a hash read whole.
TEST_F(HashRandomTest, SuccessiveDistinctSamplesOfAHashReadWholeAreUniformAndIndependent) {
  engine_->draws().field_picks.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
  ASSERT_NO_FATAL_FAILURE(ExpectUniformIndependentPairs());
  const std::vector<DrawnField>* held = HeldDraw(engine_->draws().field_picks, "h");
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->size(), 8u);  // whole
}

// Picks drawn ahead go with every write of the hash's fields (Engine::PutSubEntry,
// DeleteSubEntry) and with the key's deletion, and stay while nothing is written.
TEST_F(HashRandomTest, PicksDrawnAheadGoWithAnyWriteOfTheHash) {
  auto all = AddNumbered("h", 40);
  auto held = [&] { return HeldDraw(engine_->draws().field_picks, "h"); };
  // A streak of calls, each checking its values against `all`; how often `field` came up.
  auto picks = [&](int calls, std::string_view field = "") {
    int times = 0;
    for (int call = 0; call < calls; ++call) {
      Pairs got = Sample("h", -3, /*with_values=*/call % 2 == 0, all);
      EXPECT_EQ(got.size(), 3u);
      for (const auto& [name, value] : got) times += name == field;
    }
    return times;
  };
  picks(2);
  ASSERT_NE(held(), nullptr);
  EXPECT_EQ(Set("h", {{"f005", "new"}}), 0u);
  all["f005"] = "new";
  EXPECT_EQ(held(), nullptr);
  EXPECT_GT(picks(300, "f005"), 0);  // 900 picks of 40
  ASSERT_NE(held(), nullptr);
  std::vector<std::string_view> gone = {"f010"};
  ASSERT_EQ(*Hash().Delete("h", gone), 1u);
  all.erase("f010");
  EXPECT_EQ(held(), nullptr);
  picks(300);                                                          // f010 would come up
  EXPECT_EQ(Set("h", {{"f011", "other"}}, /*only_if_new=*/true), 0u);  // writes nothing
  EXPECT_NE(held(), nullptr);
  EXPECT_EQ(Set("h", {{"added", "1"}}), 1u);
  all["added"] = "1";
  EXPECT_EQ(held(), nullptr);
  EXPECT_GT(picks(300, "added"), 0);  // it gets its chance
  engine_->Delete("h");
  EXPECT_TRUE(engine_->draws().empty());
  EXPECT_EQ(engine_->draws().field_picks.bytes(), 0u);
}

// HRANDFIELD holds a long value's field only, and reads the value when it takes the field: long
// values stop no draw.
TEST_F(HashRandomTest, LongValuesStopNoDraw) {
  std::map<std::string, std::string> all;
  std::vector<FieldValue> pairs;
  for (int i = 0; i < 40; ++i) all["f" + std::to_string(i)] = std::string(1000, 'a' + i % 26);
  for (const auto& [field, value] : all) pairs.push_back({field, value});
  Set("h", pairs);
  for (int call = 0; call < 2; ++call) ASSERT_EQ(Sample("h", -1, true, all).size(), 1u);
  const std::vector<DrawnField>* held = HeldDraw(engine_->draws().field_picks, "h");
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->size(), DrawAheadBounds::kMinAhead);
  for (const DrawnField& drawn : *held) EXPECT_FALSE(drawn.has_value()) << drawn.field();
}

// A count of minus the size reads every position, and its picks still repeat some: each is a
// whole field (ReadDraw moves an element out only for distinct picks).
TEST_F(HashRandomTest, PicksOfAsManyAsTheFieldsEachComeWhole) {
  for (int fields = 1; fields <= 6; ++fields) {
    const std::string key = "h" + std::to_string(fields);
    const auto all = AddNumbered(key, fields);
    for (int call = 0; call < 100; ++call) {
      ASSERT_EQ(Sample(key, -fields, call % 2 == 0, all).size(), static_cast<size_t>(fields));
    }
  }
}

// In a streak, a hash whose fields fit the budget is read whole once (DrawnAhead::Whole): its
// picks are uniform indexes, none taken, until a write drops it. One too large for the budget
// gets picks drawn ahead instead.
TEST_F(HashRandomTest, AStreakReadsASmallHashWholeAndPicksFromIt) {
  engine_->draws().field_picks.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
  auto all = AddNumbered("h", 40);
  auto held = [&] { return HeldDraw(engine_->draws().field_picks, "h"); };
  ASSERT_EQ(Sample("h", -1, true, all).size(), 1u);  // no streak yet
  std::map<std::string, int> times;
  constexpr int kCalls = 1000;
  for (int call = 0; call < kCalls; ++call) {
    Pairs got = Sample("h", call % 2 == 0 ? 3 : -3, call % 3 == 0, all);
    ASSERT_EQ(got.size(), 3u);
    for (const auto& [field, value] : got) ++times[field];
    ASSERT_NE(held(), nullptr);
    ASSERT_EQ(held()->size(), all.size());  // whole, and nothing taken
  }
  ASSERT_EQ(times.size(), all.size());
  const double each = 3.0 * kCalls / 40;
  for (const auto& [field, n] : times) EXPECT_NEAR(n, each, 4 * std::sqrt(each)) << field;
  EXPECT_EQ(Set("h", {{"f005", "new"}}), 0u);
  all["f005"] = "new";
  EXPECT_EQ(held(), nullptr);
  for (int call = 0; call < 300; ++call) ASSERT_EQ(Sample("h", -3, true, all).size(), 3u);
  EXPECT_EQ(held()->size(), all.size());
  engine_->draws().field_picks.set_most_whole_bytes(1000);
  EXPECT_EQ(Set("h", {{"f006", "other"}}), 0u);
  all["f006"] = "other";
  for (int call = 0; call < 2; ++call) ASSERT_EQ(Sample("h", -1, true, all).size(), 1u);
  EXPECT_EQ(held()->size(), DrawAheadBounds::kMinAhead);
}

}  // namespace
}  // namespace sluice::storage::testing
