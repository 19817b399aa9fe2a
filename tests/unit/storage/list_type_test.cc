#include "storage/list_type.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/inline_list.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

using Strings = std::vector<std::string>;

constexpr InlineLimits kAlwaysIndexed{.max_entries = 0, .max_member = 0};

// Tests of the indexed layout (sequence numbers, gaps, layouts anew) keep every list indexed;
// ListEncodingTest runs the others in each encoding.
class ListTypeTest : public EngineTest {
 protected:
  ListType List() { return ListType(*engine_, NowMs(), limits_); }

  uint64_t Push(std::string_view key, ListEnd end, std::vector<std::string_view> elements) {
    auto n = List().Push(key, end, elements);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  Strings Range(std::string_view key, int64_t start, int64_t stop) {
    auto got = List().Range(key, start, stop);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : Strings();
  }

  std::optional<Strings> Pop(std::string_view key, ListEnd end, uint64_t count) {
    auto got = List().Pop(key, end, count);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }

  // LINDEX's read: the element at `index` of the list `key`, under the record a lookup finds.
  std::optional<std::string> Index(std::string_view key, int64_t index) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value()) << key << " is missing";
    if (!record) return std::nullopt;
    auto got = List().IndexOf(key, RecordView{record->meta, record->payload}, index);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  uint64_t Remove(std::string_view key, int64_t count, std::string_view element) {
    auto n = List().Remove(key, count, element);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  int64_t Insert(std::string_view key, InsertWhere where, std::string_view pivot,
                 std::string_view element) {
    auto n = List().Insert(key, where, pivot, element);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  std::vector<uint64_t> Positions(std::string_view key, std::string_view element,
                                  PositionQuery query) {
    auto got = List().Positions(key, element, query);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::vector<uint64_t>();
  }

  std::optional<std::string> Move(std::string_view source, std::string_view destination,
                                  ListEnd from, ListEnd to) {
    auto got = List().Move(source, destination, from, to);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  // The list's sequence bounds [head, tail) from its metadata payload.
  std::pair<uint64_t, uint64_t> Bounds(std::string_view key) {
    std::optional<Record> record = GetOrDie(key);
    EXPECT_TRUE(record.has_value());
    if (!record || record->payload.size() != 16) return {0, 0};
    return {LoadFixed64LE(record->payload.data()), LoadFixed64LE(record->payload.data() + 8)};
  }

  // Whether the list `key` keeps its elements as sub-entries (its payload is its bounds).
  bool Indexed(std::string_view key) {
    std::optional<Record> record = GetOrDie(key);
    return record && record->payload.size() == 16;
  }
  // The sub-entries the list `key` has: its elements when indexed, else none.
  uint64_t SubEntriesOf(std::string_view key) {
    return Indexed(key) ? GetOrDie(key)->meta.size : 0;
  }

  InlineLimits limits_ = kAlwaysIndexed;
};

enum class Encoding { kIndexed, kInline, kInlineUpTo8 };

// The tests of what a list holds, not how: with every list indexed, with Redis's limits (the
// default), and with lists indexed past 8 elements, so that they change encoding as they grow.
class ListEncodingTest : public ListTypeTest, public ::testing::WithParamInterface<Encoding> {
 protected:
  ListEncodingTest() {
    switch (GetParam()) {
      case Encoding::kIndexed:
        limits_ = kAlwaysIndexed;
        break;
      case Encoding::kInline:
        limits_ = InlineLimits{};
        break;
      case Encoding::kInlineUpTo8:
        limits_ = InlineLimits{.max_entries = 8, .max_member = 64};
        break;
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Encodings, ListEncodingTest,
                         ::testing::Values(Encoding::kIndexed, Encoding::kInline,
                                           Encoding::kInlineUpTo8),
                         [](const ::testing::TestParamInfo<Encoding>& info) {
                           switch (info.param) {
                             case Encoding::kIndexed:
                               return "Indexed";
                             case Encoding::kInline:
                               return "Inline";
                             case Encoding::kInlineUpTo8:
                               return "InlineUpTo8";
                           }
                           return "Unknown";
                         });

// DUMP's read: every element under a record looked up before, with no lookup of the key.
TEST_P(ListEncodingTest, ElementsOfReadsUnderTheRecordGiven) {
  Push("l", ListEnd::kTail, {"b", "c"});
  Push("l", ListEnd::kHead, {"a"});
  Commit();
  std::optional<Record> record = GetOrDie("l");
  ASSERT_TRUE(record.has_value());
  StatusOr<Strings> elements = Strings{};
  const LookupCounter lookups = LookupsDuring([&] { elements = List().ElementsOf("l", *record); });
  ASSERT_TRUE(elements.ok()) << elements.status().message();
  EXPECT_EQ(*elements, (Strings{"a", "b", "c"}));
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// SORT's read of a window (BY nosort LIMIT): a range under a record looked up before, with
// no lookup of the key.
TEST_P(ListEncodingTest, RangeOfReadsUnderTheRecordGiven) {
  Push("l", ListEnd::kTail, {"a", "b", "c", "d"});
  Commit();
  std::optional<Record> record = GetOrDie("l");
  ASSERT_TRUE(record.has_value());
  StatusOr<Strings> middle = Strings{};
  StatusOr<Strings> from_tail = Strings{};
  StatusOr<Strings> past_the_end = Strings{};
  const LookupCounter lookups = LookupsDuring([&] {
    middle = List().RangeOf("l", *record, 1, 2);
    from_tail = List().RangeOf("l", *record, -2, -1);
    past_the_end = List().RangeOf("l", *record, 4, 9);
  });
  ASSERT_TRUE(middle.ok() && from_tail.ok() && past_the_end.ok());
  EXPECT_EQ(*middle, (Strings{"b", "c"}));
  EXPECT_EQ(*from_tail, (Strings{"c", "d"}));
  EXPECT_TRUE(past_the_end->empty());
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

// LINDEX's read: an element under a record looked up before, with no lookup of the key.
TEST_P(ListEncodingTest, IndexOfReadsUnderTheRecordGiven) {
  Push("l", ListEnd::kTail, {"a", "b", "c"});
  Commit();
  std::optional<Record> record = GetOrDie("l");
  ASSERT_TRUE(record.has_value());
  std::vector<StatusOr<std::optional<std::string>>> got;
  const LookupCounter lookups = LookupsDuring([&] {
    const RecordView view{record->meta, record->payload};
    for (int64_t index : {0, 2, -1, -3, 3, -4}) got.push_back(List().IndexOf("l", view, index));
  });
  std::vector<std::optional<std::string>> elements;
  for (const auto& each : got) {
    ASSERT_TRUE(each.ok()) << each.status().message();
    elements.push_back(*each);
  }
  EXPECT_EQ(elements, (std::vector<std::optional<std::string>>{"a", "c", "c", "a", std::nullopt,
                                                               std::nullopt}));
  EXPECT_EQ(lookups.hits + lookups.misses, 0u);
}

TEST_F(ListTypeTest, PushOrderAndRange) {
  EXPECT_EQ(Push("l", ListEnd::kHead, {"a", "b", "c"}), 3u);
  EXPECT_EQ(Push("l", ListEnd::kTail, {"x", "y"}), 5u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "b", "a", "x", "y"}));
  EXPECT_EQ(Range("l", 1, 2), (Strings{"b", "a"}));
  EXPECT_EQ(Range("l", -2, 100), (Strings{"x", "y"}));
  EXPECT_EQ(Range("l", 3, 1), Strings{});
  EXPECT_EQ(Range("missing", 0, -1), Strings{});
  EXPECT_EQ(*List().Len("l"), 5u);
  Commit();
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "b", "a", "x", "y"}));
  EXPECT_EQ(GetOrDie("l")->payload.size(), 16u);  // head and tail
}

// Several elements pushed at once onto a list that has some, at either end, past 8 too (where
// InlineUpTo8 moves the list to sub-entries).
TEST_P(ListEncodingTest, PushesOfSeveralElementsKeepTheirOrder) {
  EXPECT_EQ(Push("l", ListEnd::kTail, {"c", "d", "e", "f"}), 4u);
  EXPECT_EQ(Push("l", ListEnd::kHead, {"b", "a"}), 6u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(Push("l", ListEnd::kHead, {"z", "y", "x"}), 9u);
  EXPECT_EQ(Push("l", ListEnd::kTail, {"g", "h"}), 11u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h"}));
  Commit();
  EXPECT_EQ(Index("l", 3), "a");
  EXPECT_EQ(Index("l", -3), "f");
}

TEST_P(ListEncodingTest, PopCountsAndDeletesEmptyKey) {
  Push("l", ListEnd::kTail, {"a", "b", "c", "d"});
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), (Strings{"a"}));
  EXPECT_EQ(Pop("l", ListEnd::kTail, 2), (Strings{"d", "c"}));
  EXPECT_EQ(Pop("l", ListEnd::kTail, 10), (Strings{"b"}));
  EXPECT_FALSE(GetOrDie("l").has_value());
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), std::nullopt);
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

// More than a few elements are popped by one walk rather than a point read each; either way
// the list's ends follow, dense or with gaps (a removal in the middle leaves one).
TEST_F(ListTypeTest, LargePopsFromEitherEndLeaveTheRestInPlace) {
  for (const bool with_gap : {false, true}) {
    SCOPED_TRACE(with_gap ? "with a gap" : "dense");
    const std::string key = with_gap ? "gap" : "dense";
    std::deque<std::string> model;
    std::vector<std::string> values;
    for (int i = 0; i < 100; ++i) values.push_back("e" + std::to_string(i));
    for (const std::string& v : values) {
      Push(key, ListEnd::kTail, {v});
      model.push_back(v);
    }
    if (with_gap) {
      ASSERT_EQ(Remove(key, 1, "e50"), 1u);
      model.erase(model.begin() + 50);
    }
    auto pop = [&](ListEnd end, uint64_t count) {
      Strings want;
      for (uint64_t i = 0; i < count && !model.empty(); ++i) {
        want.push_back(end == ListEnd::kHead ? model.front() : model.back());
        end == ListEnd::kHead ? model.pop_front() : model.pop_back();
      }
      ASSERT_EQ(Pop(key, end, count), want);
      ASSERT_EQ(Range(key, 0, -1), Strings(model.begin(), model.end()));
    };
    pop(ListEnd::kHead, 40);
    pop(ListEnd::kTail, 30);
    Push(key, ListEnd::kHead, {"front"});  // the ends are where the pops left them
    model.push_front("front");
    Push(key, ListEnd::kTail, {"back"});
    model.push_back("back");
    ASSERT_EQ(Range(key, 0, -1), Strings(model.begin(), model.end()));
    Commit();
    pop(ListEnd::kTail, 17);
    pop(ListEnd::kHead, 100);
    EXPECT_EQ(Pop(key, ListEnd::kHead, 1), std::nullopt) << "the key went with its last";
  }
}

TEST_P(ListEncodingTest, TrimKeepsTheRange) {
  Push("l", ListEnd::kTail, {"a", "b", "c", "d", "e"});
  EXPECT_TRUE(*List().Trim("l", 1, -2));
  EXPECT_EQ(Range("l", 0, -1), (Strings{"b", "c", "d"}));
  EXPECT_EQ(Index("l", 0), "b");
  EXPECT_TRUE(*List().Trim("l", 0, 100));
  EXPECT_EQ(*List().Len("l"), 3u);
  EXPECT_TRUE(*List().Trim("l", 2, 1));
  EXPECT_FALSE(GetOrDie("l").has_value());
  EXPECT_FALSE(*List().Trim("l", 0, -1));
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_P(ListEncodingTest, WrongType) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(List().Len("s").status().code(), Code::kWrongType);
  const std::string_view one[] = {"x"};
  EXPECT_EQ(List().Push("s", ListEnd::kHead, one).status().code(), Code::kWrongType);
}

TEST_P(ListEncodingTest, ReplaceTakesOverAnyTypeWithoutTtl) {
  engine_->Put("str", StringRecord("v", NowMs() + 60000));
  Push("l", ListEnd::kTail, {"old1", "old2", "old3"});
  Commit();
  const std::string elements[] = {"x", "y", "x", ""};
  ASSERT_TRUE(List().Replace("str", elements).ok());
  ASSERT_TRUE(List().Replace("l", elements).ok());
  Commit();
  EXPECT_EQ(Range("str", 0, -1), (Strings{"x", "y", "x", ""}));
  EXPECT_EQ(GetOrDie("str")->meta.expire_at_ms, 0);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"x", "y", "x", ""}));
  EXPECT_EQ(Index("l", -1), "");
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), (Strings{"x"}));
  EXPECT_EQ(Push("l", ListEnd::kHead, {"h"}), 4u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"h", "y", "x", ""}));
  // Empty: deleted, and nothing written for a missing key.
  ASSERT_TRUE(List().Replace("l", {}).ok());
  const uint64_t writes = engine_->StagedWriteCount();
  ASSERT_TRUE(List().Replace("never", {}).ok());
  EXPECT_EQ(engine_->StagedWriteCount(), writes);
  Commit();
  EXPECT_FALSE(GetOrDie("l").has_value());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("str"));  // str's elements, if any
}

