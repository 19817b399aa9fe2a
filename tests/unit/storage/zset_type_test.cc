#include "storage/zset_type.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using Entries = std::vector<std::pair<std::string, double>>;

Entries Flatten(const std::vector<ScoredMember>& members) {
  Entries out;
  for (const ScoredMember& m : members) out.emplace_back(m.member, m.score);
  return out;
}

ScoreRange Closed(double min, double max) { return ScoreRange{min, max, false, false}; }

// Sets with every member inline (the default limits) or every set indexed from its first member.
constexpr InlineLimits kAlwaysIndexed{.max_entries = 0, .max_member = 0};

class ZSetTypeTest : public EngineTest {
 protected:
  ZSetType ZSet() { return ZSetType(*engine_, NowMs(), limits_); }

  // ZSCAN's page of `key`, under the record a lookup finds now (as each ZSCAN request looks
  // its key up).
  StatusOr<ZSetScanPage> ScanPage(std::string_view key, std::string_view after, size_t count) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value()) << key << " is missing";
    if (!record) return Status(Code::kErr, "missing");
    return ZSet().ScanOf(key, *record, after, count);
  }
  bool indexed() const { return limits_.max_entries == 0; }
  // How many sub-entries of a family `members` elements leave: none in an inline set.
  uint64_t SubEntriesFor(uint64_t members) const { return indexed() ? members : 0; }

  ZAddResult Add(std::string_view key, std::vector<ScoreMemberArg> pairs,
                 ZAddOptions options = {}) {
    StatusOr<ZAddResult> result = ZSet().Add(key, options, pairs);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *result : ZAddResult{};
  }

  Entries ByRank(std::string_view key, int64_t start, int64_t stop, bool reverse = false) {
    auto got = ZSet().RangeByRank(key, start, stop, reverse);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? Flatten(*got) : Entries();
  }

  Entries ByScore(std::string_view key, ScoreRange range, bool reverse = false, int64_t offset = 0,
                  int64_t limit = -1) {
    auto got = ZSet().RangeByScore(key, range, reverse, offset, limit);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? Flatten(*got) : Entries();
  }

  std::optional<uint64_t> Rank(std::string_view key, std::string_view member, bool reverse) {
    auto got = ZSet().Rank(key, member, reverse);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }

  InlineLimits limits_;
};

// Every behaviour below holds in both encodings.
class ZSetEncodingTest : public ZSetTypeTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    ZSetTypeTest::SetUp();
    if (GetParam()) limits_ = kAlwaysIndexed;
  }
};

INSTANTIATE_TEST_SUITE_P(Encodings, ZSetEncodingTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Indexed" : "Inline");
                         });

TEST_P(ZSetEncodingTest, AddScoreCardAndOrdering) {
  ZAddResult r = Add("z", {{2, "b"}, {1, "a"}, {2, "a2"}, {-kInf, "lo"}, {kInf, "hi"}});
  EXPECT_EQ(r.added, 5u);
  EXPECT_EQ(*ZSet().Card("z"), 5u);
  EXPECT_EQ(*ZSet().Score("z", "b"), 2.0);
  EXPECT_EQ(*ZSet().Score("z", "nope"), std::nullopt);
  EXPECT_EQ(*ZSet().Score("missing", "b"), std::nullopt);
  // Equal scores order by member bytes.
  EXPECT_EQ(ByRank("z", 0, -1),
            (Entries{{"lo", -kInf}, {"a", 1}, {"a2", 2}, {"b", 2}, {"hi", kInf}}));
  Commit();
  Reopen();
  EXPECT_EQ(ByRank("z", 0, -1, /*reverse=*/true),
            (Entries{{"hi", kInf}, {"b", 2}, {"a2", 2}, {"a", 1}, {"lo", -kInf}}));
}

