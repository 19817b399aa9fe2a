#include "storage/zset_type.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <cmath>
#include <limits>
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

constexpr double kInf = std::numeric_limits<double>::infinity();

using Entries = std::vector<std::pair<std::string, double>>;

Entries Flatten(const std::vector<ScoredMember>& members) {
  Entries out;
  for (const ScoredMember& m : members) out.emplace_back(m.member, m.score);
  return out;
}

ScoreRange Closed(double min, double max) { return ScoreRange{min, max, false, false}; }

class ZSetTypeTest : public EngineTest {
 protected:
  ZSetType ZSet() { return ZSetType(*engine_, NowMs()); }

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
};

TEST_F(ZSetTypeTest, AddScoreCardAndOrdering) {
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

TEST_F(ZSetTypeTest, UpdateMovesTheIndexEntry) {
  Add("z", {{1, "a"}, {2, "b"}});
  ZAddResult r = Add("z", {{3, "a"}, {2, "b"}});
  EXPECT_EQ(r.added, 0u);
  EXPECT_EQ(r.updated, 1u);
  EXPECT_EQ(r.processed, 2u);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"b", 2}, {"a", 3}}));
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 2u);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 2u);
}

TEST_F(ZSetTypeTest, AddOptions) {
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

TEST_F(ZSetTypeTest, IncrToNanStops) {
  Add("z", {{kInf, "m"}});
  ZAddResult r = Add("z", {{-kInf, "m"}}, ZAddOptions{.incr = true});
  EXPECT_TRUE(r.nan);
  EXPECT_EQ(*ZSet().Score("z", "m"), kInf);
}

TEST_F(ZSetTypeTest, NegativeZeroIsStoredAsZero) {
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

TEST_F(ZSetTypeTest, RangeByScoreBoundsReverseAndLimit) {
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

TEST_F(ZSetTypeTest, EmptyMemberAtAnExclusiveMaxIsExcluded) {
  // The member "" makes an index key equal to the bare score bound used by reverse seeks.
  Add("z", {{2, ""}, {1, "x"}, {1, "y"}});
  EXPECT_EQ(ByScore("z", ScoreRange{-kInf, 2, false, true}, true), (Entries{{"y", 1}, {"x", 1}}));
  EXPECT_EQ(ByScore("z", Closed(-kInf, 2), true), (Entries{{"", 2}, {"y", 1}, {"x", 1}}));
  EXPECT_EQ(ByScore("z", ScoreRange{2, kInf, true, false}), Entries{});
  EXPECT_EQ(ByScore("z", Closed(2, kInf)), (Entries{{"", 2}}));
}

TEST_F(ZSetTypeTest, RankFromBothEnds) {
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

TEST_F(ZSetTypeTest, RemoveAndRemoveRanges) {
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

// A sliding log: members added at rising scores and trimmed by score from the low end. The
// walks start at the first entry left, never stepping over the deletions of the entries trimmed
// before (RocksDB counts the deletions its iterators skip in its perf context): without the
// stored bounds, each walk here would step over 1,990 of them.
TEST_F(ZSetTypeTest, WalksSkipTheDeletionsOfTrimmedEntries) {
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

// A set written before the bounds were stored (a 26-byte record) is walked whole, and its
// first write stores them.
TEST_F(ZSetTypeTest, SetsWithoutStoredBoundsStillWork) {
  Add("z", {{1, "a"}, {2, "b"}, {3, "c"}});
  Commit();
  std::optional<Record> record = GetOrDie("z");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->payload.size(), 16u);
  record->payload.clear();
  PutAndCommit("z", *record);
  EXPECT_EQ(ByRank("z", 0, -1), (Entries{{"a", 1}, {"b", 2}, {"c", 3}}));
  EXPECT_EQ(*ZSet().RemoveRangeByScore("z", Closed(-kInf, 1)), 1u);
  Commit();
  EXPECT_EQ(GetOrDie("z")->payload.size(), 16u);
  EXPECT_EQ(ByScore("z", Closed(-kInf, kInf)), (Entries{{"b", 2}, {"c", 3}}));
  EXPECT_EQ(ByRank("z", 0, -1, true), (Entries{{"c", 3}, {"b", 2}}));
}

TEST_F(ZSetTypeTest, WrongType) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(ZSet().Card("s").status().code(), Code::kWrongType);
  EXPECT_EQ(ZSet().Score("s", "m").status().code(), Code::kWrongType);
  EXPECT_EQ(ZSet().RangeByScore("s", Closed(0, 1), false).status().code(), Code::kWrongType);
  const ScoreMemberArg pair[] = {{1, "m"}};
  EXPECT_EQ(ZSet().Add("s", {}, pair).status().code(), Code::kWrongType);
}

TEST_F(ZSetTypeTest, DelBumpsVersionAndCompactionDropsBothFamilies) {
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
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 1u);
}

TEST_F(ZSetTypeTest, ExpiryOrphansTheElements) {
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

TEST_F(ZSetTypeTest, RenameCopyCarriesBothFamilies) {
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
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 2u);
}

// Random operations against a std::set model: ranges, counts and ranks always agree.
TEST_F(ZSetTypeTest, MatchesAModelUnderRandomOperations) {
  std::mt19937 rng(12345);
  std::map<std::string, double> model;
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
    std::string member = "m" + std::to_string(rng() % 40);
    double score = scores[rng() % std::size(scores)];
    switch (rng() % 7) {
      case 0:
      case 1:
        Add("z", {{score, member}});
        model[member] = score;
        break;
      case 2: {
        const std::string_view m[] = {member};
        EXPECT_EQ(*ZSet().Remove("z", m), model.erase(member));
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
        ASSERT_EQ(ByScore("z", range), want) << "step " << step;
        Entries want_rev(want.rbegin(), want.rend());
        ASSERT_EQ(ByScore("z", range, true), want_rev) << "step " << step;
        ASSERT_EQ(*ZSet().Count("z", range), want.size());
        break;
      }
      case 4: {  // trims from the low end most of the time, as a sliding log does
        double hi = scores[rng() % std::size(scores)];
        double lo = rng() % 3 == 0 ? scores[rng() % std::size(scores)] : -kInf;
        ScoreRange range = Closed(lo, hi);
        uint64_t want = std::erase_if(
            model, [&](const auto& e) { return range.AboveMin(e.second) && range.BelowMax(e.second); });
        ASSERT_EQ(*ZSet().RemoveRangeByScore("z", range), want) << "step " << step;
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
        ASSERT_EQ(*ZSet().RemoveRangeByRank("z", start, stop), removed) << "step " << step;
        break;
      }
      case 6: {
        Entries all = ordered();
        ASSERT_EQ(ByRank("z", 0, -1), all) << "step " << step;
        Entries reversed(all.rbegin(), all.rend());
        ASSERT_EQ(ByRank("z", 0, -1, true), reversed) << "step " << step;
        break;
      }
    }
    if (rng() % 5 == 0) Commit();
  }
  Entries all = ordered();
  EXPECT_EQ(ByRank("z", 0, -1), all);
  EXPECT_EQ(*ZSet().Card("z"), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(Rank("z", all[i].first, false), i);
}

}  // namespace
}  // namespace sluice::storage::testing