TEST_F(ListTypeTest, DelBumpsVersionAndCompactionDropsOldElements) {
  std::vector<std::string> items;
  for (int i = 0; i < 300; ++i) items.push_back("item" + std::to_string(i));
  std::vector<std::string_view> views(items.begin(), items.end());
  Push("l", ListEnd::kTail, views);
  Commit();
  engine_->Delete("l");
  Push("l", ListEnd::kTail, {"only"});
  Commit();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"only"}));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 301u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
}

TEST_P(ListEncodingTest, MatchesADequeUnderRandomOperations) {
  std::mt19937 rng(7);
  std::deque<std::string> model;
  for (int step = 0; step < 2000; ++step) {
    std::string value = "v" + std::to_string(step);
    switch (rng() % 6) {
      case 0:
        Push("l", ListEnd::kHead, {value});
        model.push_front(value);
        break;
      case 1:
        Push("l", ListEnd::kTail, {value});
        model.push_back(value);
        break;
      case 2: {
        uint64_t count = rng() % 3;
        auto got = Pop("l", ListEnd::kHead, count);
        if (model.empty()) {
          EXPECT_EQ(got, std::nullopt);
          break;
        }
        Strings want;
        for (uint64_t i = 0; i < count && !model.empty(); ++i) {
          want.push_back(model.front());
          model.pop_front();
        }
        EXPECT_EQ(got, want);
        break;
      }
      case 3: {
        int64_t start = static_cast<int64_t>(rng() % 7) - 3;
        int64_t stop = static_cast<int64_t>(rng() % 7) - 3;
        Strings want;
        auto len = static_cast<int64_t>(model.size());
        int64_t s = start < 0 ? std::max<int64_t>(start + len, 0) : start;
        int64_t e = stop < 0 ? stop + len : std::min<int64_t>(stop, len - 1);
        for (int64_t i = s; i <= e && i < len; ++i) want.push_back(model[static_cast<size_t>(i)]);
        ASSERT_EQ(Range("l", start, stop), want) << "step " << step;
        break;
      }
      case 4: {
        int64_t index = static_cast<int64_t>(rng() % 9) - 4;
        auto len = static_cast<int64_t>(model.size());
        int64_t i = index < 0 ? index + len : index;
        std::optional<std::string> want;
        if (i >= 0 && i < len) want = model[static_cast<size_t>(i)];
        if (model.empty()) {  // the key went with its last element: LINDEX's caller sees none
          EXPECT_FALSE(GetOrDie("l").has_value());
          break;
        }
        EXPECT_EQ(Index("l", index), want);
        break;
      }
      case 5:
        if (model.size() > 20) {
          EXPECT_TRUE(*List().Trim("l", 2, -3));
          model.erase(model.begin(), model.begin() + 2);
          model.erase(model.end() - 2, model.end());
        }
        break;
    }
    ASSERT_EQ(*List().Len("l"), model.size());
    if (step % 50 == 0) Commit();
  }
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
}