// DUMP's read: every member in score order under a record looked up before, with no lookup of
// the key.
TEST_P(ZSetEncodingTest, MembersOfReadsUnderTheRecordGiven) {
  Add("z", {{2, "b"}, {1, "a"}, {3, "c"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  StatusOr<std::vector<ScoredMember>> members = std::vector<ScoredMember>{};
  const LookupCounter lookups = LookupsDuring([&] { members = ZSet().MembersOf("z", *record); });
  ASSERT_TRUE(members.ok()) << members.status().message();
  EXPECT_EQ(Flatten(*members), (Entries{{"a", 1}, {"b", 2}, {"c", 3}}));
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// SORT's read of a window (BY nosort LIMIT): ranks under a record looked up before, either
// way, with no lookup of the key; the record is left as it was.
TEST_P(ZSetEncodingTest, RangeByRankOfReadsUnderTheRecordGiven) {
  Add("z", {{2, "b"}, {1, "a"}, {3, "c"}, {4, "d"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  const Record before = *record;
  StatusOr<std::vector<ScoredMember>> forward = std::vector<ScoredMember>{};
  StatusOr<std::vector<ScoredMember>> backward = std::vector<ScoredMember>{};
  StatusOr<std::vector<ScoredMember>> past_the_end = std::vector<ScoredMember>{};
  const LookupCounter lookups = LookupsDuring([&] {
    forward = ZSet().RangeByRankOf("z", *record, 1, 2, /*reverse=*/false);
    backward = ZSet().RangeByRankOf("z", *record, 0, 1, /*reverse=*/true);
    past_the_end = ZSet().RangeByRankOf("z", *record, 9, 12, /*reverse=*/false);
  });
  ASSERT_TRUE(forward.ok() && backward.ok() && past_the_end.ok());
  EXPECT_EQ(Flatten(*forward), (Entries{{"b", 2}, {"c", 3}}));
  EXPECT_EQ(Flatten(*backward), (Entries{{"d", 4}, {"c", 3}}));
  EXPECT_TRUE(past_the_end->empty());
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
  EXPECT_EQ(record->payload, before.payload);
  EXPECT_EQ(record->meta.size, before.meta.size);
}

// GEODIST's, GEOHASH's and GEOPOS's read, and a geo search's FROMMEMBER: members' scores under
// a record looked up before, with no lookup of the key.
TEST_P(ZSetEncodingTest, ScoresOfAndScoreOfReadUnderTheRecordGiven) {
  Add("z", {{2, "b"}, {1, "a"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  const std::vector<std::string_view> asked = {"b", "nope", "a", "b"};
  StatusOr<std::vector<std::optional<double>>> scores = std::vector<std::optional<double>>{};
  StatusOr<std::optional<double>> one = std::optional<double>();
  StatusOr<std::optional<double>> none = std::optional<double>();
  const LookupCounter lookups = LookupsDuring([&] {
    scores = ZSet().ScoresOf("z", *record, asked);
    one = ZSet().ScoreOf("z", *record, "a");
    none = ZSet().ScoreOf("z", *record, "nope");
  });
  ASSERT_TRUE(scores.ok() && one.ok() && none.ok());
  EXPECT_EQ(*scores, (std::vector<std::optional<double>>{2.0, std::nullopt, 1.0, 2.0}));
  EXPECT_EQ(*one, 1.0);
  EXPECT_EQ(*none, std::nullopt);
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// A geo search's boxes: every score range walked in the order given, each ascending, under a
// record looked up before (no lookup of the key), until the visitor says stop.
TEST_P(ZSetEncodingTest, RangesByScoreOfWalksEachRangeUnderTheRecordGiven) {
  Add("z", {{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  const ScoreRange ranges[] = {{4, 6, false, true}, {1, 3, true, false}, {9, 10}};
  Entries every;
  Entries first_three;
  Status walked;
  Status stopped;
  const LookupCounter lookups = LookupsDuring([&] {
    walked = ZSet().RangesByScoreOf("z", *record, ranges, [&](ScoredMember m) {
      every.emplace_back(m.member, m.score);
      return true;
    });
    stopped = ZSet().RangesByScoreOf("z", *record, ranges, [&](ScoredMember m) {
      first_three.emplace_back(m.member, m.score);
      return first_three.size() < 3;
    });
  });
  ASSERT_TRUE(walked.ok() && stopped.ok());
  EXPECT_EQ(every, (Entries{{"d", 4}, {"e", 5}, {"b", 2}, {"c", 3}}));
  EXPECT_EQ(first_three, (Entries{{"d", 4}, {"e", 5}, {"b", 2}}));
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// ZSCAN's page: under a record looked up before, with no lookup of the key; an inline set
// comes whole, an indexed one from `after` on in member order.
TEST_P(ZSetEncodingTest, ScanOfReadsUnderTheRecordGiven) {
  Add("z", {{3, "a"}, {1, "b"}, {2, "c"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  StatusOr<ZSetScanPage> page = ZSetScanPage{};
  const LookupCounter lookups = LookupsDuring([&] { page = ZSet().ScanOf("z", *record, "a", 1); });
  ASSERT_TRUE(page.ok()) << page.status().message();
  if (GetParam()) {
    EXPECT_EQ(Flatten(page->members), (Entries{{"b", 1}}));
    EXPECT_EQ(page->resume_after, "b");
  } else {
    EXPECT_TRUE(page->whole_inline_set);
    EXPECT_EQ(Flatten(page->members), (Entries{{"b", 1}, {"c", 2}, {"a", 3}}));
  }
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

TEST_P(ZSetEncodingTest, UpdateMovesTheIndexEntry) {
  Add("z", {{1, "a"}, {2, "b"}});
  ZAddResult r = Add("z", {{3, "a"}, {2, "b"}});
  EXPECT_EQ(r.added, 0u);
  EXPECT_EQ(r.updated, 1u);
  EXPECT_EQ(r.processed, 2u);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"b", 2}, {"a", 3}}));
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), SubEntriesFor(2));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesFor(2));
}

TEST_P(ZSetEncodingTest, AddOptions) {
  Add("z", {{5, "m"}});
  ZAddOptions nx{.nx = true};
  EXPECT_EQ(Add("z", {{1, "m"}, {1, "n"}}, nx).added, 1u);
  EXPECT_EQ(*ZSet().Score("z", "m"), 5.0);
  ZAddOptions xx{.xx = true};
  ZAddResult r = Add("z", {{7, "m"}, {1, "o"}}, xx);
  EXPECT_EQ(r.added, 0u);
  EXPECT_EQ(r.updated, 1u);
  EXPECT_EQ(*ZSet().Score("z", "o"), std::nullopt);
  ZAddOptions gt{.gt = true};
  EXPECT_EQ(Add("z", {{6, "m"}}, gt).updated, 0u);
  EXPECT_EQ(Add("z", {{8, "m"}}, gt).updated, 1u);
  ZAddOptions lt{.lt = true};
  EXPECT_EQ(Add("z", {{9, "m"}}, lt).processed, 0u);
  EXPECT_EQ(Add("z", {{4, "m"}}, lt).updated, 1u);
  EXPECT_EQ(Add("z", {{100, "new"}}, lt).added, 1u);  // GT/LT never block new members
  ZAddOptions incr{.incr = true};
  r = Add("z", {{2.5, "m"}}, incr);
  EXPECT_EQ(r.score, 6.5);
  EXPECT_EQ(r.processed, 1u);
  r = Add("z", {{1, "m"}}, ZAddOptions{.nx = true, .incr = true});
  EXPECT_EQ(r.processed, 0u);
  // XX on a missing key creates nothing.
  EXPECT_EQ(Add("none", {{1, "a"}}, xx).added, 0u);
  EXPECT_FALSE(GetOrDie("none").has_value());
}

TEST_P(ZSetEncodingTest, IncrToNanStops) {
  Add("z", {{kInf, "m"}});
  ZAddResult r = Add("z", {{-kInf, "m"}}, ZAddOptions{.incr = true});
  EXPECT_TRUE(r.nan);
  EXPECT_EQ(*ZSet().Score("z", "m"), kInf);
}

TEST_P(ZSetEncodingTest, NegativeZeroIsStoredAsZero) {
  ZAddResult r = Add("z", {{-0.0, "neg"}, {0.0, "pos"}});
  EXPECT_TRUE(std::signbit(r.score) == false);  // the last pair's score
  r = Add("z2", {{-0.0, "m"}}, ZAddOptions{.incr = true});
  EXPECT_TRUE(std::signbit(r.score));  // INCR replies the computed score, as Redis
  auto neg = *ZSet().Score("z", "neg");
  ASSERT_TRUE(neg.has_value());
  EXPECT_FALSE(std::signbit(*neg));  // stored as 0, as Redis's listpack encoding does
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"neg", 0}, {"pos", 0}}));
  // Exclusive bounds at 0 leave both out, inclusive ones at -0 and 0 take both.
  EXPECT_EQ(ByScore("z", ScoreRange{0, kInf, true, false}).size(), 0u);
  EXPECT_EQ(ByScore("z", ScoreRange{-kInf, -0.0, false, true}).size(), 0u);
  EXPECT_EQ(ByScore("z", Closed(-0.0, 0.0)).size(), 2u);
}

TEST_P(ZSetEncodingTest, RangeByScoreBoundsReverseAndLimit) {
  Add("z", {{1, "a"}, {2, "b"}, {2, "c"}, {3, "d"}, {4, "e"}});
  EXPECT_EQ(ByScore("z", Closed(2, 3)), (Entries{{"b", 2}, {"c", 2}, {"d", 3}}));
  EXPECT_EQ(ByScore("z", ScoreRange{2, 3, true, false}), (Entries{{"d", 3}}));
  EXPECT_EQ(ByScore("z", ScoreRange{2, 3, false, true}), (Entries{{"b", 2}, {"c", 2}}));
  EXPECT_EQ(ByScore("z", ScoreRange{2, 2, true, false}), Entries{});
  EXPECT_EQ(ByScore("z", Closed(3, 2)), Entries{});
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf)).size(), 5u);
  EXPECT_EQ(ByScore("z", Closed(2, 3), /*reverse=*/true), (Entries{{"d", 3}, {"c", 2}, {"b", 2}}));
  EXPECT_EQ(ByScore("z", ScoreRange{1, 3, false, true}, true),
            (Entries{{"c", 2}, {"b", 2}, {"a", 1}}));
  EXPECT_EQ(ByScore("z", ScoreRange{1, 3, true, true}, true), (Entries{{"c", 2}, {"b", 2}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), false, 1, 2), (Entries{{"b", 2}, {"c", 2}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), true, 1, 2), (Entries{{"d", 3}, {"c", 2}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), false, 4, -1), (Entries{{"e", 4}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), false, 5, -1), Entries{});
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), false, -1, 3), Entries{});
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf), false, 0, 0), Entries{});
  EXPECT_EQ(*ZSet().Count("z", Closed(2, 3)), 3u);
  EXPECT_EQ(*ZSet().Count("z", ScoreRange{-kInf, 2, false, true}), 1u);
  EXPECT_EQ(*ZSet().Count("missing", Closed(-kInf, kInf)), 0u);
}