TEST_P(ListEncodingTest, SetReplacesInPlace) {
  Push("l", ListEnd::kTail, {"a", "b", "c"});
  const auto bounds = Bounds("l");
  EXPECT_TRUE(*List().Set("l", 0, "A"));
  EXPECT_TRUE(*List().Set("l", -1, "C"));
  EXPECT_TRUE(*List().Set("l", 1, std::string("\0\xff", 2)));
  EXPECT_FALSE(*List().Set("l", 3, "x"));
  EXPECT_FALSE(*List().Set("l", -4, "x"));
  EXPECT_FALSE(*List().Set("missing", 0, "x"));
  EXPECT_FALSE(GetOrDie("missing").has_value());
  EXPECT_EQ(Range("l", 0, -1), (Strings{"A", std::string("\0\xff", 2), "C"}));
  EXPECT_EQ(Bounds("l"), bounds);
  Commit();
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"A", std::string("\0\xff", 2), "C"}));
}

TEST_P(ListEncodingTest, RemoveCountsFromEitherEnd) {
  Push("l", ListEnd::kTail, {"x", "a", "x", "b", "x", "c", "x"});
  EXPECT_EQ(Remove("l", 1, "x"), 1u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "x", "b", "x", "c", "x"}));
  EXPECT_EQ(Remove("l", -2, "x"), 2u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "x", "b", "c"}));
  EXPECT_EQ(Remove("l", 5, "nope"), 0u);
  EXPECT_EQ(Remove("missing", 0, "x"), 0u);
  Push("l", ListEnd::kHead, {"x", "x"});
  EXPECT_EQ(Remove("l", 0, "x"), 3u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Index("l", 1), "b");
  EXPECT_EQ(*List().Len("l"), 3u);
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("l"));  // nothing left behind
}