TEST_P(ZSetEncodingTest, EmptyMemberAtAnExclusiveMaxIsExcluded) {
  // The member "" makes an index key equal to the bare score bound used by reverse seeks.
  Add("z", {{2, ""}, {1, "x"}, {1, "y"}});
  EXPECT_EQ(ByScore("z", ScoreRange{-kInf, 2, false, true}, true), (Entries{{"y", 1}, {"x", 1}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, 2), true), (Entries{{"", 2}, {"y", 1}, {"x", 1}}));
  EXPECT_EQ(ByScore("z", ScoreRange{2, kInf, true, false}), Entries{});
  EXPECT_EQ(ByScore("z", Closed(2, kInf)), (Entries{{"", 2}}));
}

TEST_P(ZSetEncodingTest, RankFromBothEnds) {
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back("m" + std::to_string(100 + i));
  std::vector<ScoreMemberArg> pairs;
  for (int i = 0; i < 50; ++i) pairs.push_back({static_cast<double>(i % 7), names[i]});
  Add("z", pairs);
  auto all = ZSet().RangeByRank("z", 0, -1, false);
  ASSERT_TRUE(all.ok());
  for (size_t i = 0; i < all->size(); ++i) {
    EXPECT_EQ(Rank("z", (*all)[i].member, false), i);
    EXPECT_EQ(Rank("z", (*all)[i].member, true), all->size() - 1 - i);
  }
  EXPECT_EQ(Rank("z", "nope", false), std::nullopt);
  EXPECT_EQ(Rank("missing", "m100", false), std::nullopt);
  // Ranges from the middle walk from the closer end and still come back in order.
  EXPECT_EQ(ByRank("z", 40, 45), Flatten({all->begin() + 40, all->begin() + 46}));
  EXPECT_EQ(ByRank("z", 2, 4), Flatten({all->begin() + 2, all->begin() + 5}));
  Entries rev = ByRank("z", 0, 2, /*reverse=*/true);
  EXPECT_EQ(rev, (Entries{Flatten({all->end() - 1, all->end()})[0],
                          Flatten({all->end() - 2, all->end() - 1})[0],
                          Flatten({all->end() - 3, all->end() - 2})[0]}));
}

TEST_P(ZSetEncodingTest, RemoveAndRemoveRanges) {
  Add("z", {{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}, {6, "f"}});
  const std::string_view gone[] = {"a", "a", "zz"};
  EXPECT_EQ(*ZSet().Remove("z", gone), 1u);
  EXPECT_EQ(*ZSet().RemoveRangeByScore("z", ScoreRange{2, 4, true, false}), 2u);  // c, d
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"b", 2}, {"e", 5}, {"f", 6}}));
  EXPECT_EQ(*ZSet().RemoveRangeByRank("z", -2, -2), 1u);  // e
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"b", 2}, {"f", 6}}));
  EXPECT_EQ(*ZSet().Card("z"), 2u);
  EXPECT_EQ(*ZSet().RemoveRangeByRank("z", 5, 10), 0u);
  EXPECT_EQ(*ZSet().RemoveRangeByRank("z", 0, -1), 2u);
  EXPECT_FALSE(GetOrDie("z").has_value());
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

// An indexed sliding log: members added at rising scores and trimmed by score from the low
// end. The walks start at the first entry left, never stepping over the deletions of the
// entries trimmed before (RocksDB counts the deletions its iterators skip in its perf context):
// without the stored bounds, each walk here would step over 1,990 of them.
TEST_F(ZSetTypeTest, IndexWalksSkipTheDeletionsOfTrimmedEntries) {
  limits_ = kAlwaysIndexed;
  for (int i = 0; i < 2000; ++i) {
    Add("log", {{static_cast<double>(i), "m" + std::to_string(i)}});
    if (i >= 10) {
      ASSERT_EQ(*ZSet().RemoveRangeByScore("log", Closed(-kInf, i - 10)), 1u);
    }
    Commit();
  }
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  EXPECT_EQ(ByRank("log", 0, 0), (Entries{{"m1990", 1990}}));
  EXPECT_EQ(ByRank("log", -1, -1), (Entries{{"m1999", 1999}}));
  EXPECT_EQ(ByScore("log", Closed(-kInf, kInf)).size(), 10u);
  EXPECT_EQ(*ZSet().RemoveRangeByScore("log", Closed(-kInf, 1990)), 1u);
  const uint64_t skipped = rocksdb::get_perf_context()->internal_delete_skipped_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  EXPECT_LT(skipped, 10u);
}

// ZCOUNT -inf +inf and ZLEXCOUNT - + take in every member: the metadata's size answers them,
// with no step of a walk (RocksDB's perf context counts the iterators' steps). A range that
// leaves out one end is walked, and counted exactly.
TEST_F(ZSetTypeTest, WholeRangeCountsReadTheSizeWithoutAWalk) {
  limits_ = kAlwaysIndexed;
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("m" + std::to_string(i));
  std::vector<ScoreMemberArg> members;
  for (int i = 0; i < 500; ++i) members.push_back({i % 7 == 0 ? -kInf : i, names[i]});
  Add("z", members);
  Commit();
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  EXPECT_EQ(*ZSet().Count("z", Closed(-kInf, kInf)), 500u);
  LexRange all;
  all.min.kind = LexBound::Kind::kMinusInf;
  all.max.kind = LexBound::Kind::kPlusInf;
  EXPECT_EQ(*ZSet().LexCount("z", all), 500u);
  EXPECT_EQ(rocksdb::get_perf_context()->next_on_memtable_count, 0u);
  ScoreRange without_minus_inf = Closed(-kInf, kInf);
  without_minus_inf.min_exclusive = true;
  EXPECT_EQ(*ZSet().Count("z", without_minus_inf), 500u - 72u);          // 72 of them score -inf
  EXPECT_GE(rocksdb::get_perf_context()->next_on_memtable_count, 400u);  // walked
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
}

// An indexed set written before the bounds were stored (a 26-byte record) is walked whole, and
// its first write stores them.
TEST_F(ZSetTypeTest, IndexedSetsWithoutStoredBoundsStillWork) {
  limits_ = kAlwaysIndexed;
  Add("z", {{1, "a"}, {2, "b"}, {3, "c"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  const std::string with_bounds = record->payload;
  record->payload.clear();
  PutAndCommit("z", *record);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"a", 1}, {"b", 2}, {"c", 3}}));
  EXPECT_EQ(*ZSet().RemoveRangeByScore("z", Closed(-kInf, 1)), 1u);
  Commit();
  EXPECT_EQ(GetOrDie("z")->payload.size(), with_bounds.size());
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf)), (Entries{{"b", 2}, {"c", 3}}));
  EXPECT_EQ(ByRank("z", 0, -1, true), (Entries{{"c", 3}, {"b", 2}}));
}

// With the default limits a set lives in its record up to 128 members of up to 64 bytes, as
// Redis's listpack encoding; past either it moves to sub-entries for good.
TEST_F(ZSetTypeTest, SmallSetsLiveInTheRecordUntilALimitIsPassed) {
  Entries want;
  for (int i = 0; i < 128; ++i) {
    const std::string member = "m" + std::to_string(1000 + i);
    Add("z", {{static_cast<double>(i % 10), member}});
    want.emplace_back(member, i % 10);
  }
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_EQ(ByRank("z", 0, -1), want);

  Add("z", {{5.5, "the 129th"}});
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 129u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 129u);
  EXPECT_EQ(*ZSet().Score("z", "the 129th"), 5.5);
  EXPECT_EQ(*ZSet().RemoveRangeByRank("z", 0, 120), 121u);
  Commit();
  // Back under the limit, it stays indexed.
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 8u);
  EXPECT_EQ(*ZSet().Card("z"), 8u);

  Add("long", {{1, "a"}, {2, std::string(64, 'x')}});
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 8u);
  Add("long", {{3, std::string(65, 'y')}});
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 8u + 3u);
  EXPECT_EQ(ByRank("long", 0, -1),
            (Entries{{"a", 1}, {std::string(64, 'x'), 2}, {std::string(65, 'y'), 3}}));
}

// One ZADD that takes a new set past the limit converts it on the way.
TEST_F(ZSetTypeTest, OneAddCanCrossTheLimit) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("n" + std::to_string(i));
  std::vector<ScoreMemberArg> pairs;
  for (int i = 0; i < 300; ++i) pairs.push_back({static_cast<double>(300 - i), names[i]});
  EXPECT_EQ(Add("z", pairs).added, 300u);
  EXPECT_EQ(*ZSet().Card("z"), 300u);
  EXPECT_EQ(ByRank("z", 0, 0), (Entries{{"n299", 1}}));
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 300u);
  EXPECT_EQ(ByRank("z", -1, -1), (Entries{{"n0", 300}}));
}

TEST_P(ZSetEncodingTest, WrongType) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(ZSet().Card("s").status().code(), Code::kWrongType);
  EXPECT_EQ(ZSet().Score("s", "m").status().code(), Code::kWrongType);
  EXPECT_EQ(ZSet().RangeByScore("s", Closed(0, 1), false).status().code(), Code::kWrongType);
  const ScoreMemberArg pair[] = {{1, "m"}};
  EXPECT_EQ(ZSet().Add("s", {}, pair).status().code(), Code::kWrongType);
  EXPECT_EQ(ZSet().Pop("s", 1, false).status().code(), Code::kWrongType);
  std::mt19937_64 rng(1);
  EXPECT_EQ(ZSet().RandomMembers("s", 1, rng).status().code(), Code::kWrongType);
}