TEST_P(ListEncodingTest, RemoveWithTheMostNegativeCountRemovesAll) {
  Push("l", ListEnd::kTail, {"a", "x", "b", "x"});
  EXPECT_EQ(Remove("l", INT64_MIN, "x"), 2u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "b"}));
}

TEST_P(ListEncodingTest, RemoveLastElementsDeletesTheKey) {
  Push("l", ListEnd::kTail, {"x", "x", "x"});
  EXPECT_EQ(Remove("l", -5, "x"), 3u);
  EXPECT_FALSE(GetOrDie("l").has_value());
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(ListTypeTest, RemoveLeavesAGapAndMovesNothing) {
  Push("l", ListEnd::kTail, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
  auto [head, tail] = Bounds("l");
  uint64_t staged = engine_->StagedWriteCount();
  EXPECT_EQ(Remove("l", 1, "2"), 1u);
  EXPECT_EQ(engine_->StagedWriteCount() - staged, 2u);  // the element and the metadata
  EXPECT_EQ(Remove("l", -1, "7"), 1u);
  EXPECT_EQ(Bounds("l"), std::make_pair(head, tail));
  EXPECT_EQ(Remove("l", 1, "0"), 1u);  // the first: the head moves to the next one's number
  EXPECT_EQ(Remove("l", -1, "9"), 1u);
  EXPECT_EQ(Bounds("l"), std::make_pair(head + 1, tail - 1));
  EXPECT_EQ(Range("l", 0, -1), (Strings{"1", "3", "4", "5", "6", "8"}));
  EXPECT_EQ(Index("l", 2), "4");
  EXPECT_EQ(Index("l", -2), "6");
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 6u);
}

TEST_F(ListTypeTest, InsertBeforeAndAfterThePivot) {
  EXPECT_EQ(Insert("missing", InsertWhere::kBefore, "a", "x"), 0);
  EXPECT_FALSE(GetOrDie("missing").has_value());
  Push("l", ListEnd::kTail, {"a", "b", "c", "b", "e", "f"});
  auto [head, tail] = Bounds("l");
  EXPECT_EQ(Insert("l", InsertWhere::kBefore, "nope", "x"), -1);
  EXPECT_EQ(Bounds("l"), std::make_pair(head, tail));
  // No number is free between a and b: the list is laid out again with gaps, under a fresh
  // version. The next insert in the middle takes a number in a gap: one element written.
  const uint64_t version = GetOrDie("l")->meta.version;
  EXPECT_EQ(Insert("l", InsertWhere::kAfter, "a", "a2"), 7);
  EXPECT_NE(GetOrDie("l")->meta.version, version);
  const uint64_t staged = engine_->StagedWriteCount();
  EXPECT_EQ(Insert("l", InsertWhere::kBefore, "f", "f0"), 8);
  EXPECT_EQ(engine_->StagedWriteCount() - staged, 2u);  // the element and the metadata
  EXPECT_EQ(Insert("l", InsertWhere::kBefore, "b", "b0"), 9);  // the first "b" only
  EXPECT_EQ(Insert("l", InsertWhere::kBefore, "a", "first"), 10);
  EXPECT_EQ(Insert("l", InsertWhere::kAfter, "f", "last"), 11);
  const Strings want = {"first", "a", "a2", "b0", "b", "c", "b", "e", "f0", "f", "last"};
  EXPECT_EQ(Range("l", 0, -1), want);
  Commit();
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), want);
  ASSERT_TRUE(engine_->CompactAll().ok());  // the layout's old version is garbage
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), want.size());
}

// A job queue filing jobs by priority inserts again and again at one place in a long list: the
// first insert there lays the list out with gaps, and most of the next ones write one element.
TEST_F(ListTypeTest, InsertsAtOnePlaceWriteOneElementMostly) {
  std::deque<std::string> model;
  for (int i = 0; i < 1000; ++i) {
    const std::string value = "j" + std::to_string(i);
    Push("q", ListEnd::kTail, {value});
    model.push_back(value);
  }
  Commit();
  const uint64_t staged = engine_->StagedWriteCount();
  for (int i = 0; i < 200; ++i) {
    const std::string value = "p" + std::to_string(i);
    ASSERT_EQ(Insert("q", InsertWhere::kBefore, "j400", value), 1001 + i);
    model.insert(std::find(model.begin(), model.end(), "j400"), value);
  }
  // Renumbering the shorter side every time would stage 200 * 2 * 400 writes.
  EXPECT_LT(engine_->StagedWriteCount() - staged, 20u * 1000u);
  EXPECT_EQ(Range("q", 0, -1), Strings(model.begin(), model.end()));
  EXPECT_EQ(Index("q", 500), model[500]);
  EXPECT_EQ(Index("q", -300), model[model.size() - 300]);
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), model.size());
}