TEST_P(ZSetEncodingTest, DelBumpsVersionAndCompactionDropsBothFamilies) {
  std::vector<std::string> names;
  for (int i = 0; i < 1000; ++i) names.push_back("member:" + std::to_string(i));
  std::vector<ScoreMemberArg> pairs;
  for (int i = 0; i < 1000; ++i) pairs.push_back({i * 0.5, names[i]});
  Add("z", pairs);
  Commit();
  const uint64_t old_version = GetOrDie("z")->meta.version;
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1000u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 1000u);

  engine_->Delete("z");
  Commit();
  Add("z", {{1, "fresh"}});
  Commit();
  EXPECT_NE(GetOrDie("z")->meta.version, old_version);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"fresh", 1}}));
  EXPECT_EQ(*ZSet().Count("z", Closed(-kInf, kInf)), 1u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesFor(1));
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), SubEntriesFor(1));
}

TEST_P(ZSetEncodingTest, ExpiryOrphansTheElements) {
  Add("z", {{1, "a"}, {2, "b"}});
  auto record = GetOrDie("z");
  record->meta.expire_at_ms = NowMs() + 10;
  engine_->Put("z", *record);
  Commit();
  AdvanceMs(11);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
}

TEST_P(ZSetEncodingTest, RenameCopyCarriesBothFamilies) {
  Add("src", {{1, "a"}, {-5, "z"}});
  Commit();
  auto src = GetOrDie("src");
  auto copied = CopyComposite(*engine_, "src", *src, "dst");
  ASSERT_TRUE(copied.ok());
  engine_->Put("dst", *copied);
  engine_->Delete("src");
  Commit();
  auto all = ZSet().RangeByRank("dst", 0, -1, false);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].member, "z");
  EXPECT_EQ((*all)[0].score, -5.0);
  EXPECT_EQ(*ZSet().Score("dst", "a"), 1.0);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), SubEntriesFor(2));
}

TEST_P(ZSetEncodingTest, ReplaceOverwritesAnyTypeAndDropsTheExpiry) {
  PutAndCommit("s", StringRecord("v", NowMs() + 100000));
  const std::vector<ScoredMember> members = {{"a", -1}, {"b", 2}, {"c", 2}};
  ASSERT_TRUE(ZSet().Replace("s", members).ok());
  Commit();
  EXPECT_EQ(ByRank("s", 0, -1), (Entries{{"a", -1}, {"b", 2}, {"c", 2}}));
  EXPECT_EQ(GetOrDie("s")->meta.expire_at_ms, 0);
  EXPECT_EQ(*ZSet().Card("s"), 3u);

  // A zset replaced by a smaller one keeps none of its old members, and its old version's
  // elements go at compaction.
  Add("z", {{1, "x"}, {2, "y"}, {3, "z"}});
  Commit();
  const uint64_t old_version = GetOrDie("z")->meta.version;
  const std::vector<ScoredMember> one = {{"y", 5}};
  ASSERT_TRUE(ZSet().Replace("z", one).ok());
  Commit();
  EXPECT_NE(GetOrDie("z")->meta.version, old_version);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"y", 5}}));
  EXPECT_EQ(*ZSet().Score("z", "x"), std::nullopt);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), SubEntriesFor(4));  // s's 3 and z's 1

  // Empty: the key goes; a missing key stays missing and nothing is staged.
  ASSERT_TRUE(ZSet().Replace("z", {}).ok());
  Commit();
  EXPECT_FALSE(engine_->Get("z", NowMs())->has_value());
  const uint64_t writes = engine_->StagedWriteCount();
  ASSERT_TRUE(ZSet().Replace("missing", {}).ok());
  EXPECT_EQ(engine_->StagedWriteCount(), writes);
}

// Random operations against a std::set model: ranges, counts and ranks always agree.
// A removed run's bounds come from its neighbours (ZSetKey::NoteRunToErase): runs at either
// end, in the middle, among members tied with a bound's score, and the whole set, each read
// back whole and by score, in one batch and across commits.
TEST_P(ZSetEncodingTest, RemovedRunsLeaveTheBoundsOfWhatIsLeft) {
  for (const bool commit_each : {false, true}) {
    SCOPED_TRACE(commit_each ? "a commit after each" : "one batch");
    const std::string key = commit_each ? "runs-c" : "runs";
    std::map<std::string, double> model;
    for (int i = 0; i < 300; ++i) {
      // Ties: 20 members at the lowest score, 20 at the highest.
      const double score = i < 20 ? 0 : i >= 280 ? 1000 : i;
      const std::string member = "m" + std::to_string(1000 + i);
      Add(key, {{score, member}});
      model[member] = score;
    }
    auto check = [&] {
      std::set<std::pair<double, std::string>> sorted;
      for (const auto& [m, sc] : model) sorted.emplace(sc, m);
      Entries want;
      for (const auto& [sc, m] : sorted) want.emplace_back(m, sc);
      ASSERT_EQ(ByRank(key, 0, -1), want);
      ASSERT_EQ(ByScore(key, Closed(-kInf, kInf)), want);
      Entries reversed(want.rbegin(), want.rend());
      ASSERT_EQ(ByScore(key, Closed(-kInf, kInf), true), reversed);
      if (commit_each) Commit();
    };
    auto erase_ranks = [&](int64_t start, int64_t stop) {
      std::set<std::pair<double, std::string>> sorted;
      for (const auto& [m, sc] : model) sorted.emplace(sc, m);
      std::vector<std::pair<double, std::string>> all(sorted.begin(), sorted.end());
      std::optional<IndexRange> range = ClampIndexRange(start, stop, all.size());
      ASSERT_TRUE(range.has_value());
      for (uint64_t i = range->start; i <= range->stop; ++i) model.erase(all[i].second);
      ASSERT_EQ(*ZSet().RemoveRangeByRank(key, start, stop), range->stop - range->start + 1);
    };
    // From among the ties at the lowest score into higher ones: the floor stays.
    erase_ranks(15, 25);
    check();
    erase_ranks(-30, -15);  // the same at the highest: the ceiling stays
    check();
    erase_ranks(0, 14);  // the rest of the lowest ties: the floor moves up to score 20
    check();
    ASSERT_EQ(*ZSet().RemoveRangeByScore(key, Closed(100, 199)), 100u);
    std::erase_if(model, [](const auto& e) { return e.second >= 100 && e.second <= 199; });
    check();
    ASSERT_EQ(ZSet().Pop(key, 3, /*highest=*/true)->size(), 3u);  // ties at the top
    ASSERT_EQ(ZSet().Pop(key, 10, /*highest=*/false)->size(), 10u);
    auto index_order = [](const auto& a, const auto& b) {
      return std::pair(a.second, a.first) < std::pair(b.second, b.first);
    };
    for (int n = 0; n < 3; ++n)
      model.erase(std::max_element(model.begin(), model.end(), index_order));
    for (int n = 0; n < 10; ++n)
      model.erase(std::min_element(model.begin(), model.end(), index_order));
    check();
    // One member at a time from either end, as a pipeline of ZPOPMIN and ZPOPMAX: each pop's
    // neighbours are found past the earlier pops' deletions in the same batch.
    for (int n = 0; n < 25; ++n) {
      ASSERT_EQ(ZSet().Pop(key, 1, /*highest=*/false)->size(), 1u);
      model.erase(std::min_element(model.begin(), model.end(), index_order));
      ASSERT_EQ(ZSet().Pop(key, 1, /*highest=*/true)->size(), 1u);
      model.erase(std::max_element(model.begin(), model.end(), index_order));
    }
    check();
    ASSERT_EQ(*ZSet().RemoveRangeByRank(key, 0, -1), model.size());
    model.clear();
    EXPECT_EQ(*ZSet().Card(key), 0u);
  }
}

TEST_P(ZSetEncodingTest, MatchesAModelUnderRandomOperations) {
  // 40 members keep an inline set inline; 200 take it past the limit on the way.
  for (const uint32_t space : {40u, 200u}) {
    SCOPED_TRACE("members: " + std::to_string(space));
    const std::string key = "z" + std::to_string(space);
    std::mt19937 rng(12345);
    std::map<std::string, double> model;
    size_t largest = 0;
    auto ordered = [&] {
      std::set<std::pair<double, std::string>> s;
      for (const auto& [m, sc] : model) s.emplace(sc, m);
      return Entries([&] {
        Entries e;
        for (const auto& [sc, m] : s) e.emplace_back(m, sc);
        return e;
      }());
    };
    const double scores[] = {-kInf, -2, -1, 0, 0.5, 1, 1, 2, 3, kInf};
    for (int step = 0; step < 3000; ++step) {
      std::string member = "m" + std::to_string(rng() % space);
      double score = scores[rng() % std::size(scores)];
      // The larger space first grows its set past the inline limit, adding only.
      switch (space > 128 && step < 600 ? 0 : rng() % 7) {
        case 0:
        case 1:
          Add(key, {{score, member}});
          model[member] = score;
          break;
        case 2: {
          const std::string_view m[] = {member};
          EXPECT_EQ(*ZSet().Remove(key, m), model.erase(member));
          break;
        }
        case 3: {
          double lo = scores[rng() % std::size(scores)];
          double hi = scores[rng() % std::size(scores)];
          ScoreRange range{lo, hi, rng() % 2 == 0, rng() % 2 == 0};
          Entries want;
          for (const auto& e : ordered()) {
            if (range.AboveMin(e.second) && range.BelowMax(e.second)) want.push_back(e);
          }
          ASSERT_EQ(ByScore(key, range), want) << "step " << step;
          Entries want_rev(want.rbegin(), want.rend());
          ASSERT_EQ(ByScore(key, range, true), want_rev) << "step " << step;
          ASSERT_EQ(*ZSet().Count(key, range), want.size());
          break;
        }
        case 4: {  // trims from the low end most of the time, as a sliding log does
          double hi = scores[rng() % std::size(scores)];
          double lo = rng() % 3 == 0 ? scores[rng() % std::size(scores)] : -kInf;
          ScoreRange range = Closed(lo, hi);
          uint64_t want = std::erase_if(model, [&](const auto& e) {
            return range.AboveMin(e.second) && range.BelowMax(e.second);
          });
          ASSERT_EQ(*ZSet().RemoveRangeByScore(key, range), want) << "step " << step;
          break;
        }
        case 5: {  // ZREMRANGEBYRANK of one end or the other
          Entries all = ordered();
          const int64_t n = static_cast<int64_t>(rng() % 3);
          const bool low_end = rng() % 2 == 0;
          const int64_t start = low_end ? 0 : -n - 1;
          const int64_t stop = low_end ? n : -1;
          std::optional<IndexRange> range = ClampIndexRange(start, stop, all.size());
          uint64_t removed = 0;
          for (uint64_t i = range ? range->start : 1; range && i <= range->stop; ++i, ++removed) {
            model.erase(all[i].first);
          }
          ASSERT_EQ(*ZSet().RemoveRangeByRank(key, start, stop), removed) << "step " << step;
          break;
        }
        case 6: {
          Entries all = ordered();
          ASSERT_EQ(ByRank(key, 0, -1), all) << "step " << step;
          Entries reversed(all.rbegin(), all.rend());
          ASSERT_EQ(ByRank(key, 0, -1, true), reversed) << "step " << step;
          break;
        }
      }
      if (rng() % 5 == 0) Commit();
      largest = std::max(largest, model.size());
    }
    if (space > 128) {
      EXPECT_GT(largest, 128u) << "never past the inline limit";
    }
    Entries all = ordered();
    EXPECT_EQ(ByRank(key, 0, -1), all);
    EXPECT_EQ(*ZSet().Card(key), all.size());
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(Rank(key, all[i].first, false), i);
  }
}