// An insert with no gap near an end of a long list moves the few elements between it and that
// end one number outward, under the same version: a write per moved element, not per element
// of the list (LINSERT next to the head of a million-element list took seconds). Gaps left by
// LREM on the way are closed up: their old numbers are deleted, none is left doubled.
TEST_F(ListTypeTest, AnInsertNearAnEndMovesOnlyTheElementsOnThatSide) {
  std::deque<std::string> model;
  for (int i = 0; i < 1000; ++i) {
    model.push_back("e" + std::to_string(i));
    Push("l", ListEnd::kTail, {model.back()});
  }
  Commit();
  const uint64_t version = GetOrDie("l")->meta.version;
  const auto insert = [&](InsertWhere where, const std::string& pivot, const std::string& value) {
    const uint64_t staged = engine_->StagedWriteCount();
    auto it = std::find(model.begin(), model.end(), pivot);
    model.insert(where == InsertWhere::kBefore ? it : it + 1, value);
    EXPECT_EQ(Insert("l", where, pivot, value), static_cast<int64_t>(model.size()));
    return engine_->StagedWriteCount() - staged;
  };
  EXPECT_EQ(insert(InsertWhere::kBefore, "e2", "x"), 4u);   // e0, e1 moved, x, the record
  EXPECT_EQ(insert(InsertWhere::kAfter, "e997", "y"), 4u);  // e998, e999 moved, y, the record
  EXPECT_EQ(Remove("l", 1, "e5"), 1u);                      // a gap near the head
  model.erase(std::find(model.begin(), model.end(), "e5"));
  EXPECT_LE(insert(InsertWhere::kBefore, "e7", "z"), 12u);
  EXPECT_EQ(GetOrDie("l")->meta.version, version);
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
  EXPECT_EQ(Index("l", 3), model[3]);
  EXPECT_EQ(Index("l", -2), model[model.size() - 2]);
  Commit();
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), model.size());
}

// A list whose numbers reach an end of the sequence space (never seen in practice: a list
// starts in its middle) is laid out again around the middle before a push or an insert there.
TEST_F(ListTypeTest, AListAtTheEdgeOfTheSequenceSpaceIsLaidOutAgain) {
  Record record = NewComposite(*engine_, KeyType::kList);
  const uint64_t version = record.meta.version;
  const std::string values[] = {"x", "y", "z"};
  for (uint64_t seq = 0; seq < 3; ++seq) {
    std::string sub_key = SubKeyPrefix("edge", version);
    PutFixed64BE(&sub_key, seq);
    engine_->PutSubEntry(SubFamily::kSubkeys, sub_key, values[seq]);
  }
  record.meta.size = 3;
  record.payload.clear();
  PutFixed64LE(&record.payload, 0);
  PutFixed64LE(&record.payload, 3);
  engine_->Put("edge", record);
  Commit();
  EXPECT_EQ(Insert("edge", InsertWhere::kAfter, "x", "x2"), 4);  // no room below x
  EXPECT_GT(Bounds("edge").first, uint64_t{1} << 62);
  EXPECT_EQ(Push("edge", ListEnd::kHead, {"w"}), 5u);
  EXPECT_EQ(Insert("edge", InsertWhere::kBefore, "w", "v"), 6);
  EXPECT_EQ(Range("edge", 0, -1), (Strings{"v", "w", "x", "x2", "y", "z"}));
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 6u);
}

TEST_P(ListEncodingTest, PositionsFollowRankCountAndMaxlen) {
  // index:                       0    1    2    3    4    5    6
  Push("l", ListEnd::kTail, {"a", "b", "c", "a", "b", "c", "a"});
  using V = std::vector<uint64_t>;
  EXPECT_EQ(Positions("l", "a", {}), V{0});
  EXPECT_EQ(Positions("l", "c", {}), V{2});
  EXPECT_EQ(Positions("l", "z", {}), V{});
  EXPECT_EQ(Positions("missing", "a", {}), V{});
  EXPECT_EQ(Positions("l", "a", {.skip = 1}), V{3});  // RANK 2
  EXPECT_EQ(Positions("l", "a", {.skip = 3}), V{});   // RANK 4
  EXPECT_EQ(Positions("l", "a", {.limit = 0}), (V{0, 3, 6}));
  EXPECT_EQ(Positions("l", "a", {.limit = 2}), (V{0, 3}));
  EXPECT_EQ(Positions("l", "a", {.from = ListEnd::kTail, .limit = 0}), (V{6, 3, 0}));
  EXPECT_EQ(Positions("l", "b", {.from = ListEnd::kTail, .skip = 1}), V{1});  // RANK -2
  EXPECT_EQ(Positions("l", "a", {.limit = 0, .maxlen = 4}), (V{0, 3}));
  EXPECT_EQ(Positions("l", "a", {.limit = 0, .maxlen = 3}), V{0});
  EXPECT_EQ(Positions("l", "a", {.from = ListEnd::kTail, .limit = 0, .maxlen = 1}), V{6});
  EXPECT_EQ(Positions("l", "c", {.from = ListEnd::kTail, .skip = 1, .maxlen = 4}), V{});
}

TEST_P(ListEncodingTest, MoveBetweenKeys) {
  EXPECT_EQ(Move("missing", "dst", ListEnd::kTail, ListEnd::kHead), std::nullopt);
  EXPECT_FALSE(GetOrDie("dst").has_value());
  Push("src", ListEnd::kTail, {"a", "b", "c"});
  EXPECT_EQ(Move("src", "dst", ListEnd::kTail, ListEnd::kHead), "c");
  EXPECT_EQ(Move("src", "dst", ListEnd::kHead, ListEnd::kHead), "a");
  EXPECT_EQ(Move("src", "dst", ListEnd::kHead, ListEnd::kTail), "b");
  EXPECT_FALSE(GetOrDie("src").has_value());  // the source goes with its last element
  EXPECT_EQ(Range("dst", 0, -1), (Strings{"a", "c", "b"}));
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("dst"));
}