TEST_P(ZSetEncodingTest, ScanPagesAnIndexedSetInMemberOrderAndAnInlineOneWhole) {
  Entries by_member;
  for (int i = 0; i < 40; ++i) {
    const std::string member = "m" + std::to_string(100 + i);
    const double score = (i % 7) - 3.5;
    Add("z", {{score, member}});
    by_member.emplace_back(member, score);
  }
  Entries by_score = by_member;
  std::sort(by_score.begin(), by_score.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  Commit();

  Entries seen;
  std::string after;
  int pages = 0;
  for (;; ++pages) {
    ASSERT_LT(pages, 100);
    auto got = ScanPage("z", after, 6);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got->whole_inline_set, !indexed());
    for (const ScoredMember& m : got->members) seen.emplace_back(m.member, m.score);
    if (!got->resume_after) break;
    after = *got->resume_after;
    EXPECT_EQ(after, seen.back().first);
    // A member the scan has not reached moves below everything seen: it is still ahead.
    if (pages == 0) Add("z", {{-100, "m139"}});
  }
  if (indexed()) {
    by_member.back().second = -100;
    EXPECT_EQ(seen, by_member);
    EXPECT_EQ(pages, 6);  // 40 members, 6 a page
  } else {
    EXPECT_EQ(seen, by_score);  // one page, before the move
    EXPECT_EQ(pages, 0);
  }
}

// ---- ZPOPMIN / ZPOPMAX ---------------------------------------------------------------------

TEST_P(ZSetEncodingTest, PopTakesFromEitherEndAndTheLastMemberTakesTheKey) {
  Add("z", {{3, "c"}, {1, "a"}, {2, "b2"}, {2, "b1"}, {5, "e"}, {4, "d"}});
  auto pop = [&](uint64_t count, bool highest) {
    auto got = ZSet().Pop("z", count, highest);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? Flatten(*got) : Entries();
  };
  EXPECT_EQ(pop(2, false), (Entries{{"a", 1}, {"b1", 2}}));
  EXPECT_EQ(pop(2, true), (Entries{{"e", 5}, {"d", 4}}));  // in the order popped
  EXPECT_EQ(pop(0, true), Entries());
  EXPECT_EQ(*ZSet().Card("z"), 2u);
  Commit();
  Reopen();
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"b2", 2}, {"c", 3}}));
  EXPECT_EQ(pop(100, true), (Entries{{"c", 3}, {"b2", 2}}));
  EXPECT_FALSE(GetOrDie("z").has_value());
  auto missing = ZSet().Pop("missing", 3, false);
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

// A set popped as a queue from both ends, through the inline limit and back under it, stays in
// step with its model.
TEST_P(ZSetEncodingTest, PopsFromBothEndsOfALargeSetMatchTheModel) {
  std::set<std::pair<double, std::string>> model;
  std::vector<ScoreMemberArg> pairs;
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("m" + std::to_string(1000 + i));
  for (int i = 0; i < 300; ++i) {
    const double score = (i * 37) % 101;
    pairs.push_back({score, names[i]});
    model.emplace(score, names[i]);
  }
  Add("q", pairs);
  Commit();
  std::mt19937_64 rng(7);
  for (int step = 0; !model.empty(); ++step) {
    const uint64_t count = 1 + rng() % 20;
    const bool highest = rng() % 2 == 0;
    auto got = ZSet().Pop("q", count, highest);
    ASSERT_TRUE(got.ok()) << got.status().message();
    Entries want;
    for (uint64_t i = 0; i < count && !model.empty(); ++i) {
      auto at = highest ? std::prev(model.end()) : model.begin();
      want.emplace_back(at->second, at->first);
      model.erase(at);
    }
    ASSERT_EQ(Flatten(*got), want) << "step " << step;
    ASSERT_EQ(*ZSet().Card("q"), model.size());
    if (step % 3 == 0) Commit();
  }
  EXPECT_FALSE(GetOrDie("q").has_value());
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
}

// ---- ZRANDMEMBER -------------------------------------------------------------------------------

class ZSetRandomTest : public ZSetEncodingTest {
 protected:
  // The draws' own tests: picks drawn ahead, not a set read whole (tested apart).
  void SetUp() override {
    ZSetEncodingTest::SetUp();
    engine_->draws().zset_picks.set_most_whole_bytes(0);
  }

  std::map<std::string, double> AddNumbered(std::string_view key, int members) {
    std::map<std::string, double> scores;
    std::vector<std::string> names;
    for (int i = 0; i < members; ++i) names.push_back("m" + std::to_string(1000 + i));
    std::vector<ScoreMemberArg> pairs;
    for (int i = 0; i < members; ++i) {
      pairs.push_back({static_cast<double>(i % 7), names[i]});
      scores[names[i]] = i % 7;
    }
    Add(key, pairs);
    Commit();
    return scores;
  }

  // The reply a sample makes, checked against the set's scores.
  Entries Sample(std::string_view key, int64_t count, const std::map<std::string, double>& scores) {
    auto got = ZSet().RandomMembers(key, count, rng_);
    EXPECT_TRUE(got.ok()) << got.status().message();
    if (!got.ok()) return {};
    Entries out;
    for (uint32_t pick : got->picks) {
      EXPECT_LT(pick, got->elements.size());
      if (pick >= got->elements.size()) return {};
      const ScoredMember& m = got->elements[pick];
      auto known = scores.find(m.member);
      EXPECT_TRUE(known != scores.end()) << m.member;
      if (known != scores.end()) {
        EXPECT_EQ(known->second, m.score) << m.member;
      }
      out.emplace_back(m.member, m.score);
    }
    return out;
  }

  std::mt19937_64 rng_{20240604};
};

INSTANTIATE_TEST_SUITE_P(Encodings, ZSetRandomTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Indexed" : "Inline");
                         });