TEST_P(ListEncodingTest, MoveChecksTheDestinationTypeOnlyWithASource) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(Move("missing", "s", ListEnd::kHead, ListEnd::kHead), std::nullopt);
  Push("l", ListEnd::kTail, {"a"});
  EXPECT_EQ(List().Move("l", "s", ListEnd::kHead, ListEnd::kTail).status().code(),
            Code::kWrongType);
  EXPECT_EQ(Range("l", 0, -1), Strings{"a"});  // nothing popped
  EXPECT_EQ(List().Move("s", "l", ListEnd::kHead, ListEnd::kTail).status().code(),
            Code::kWrongType);
}

TEST_P(ListEncodingTest, MoveOnOneKeyRotatesAndKeepsTheExpiry) {
  Push("l", ListEnd::kTail, {"a", "b", "c"});
  std::optional<Record> record = GetOrDie("l");
  ASSERT_TRUE(record.has_value());
  record->meta.expire_at_ms = NowMs() + 10000;
  PutAndCommit("l", *record);
  EXPECT_EQ(Move("l", "l", ListEnd::kHead, ListEnd::kTail), "a");
  EXPECT_EQ(Range("l", 0, -1), (Strings{"b", "c", "a"}));
  EXPECT_EQ(Move("l", "l", ListEnd::kTail, ListEnd::kHead), "a");
  EXPECT_EQ(Move("l", "l", ListEnd::kTail, ListEnd::kHead), "c");
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "a", "b"}));
  EXPECT_EQ(Move("l", "l", ListEnd::kHead, ListEnd::kHead), "c");
  EXPECT_EQ(Move("l", "l", ListEnd::kTail, ListEnd::kTail), "b");
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "a", "b"}));
  EXPECT_EQ(GetOrDie("l")->meta.expire_at_ms, NowMs() + 10000);
  EXPECT_EQ(GetOrDie("l")->meta.version, record->meta.version);
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("l"));
}

TEST_P(ListEncodingTest, MoveRotatesASingleElementList) {
  Push("l", ListEnd::kTail, {"only"});
  EXPECT_EQ(Move("l", "l", ListEnd::kHead, ListEnd::kTail), "only");
  EXPECT_EQ(Move("l", "l", ListEnd::kTail, ListEnd::kHead), "only");
  EXPECT_EQ(Range("l", 0, -1), Strings{"only"});
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("l"));
}

TEST_P(ListEncodingTest, NewOperationsRefuseWrongType) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(List().Set("s", 0, "x").status().code(), Code::kWrongType);
  EXPECT_EQ(List().Remove("s", 0, "x").status().code(), Code::kWrongType);
  EXPECT_EQ(List().Insert("s", InsertWhere::kAfter, "v", "x").status().code(), Code::kWrongType);
  EXPECT_EQ(List().Positions("s", "v", {}).status().code(), Code::kWrongType);
}

// LSET, LREM, LINSERT and LMOVE against a model, committing now and then.
TEST_P(ListEncodingTest, EditsMatchADequeUnderRandomOperations) {
  std::mt19937 rng(11);
  std::deque<std::string> l;
  std::deque<std::string> m;
  const std::string values[] = {"a", "b", "c", "d"};
  auto model = [&](std::string_view key) -> std::deque<std::string>& { return key == "l" ? l : m; };
  for (int step = 0; step < 3000; ++step) {
    const std::string_view key = rng() % 2 ? "l" : "m";
    const std::string_view other = rng() % 2 ? "l" : "m";
    std::deque<std::string>& list = model(key);
    const std::string& value = values[rng() % 4];
    const unsigned op = rng() % 9;
    switch (op) {
      case 0:
      case 1:
        Push(key, ListEnd::kTail, {value});
        list.push_back(value);
        break;
      case 2: {
        const int64_t count = static_cast<int64_t>(rng() % 5) - 2;
        uint64_t want = 0;
        if (count >= 0) {
          for (auto it = list.begin(); it != list.end();) {
            if (*it == value && (count == 0 || want < static_cast<uint64_t>(count))) {
              it = list.erase(it);
              ++want;
            } else {
              ++it;
            }
          }
        } else {
          for (auto i = static_cast<int64_t>(list.size()) - 1; i >= 0; --i) {
            if (list[static_cast<size_t>(i)] == value && want < static_cast<uint64_t>(-count)) {
              list.erase(list.begin() + i);
              ++want;
            }
          }
        }
        ASSERT_EQ(Remove(key, count, value), want) << "step " << step;
        break;
      }
      case 3: {
        const InsertWhere where = rng() % 2 ? InsertWhere::kBefore : InsertWhere::kAfter;
        const std::string& pivot = values[rng() % 4];
        const std::string element = "i" + std::to_string(step);
        int64_t want = list.empty() ? 0 : -1;
        auto it = std::find(list.begin(), list.end(), pivot);
        if (it != list.end()) {
          list.insert(where == InsertWhere::kBefore ? it : it + 1, element);
          want = static_cast<int64_t>(list.size());
        }
        ASSERT_EQ(Insert(key, where, pivot, element), want) << "step " << step;
        break;
      }
      case 4: {
        const int64_t index = static_cast<int64_t>(rng() % 9) - 4;
        const auto len = static_cast<int64_t>(list.size());
        const int64_t i = index < 0 ? index + len : index;
        const bool in_range = i >= 0 && i < len;
        if (in_range) list[static_cast<size_t>(i)] = "s" + std::to_string(step);
        ASSERT_EQ(*List().Set(key, index, "s" + std::to_string(step)), in_range);
        break;
      }
      case 5: {
        const ListEnd from = rng() % 2 ? ListEnd::kHead : ListEnd::kTail;
        const ListEnd to = rng() % 2 ? ListEnd::kHead : ListEnd::kTail;
        std::optional<std::string> want;
        if (!list.empty()) {
          want = from == ListEnd::kHead ? list.front() : list.back();
          if (from == ListEnd::kHead) {
            list.pop_front();
          } else {
            list.pop_back();
          }
          std::deque<std::string>& target = model(other);
          if (to == ListEnd::kHead) {
            target.push_front(*want);
          } else {
            target.push_back(*want);
          }
        }
        ASSERT_EQ(Move(key, other, from, to), want) << "step " << step;
        break;
      }
      case 6: {  // pops from either end of a list the edits above left with gaps
        const ListEnd end = rng() % 2 ? ListEnd::kHead : ListEnd::kTail;
        const uint64_t count = rng() % 3;
        std::optional<Strings> want;
        if (!list.empty()) {
          want = Strings();
          for (uint64_t i = 0; i < count && !list.empty(); ++i) {
            want->push_back(end == ListEnd::kHead ? list.front() : list.back());
            if (end == ListEnd::kHead) {
              list.pop_front();
            } else {
              list.pop_back();
            }
          }
        }
        ASSERT_EQ(Pop(key, end, count), want) << "step " << step;
        break;
      }
      case 7: {  // a window and an element, walked to from either end
        const auto len = static_cast<int64_t>(list.size());
        const int64_t start = static_cast<int64_t>(rng() % 9) - 4;
        const int64_t stop = static_cast<int64_t>(rng() % 9) - 4;
        const int64_t s = start < 0 ? std::max<int64_t>(start + len, 0) : start;
        const int64_t e = stop < 0 ? stop + len : std::min<int64_t>(stop, len - 1);
        Strings want;
        for (int64_t i = s; i <= e && i < len; ++i) want.push_back(list[static_cast<size_t>(i)]);
        ASSERT_EQ(Range(key, start, stop), want) << "step " << step;
        if (!list.empty()) {
          const int64_t index = static_cast<int64_t>(rng() % 9) - 4;
          const int64_t i = index < 0 ? index + len : index;
          std::optional<std::string> at;
          if (i >= 0 && i < len) at = list[static_cast<size_t>(i)];
          ASSERT_EQ(Index(key, index), at) << "step " << step;
        }
        break;
      }
      case 8: {
        if (list.size() < 4) break;
        const int64_t front = static_cast<int64_t>(rng() % 2);
        const int64_t back = static_cast<int64_t>(rng() % 2);
        ASSERT_TRUE(*List().Trim(key, front, -1 - back));
        list.erase(list.begin(), list.begin() + front);
        list.erase(list.end() - back, list.end());
        break;
      }
    }
    // The lists the step edited (a move edits its destination too), and both at every commit:
    // reading both whole lists at every step was most of this test's time.
    const bool both = step % 50 == 0;
    for (std::string_view name : {std::string_view("l"), std::string_view("m")}) {
      const bool edited = name == key || (op == 5 && name == other);
      if (!both && !edited) continue;
      const std::deque<std::string>& want = model(name);
      ASSERT_EQ(Range(name, 0, -1), Strings(want.begin(), want.end())) << "step " << step;
      ASSERT_EQ(GetOrDie(name).has_value(), !want.empty()) << "step " << step;
    }
    if (both) Commit();
  }
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());  // layouts leave their old versions behind
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), SubEntriesOf("l") + SubEntriesOf("m"));
}