bool InIndexOrder(const Entries& entries) {
  return std::is_sorted(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
}

// Picks drawn ahead (storage/draws_ahead.h) are held only for a set whose elements are
// sub-entries, and go with any write of them: a score changed, a member removed.
TEST_P(ZSetRandomTest, PicksDrawnAheadGoWithAnyWriteOfTheSet) {
  auto scores = AddNumbered("z", 40);
  auto held = [&] { return HeldDraw(engine_->draws().zset_picks, "z"); };
  auto picks = [&](int calls) {
    for (int call = 0; call < calls; ++call) ASSERT_EQ(Sample("z", -3, scores).size(), 3u);
  };
  ASSERT_NO_FATAL_FAILURE(picks(2));
  if (!GetParam()) {
    EXPECT_EQ(held(), nullptr);  // inline: its writes rewrite only the record
    EXPECT_TRUE(engine_->draws().empty());
    return;
  }
  ASSERT_NE(held(), nullptr);
  Add("z", {{100, "m1005"}});
  scores["m1005"] = 100;
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(picks(300));  // 900 picks of 40: m1005's new score comes up
  ASSERT_NE(held(), nullptr);
  std::vector<std::string_view> gone = {"m1010"};
  ASSERT_EQ(*ZSet().Remove("z", gone), 1u);
  scores.erase("m1010");
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(picks(300));  // m1010 would come up
  ASSERT_NE(held(), nullptr);
  ASSERT_EQ(ZSet().Pop("z", 1, /*highest=*/true)->size(), 1u);  // m1005, at 100
  scores.erase("m1005");
  EXPECT_EQ(held(), nullptr);
  ASSERT_NO_FATAL_FAILURE(picks(300));
}

// A count of minus the size reads every position, and its picks repeat some: each is whole.
TEST_P(ZSetRandomTest, PicksOfAsManyAsTheMembersEachComeWhole) {
  const auto scores = AddNumbered("z", 6);
  for (int call = 0; call < 200; ++call) ASSERT_EQ(Sample("z", -6, scores).size(), 6u);
}

// In a streak, an indexed set whose members fit the budget is read whole once, until a write.
TEST_P(ZSetRandomTest, AStreakReadsASmallSetWhole) {
  engine_->draws().zset_picks.set_most_whole_bytes(DrawAheadBounds::kMostWholeBytes);
  auto scores = AddNumbered("z", 40);
  auto held = [&] { return HeldDraw(engine_->draws().zset_picks, "z"); };
  for (int call = 0; call < 200; ++call) ASSERT_EQ(Sample("z", -3, scores).size(), 3u);
  if (!GetParam()) {
    EXPECT_EQ(held(), nullptr);  // inline: nothing held
    return;
  }
  ASSERT_NE(held(), nullptr);
  EXPECT_EQ(held()->size(), scores.size());
  Add("z", {{100, "m1005"}});
  scores["m1005"] = 100;
  EXPECT_EQ(held(), nullptr);
  int high = 0;
  for (int call = 0; call < 300; ++call) {
    for (const auto& [member, score] : Sample("z", 2, scores)) high += score == 100;
  }
  EXPECT_GT(high, 0);
}

TEST_P(ZSetRandomTest, APositiveCountSamplesDistinctMembersInIndexOrder) {
  const auto scores = AddNumbered("z", 20);
  std::set<std::string> seen;
  for (int round = 0; round < 200; ++round) {
    Entries got = Sample("z", 5, scores);
    ASSERT_EQ(got.size(), 5u);
    std::set<std::string> distinct;
    for (const auto& [member, score] : got) distinct.insert(member);
    EXPECT_EQ(distinct.size(), 5u);
    EXPECT_TRUE(InIndexOrder(got));
    seen.insert(distinct.begin(), distinct.end());
  }
  EXPECT_EQ(seen.size(), 20u);  // every member comes up: not a fixed answer
}

TEST_P(ZSetRandomTest, ACountOfTheSizeOrMoreIsTheWholeSetFromTheHighestScore) {
  const auto scores = AddNumbered("z", 12);
  Entries all = ByRank("z", 0, -1, /*reverse=*/true);
  EXPECT_EQ(Sample("z", 12, scores), all);
  EXPECT_EQ(Sample("z", 13, scores), all);
  EXPECT_EQ(Sample("z", std::numeric_limits<int64_t>::max(), scores), all);
}

TEST_P(ZSetRandomTest, ANegativeCountRepeatsAndGivesExactlyThatMany) {
  const auto scores = AddNumbered("z", 6);
  std::map<std::string, int> times;
  for (int round = 0; round < 100; ++round) {
    Entries got = Sample("z", -10, scores);
    ASSERT_EQ(got.size(), 10u);
    for (const auto& [member, score] : got) ++times[member];
  }
  ASSERT_EQ(times.size(), 6u);
  for (const auto& [member, n] : times) {
    EXPECT_GT(n, 100) << member;  // 1000 picks of 6: about 167 each
  }
  // Fewer picks than members: they may still repeat, and each comes from the set.
  EXPECT_EQ(Sample("z", -3, scores).size(), 3u);
  const auto one = AddNumbered("one", 1);
  EXPECT_EQ(Sample("one", -4, one), (Entries(4, {"m1000", 0})));
}

TEST_P(ZSetRandomTest, ZeroCountsAndMissingKeysSampleNothing) {
  const auto scores = AddNumbered("z", 3);
  EXPECT_TRUE(Sample("z", 0, scores).empty());
  EXPECT_TRUE(Sample("missing", 5, scores).empty());
  EXPECT_TRUE(Sample("missing", -5, scores).empty());
}

// A set too large to read whole for one pick: the sampled ranks are reached from either end,
// and every rank can come up.
TEST_P(ZSetRandomTest, SamplesOfALargeSetReachEveryRank) {
  const auto scores = AddNumbered("big", 300);
  std::set<std::string> seen;
  for (int round = 0; round < 3000; ++round) {
    Entries got = Sample("big", round % 2 ? -1 : 1, scores);
    ASSERT_EQ(got.size(), 1u);
    seen.insert(got[0].first);
  }
  EXPECT_GT(seen.size(), 280u);  // 3000 uniform picks of 300 miss about 0.01 of them
  Entries ranks = ByRank("big", 0, -1);
  Entries some = Sample("big", 40, scores);
  EXPECT_TRUE(InIndexOrder(some));
  EXPECT_EQ(some.size(), 40u);
  EXPECT_EQ(Sample("big", 300, scores), ByRank("big", 0, -1, /*reverse=*/true));
  EXPECT_EQ(Sample("big", -1000, scores).size(), 1000u);
}

}  // namespace
}  // namespace sluice::storage::testing