// --- The inline encoding ---------------------------------------------------------------------

class InlineListTest : public ListTypeTest {
 protected:
  InlineListTest() { limits_ = InlineLimits{}; }
};

TEST_F(InlineListTest, AShortListIsItsRecordAlone) {
  Push("l", ListEnd::kTail, {"b", "c"});
  Push("l", ListEnd::kHead, {"a"});
  Commit();
  EXPECT_FALSE(Indexed("l"));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Index("l", 1), "b");
  EXPECT_EQ(*List().Len("l"), 3u);
}

// What a moving window's script does to its list (LPUSH, LTRIM), and the other edits, each
// stage one write: the record.
TEST_F(InlineListTest, EachEditOfAShortListStagesOnlyItsRecord) {
  Push("l", ListEnd::kTail, {"1", "2", "3", "4", "5"});
  Commit();
  const std::pair<std::string_view, std::function<void()>> edits[] = {
      {"LPUSH", [&] { Push("l", ListEnd::kHead, {"0"}); }},
      {"LTRIM", [&] { EXPECT_TRUE(*List().Trim("l", 0, 4)); }},
      {"LPOP", [&] { Pop("l", ListEnd::kHead, 1); }},
      {"LSET", [&] { EXPECT_TRUE(*List().Set("l", 1, "two")); }},
      {"LREM", [&] { EXPECT_EQ(Remove("l", 1, "3"), 1u); }},
      {"LINSERT", [&] { EXPECT_EQ(Insert("l", InsertWhere::kAfter, "two", "2.5"), 4); }},
      {"LMOVE", [&] { Move("l", "l", ListEnd::kHead, ListEnd::kTail); }},
  };
  for (const auto& [name, edit] : edits) {
    const uint64_t staged = engine_->StagedWriteCount();
    edit();
    EXPECT_EQ(engine_->StagedWriteCount() - staged, 1u) << name;
  }
  Commit();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"two", "2.5", "4", "1"}));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(InlineListTest, AListGrowingPastTheLimitsIsIndexedForGood) {
  std::deque<std::string> model;
  for (int i = 0; i < 128; ++i) {
    model.push_back("e" + std::to_string(i));
    Push("l", ListEnd::kTail, {model.back()});
  }
  EXPECT_FALSE(Indexed("l"));
  Push("l", ListEnd::kHead, {"first"});
  model.push_front("first");
  EXPECT_TRUE(Indexed("l"));
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 129u);
  EXPECT_EQ(Pop("l", ListEnd::kHead, 120).value_or(Strings()).size(), 120u);
  model.erase(model.begin(), model.begin() + 120);
  Push("l", ListEnd::kTail, {"last"});
  model.push_back("last");
  EXPECT_TRUE(Indexed("l"));  // shorter again, as Redis 7.0's quicklist stays
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
  EXPECT_EQ(Index("l", -1), "last");
  // Emptied, the key goes; a new list under its name starts inline.
  EXPECT_EQ(Pop("l", ListEnd::kTail, 100).value_or(Strings()).size(), model.size());
  Push("l", ListEnd::kTail, {"again"});
  EXPECT_FALSE(Indexed("l"));
}

TEST_F(InlineListTest, AnElementLongerThan64BytesMakesTheListIndexed) {
  const std::string longest(64, 'x');
  const std::string too_long(65, 'y');
  Push("push", ListEnd::kTail, {"a", longest});
  Push("set", ListEnd::kTail, {"a", "b"});
  Push("insert", ListEnd::kTail, {"a", "b"});
  for (std::string_view key : {"push", "set", "insert"}) EXPECT_FALSE(Indexed(key)) << key;
  Push("push", ListEnd::kHead, {too_long});
  EXPECT_TRUE(*List().Set("set", 1, too_long));
  EXPECT_EQ(Insert("insert", InsertWhere::kBefore, "b", too_long), 3);
  Push("new", ListEnd::kTail, {too_long});
  const std::string elements[] = {"a", too_long};
  ASSERT_TRUE(List().Replace("replaced", elements).ok());
  Commit();
  for (std::string_view key : {"push", "set", "insert", "new", "replaced"}) {
    EXPECT_TRUE(Indexed(key)) << key;
  }
  EXPECT_EQ(Range("push", 0, -1), (Strings{too_long, "a", longest}));
  EXPECT_EQ(Range("set", 0, -1), (Strings{"a", too_long}));
  EXPECT_EQ(Range("insert", 0, -1), (Strings{"a", too_long, "b"}));
  EXPECT_EQ(Range("new", 0, -1), (Strings{too_long}));
  EXPECT_EQ(Range("replaced", 0, -1), (Strings{"a", too_long}));
}

// Its record stays within what the record cache holds: about 4 KB of elements.
TEST_F(InlineListTest, AListWhoseElementsPassFourKilobytesIsIndexed) {
  const std::string element(64, 'e');
  const uint64_t fit = (kMostInlineListBytes - 1) / (1 + element.size());  // and a pad
  for (uint64_t i = 0; i < fit; ++i) Push("l", ListEnd::kTail, {element});
  EXPECT_FALSE(Indexed("l"));
  EXPECT_LE(GetOrDie("l")->payload.size(), kMostInlineListBytes);
  Push("l", ListEnd::kHead, {"x"});  // 2 more bytes fit
  EXPECT_FALSE(Indexed("l"));
  Push("l", ListEnd::kTail, {element});
  EXPECT_TRUE(Indexed("l"));
  EXPECT_EQ(*List().Len("l"), fit + 2);
  EXPECT_EQ(Index("l", 0), "x");
  EXPECT_EQ(Index("l", -1), element);
}

// Only an indexed list's payload (its bounds) is 16 bytes: an inline one that long is padded.
TEST_F(InlineListTest, AnInlinePayloadOfSixteenBytesIsPadded) {
  Push("one", ListEnd::kTail, {std::string(15, 'a')});  // 1 + 15 bytes
  Push("two", ListEnd::kTail, {"1234567", "abcdefg"});  // 2 x (1 + 7)
  // 17 bytes, the last a zero (the empty element's length) though no pad.
  Push("empty last", ListEnd::kTail, {std::string(15, 'c'), ""});
  Commit();
  Reopen();
  EXPECT_EQ(GetOrDie("one")->payload.size(), 17u);
  EXPECT_EQ(GetOrDie("two")->payload.size(), 17u);
  EXPECT_EQ(Range("one", 0, -1), Strings{std::string(15, 'a')});
  EXPECT_EQ(Index("two", 1), "abcdefg");
  EXPECT_EQ(Pop("two", ListEnd::kHead, 1), Strings{"1234567"});
  Push("one", ListEnd::kTail, {"b"});
  EXPECT_EQ(Range("one", 0, -1), (Strings{std::string(15, 'a'), "b"}));
  EXPECT_EQ(Range("two", 0, -1), Strings{"abcdefg"});
  EXPECT_FALSE(Indexed("one"));
  EXPECT_EQ(GetOrDie("empty last")->payload.size(), 17u);
  EXPECT_EQ(Range("empty last", 0, -1), (Strings{std::string(15, 'c'), ""}));
  EXPECT_EQ(Pop("empty last", ListEnd::kTail, 1), Strings{""});
  EXPECT_EQ(GetOrDie("empty last")->payload.size(), 17u);  // now padded
  EXPECT_EQ(Range("empty last", 0, -1), Strings{std::string(15, 'c')});
}

TEST_F(InlineListTest, AnInlinePayloadThatDisagreesWithTheSizeIsAnError) {
  Push("l", ListEnd::kTail, {"a", "b"});
  Commit();
  const Record good = *GetOrDie("l");
  Record more = good;
  more.meta.size = 3;
  Record fewer = good;
  fewer.meta.size = 1;
  Record trailing = good;
  trailing.payload += "zz";
  for (const Record* bad : {&more, &fewer, &trailing}) {
    EXPECT_EQ(List().RangeOf("l", *bad, 0, -1).status().code(), Code::kIo);
    EXPECT_EQ(List().IndexOf("l", RecordView{bad->meta, bad->payload}, 0).status().code(),
              Code::kIo);
  }
  PutAndCommit("l", more);
  EXPECT_EQ(List().Range("l", 0, -1).status().code(), Code::kIo);
  const std::string_view one[] = {"c"};
  EXPECT_EQ(List().Push("l", ListEnd::kTail, one).status().code(), Code::kIo);
}

}  // namespace
}  // namespace sluice::storage::testing
