// SORT's pure parts: option parsing and its errors, the STORE key finder, pattern substitution,
// numeric weights, LIMIT windows and the comparison, as Redis 7.0's sort.c behaves (the cases
// were checked against redis-server 7.0.15), plus random sorts against a plain reference.

#include "server/commands/sort_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

using std::string_literals::operator""s;
using Words = std::vector<std::string_view>;

StatusOr<SortArgs> Parse(Words args, bool read_only = false) { return ParseSort(args, read_only); }

TEST(ParseSortTest, OptionsAndTheLastOneWins) {
  auto parsed =
      Parse({"SORT", "k",   "desc",   "LIMIT", "1",  "2",     "alpha", "asc",   "by", "w_*", "GET",
             "#",    "get", "h_*->f", "STORE", "d1", "store", "d2",    "LIMIT", "-5", "-1"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->key, "k");
  EXPECT_FALSE(parsed->desc);
  EXPECT_TRUE(parsed->alpha);
  EXPECT_EQ(parsed->limit_offset, -5);
  EXPECT_EQ(parsed->limit_count, -1);
  EXPECT_EQ(parsed->by, "w_*");
  EXPECT_FALSE(parsed->dont_sort);
  EXPECT_EQ(parsed->gets, (Words{"#", "h_*->f"}));
  EXPECT_EQ(parsed->store, "d2");
}

TEST(ParseSortTest, ByWithoutAStarSortsNothing) {
  EXPECT_TRUE(Parse({"SORT", "k", "BY", "nosort"})->dont_sort);
  EXPECT_TRUE(Parse({"SORT", "k", "BY", "x\0*"s})->dont_sort);  // strchr stops at the NUL
  EXPECT_FALSE(Parse({"SORT", "k", "BY", "*"})->dont_sort);
  // Once a BY had no star, a later one with a star does not sort again (Redis keeps the flag).
  auto sticky = Parse({"SORT", "k", "BY", "nosort", "BY", "w_*"});
  EXPECT_TRUE(sticky->dont_sort);
  EXPECT_EQ(sticky->by, "w_*");
  EXPECT_TRUE(Parse({"SORT", "k", "BY", "w_*", "BY", "nosort"})->dont_sort);
}

TEST(ParseSortTest, ErrorsAsRedis) {
  EXPECT_EQ(Parse({"SORT", "k", "foo"}).status().code(), Code::kSyntax);
  EXPECT_EQ(Parse({"SORT", "k", "LIMIT", "1"}).status().code(), Code::kSyntax);
  EXPECT_EQ(Parse({"SORT", "k", "STORE"}).status().code(), Code::kSyntax);
  EXPECT_EQ(Parse({"SORT", "k", "BY"}).status().code(), Code::kSyntax);
  EXPECT_EQ(Parse({"SORT", "k", "GET"}).status().code(), Code::kSyntax);
  auto not_integer = Parse({"SORT", "k", "LIMIT", "a", "1"});
  EXPECT_EQ(not_integer.status().message(), "value is not an integer or out of range");
  EXPECT_EQ(Parse({"SORT", "k", "LIMIT", "0", "1.5"}).status().message(),
            "value is not an integer or out of range");
  // SORT_RO has no STORE.
  EXPECT_EQ(Parse({"SORT_RO", "k", "STORE", "d"}, true).status().code(), Code::kSyntax);
  EXPECT_TRUE(Parse({"SORT_RO", "k", "GET", "store"}, true).ok());
  // Keywords are C strings: "desc\0x" is DESC.
  EXPECT_TRUE(Parse({"SORT", "k", "desc\0x"s})->desc);
}

TEST(SortStoreKeysTest, AsRedisSortGetKeys) {
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k"}), Words{});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "STORE", "d"}), Words{"d"});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "store"}), Words{});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "GET", "store", "x", "STORE", "d", "STORE", "e"}),
            Words{"e"});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "LIMIT", "store", "x", "y"}), Words{});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "BY", "store", "x"}), Words{});
  // STORE's key is read as an option in turn.
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "STORE", "limit", "store", "x"}), Words{"limit"});
  EXPECT_EQ(SortStoreKeys(Words{"SORT", "k", "STORE", "store", "x"}), Words{"x"});
}

TEST(ResolvePatternTest, LookupKeyByPatternRules) {
  EXPECT_EQ(ResolvePattern("#", "e").kind, PatternTarget::Kind::kElement);
  EXPECT_EQ(ResolvePattern("#\0x"s, "e").kind, PatternTarget::Kind::kElement);
  EXPECT_EQ(ResolvePattern("##", "e").kind, PatternTarget::Kind::kNothing);
  EXPECT_EQ(ResolvePattern("nosort", "e").kind, PatternTarget::Kind::kNothing);
  EXPECT_EQ(ResolvePattern("a\0*"s, "e").kind, PatternTarget::Kind::kNothing);

  PatternTarget plain = ResolvePattern("w_*", "3");
  EXPECT_EQ(plain.kind, PatternTarget::Kind::kKey);
  EXPECT_EQ(plain.key, "w_3");
  EXPECT_FALSE(plain.field.has_value());
  // Only the first star is replaced.
  EXPECT_EQ(ResolvePattern("*x*", "e").key, "ex*");
  EXPECT_EQ(ResolvePattern("#*", "e").key, "#e");

  PatternTarget field = ResolvePattern("h_*->f", "1");
  EXPECT_EQ(field.key, "h_1");
  EXPECT_EQ(field.field, "f");
  // The first arrow after the star; the field is the rest.
  PatternTarget arrows = ResolvePattern("a->b*c->d->e", "X");
  EXPECT_EQ(arrows.key, "a->bXc");
  EXPECT_EQ(arrows.field, "d->e");
  // An arrow with nothing after it is part of the key.
  PatternTarget bare = ResolvePattern("h_*->", "1");
  EXPECT_EQ(bare.key, "h_1->");
  EXPECT_FALSE(bare.field.has_value());
  // NUL bytes: after the field's first byte they belong to the field; before the arrow they
  // hide it, and the whole pattern (NULs included) is the key.
  PatternTarget nul_field = ResolvePattern("h_*->f\0g"s, "1");
  EXPECT_EQ(nul_field.key, "h_1");
  EXPECT_EQ(nul_field.field, "f\0g"s);
  PatternTarget hidden = ResolvePattern("h_*\0->f"s, "1");
  EXPECT_EQ(hidden.key, "h_1\0->f"s);
  EXPECT_FALSE(hidden.field.has_value());
  EXPECT_EQ(ResolvePattern("*", "a\0b"s).key, "a\0b"s);
}

TEST(ParseSortScoreTest, StrtodRules) {
  double score = 0;
  EXPECT_TRUE(ParseSortScore("1.5", &score));
  EXPECT_EQ(score, 1.5);
  EXPECT_TRUE(ParseSortScore(" -2", &score));
  EXPECT_EQ(score, -2);
  EXPECT_TRUE(ParseSortScore("", &score));
  EXPECT_EQ(score, 0);
  EXPECT_TRUE(ParseSortScore("0x10", &score));
  EXPECT_EQ(score, 16);
  EXPECT_TRUE(ParseSortScore("inf", &score));
  EXPECT_TRUE(std::isinf(score));
  EXPECT_TRUE(ParseSortScore("-Infinity", &score));
  EXPECT_EQ(score, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseSortScore("7\0junk"s, &score));
  EXPECT_EQ(score, 7);
  EXPECT_FALSE(ParseSortScore("2 ", &score));
  EXPECT_FALSE(ParseSortScore("abc", &score));
  EXPECT_FALSE(ParseSortScore("nan", &score));
  EXPECT_FALSE(ParseSortScore("1e400", &score));
  EXPECT_FALSE(ParseSortScore("1e-400", &score));
}

TEST(LimitWindowTest, ClampedAsRedis7) {
  struct Row {
    int64_t offset, count;
    size_t length, start, n;
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const Row rows[] = {
      {0, -1, 4, 0, 4},   {1, 2, 4, 1, 2},       {-5, 2, 4, 0, 2},   {2, -1, 4, 2, 2},
      {0, 0, 4, 0, 0},    {5, 1, 4, 0, 0},       {4, 1, 4, 0, 0},    {3, 100, 4, 3, 1},
      {1, kMax, 4, 1, 3}, {kMax, kMax, 4, 0, 0}, {1, kMin, 4, 1, 3}, {0, 5, 0, 0, 0},
      {kMin, 1, 4, 0, 1},
  };
  for (const Row& row : rows) {
    SortWindow window = LimitWindow(row.offset, row.count, row.length);
    EXPECT_EQ(window.count, row.n) << row.offset << " " << row.count;
    if (row.n > 0) {
      EXPECT_EQ(window.start, row.start) << row.offset << " " << row.count;
    }
  }
}

std::vector<SortItem> Items(std::vector<std::string> elements) {
  std::vector<SortItem> items;
  for (std::string& e : elements) items.push_back({std::move(e), 0, std::nullopt});
  return items;
}

std::vector<std::string> Elements(const std::vector<SortItem>& items) {
  std::vector<std::string> out;
  for (const SortItem& item : items) out.push_back(item.element);
  return out;
}

using Strings = std::vector<std::string>;

TEST(SortItemsTest, NumericTiesGoByTheElementsBytes) {
  std::vector<SortItem> items = Items({"b", "10", "a", "ab", "2"});
  const double scores[] = {1, 10, 1, 1, 2};
  for (size_t i = 0; i < items.size(); ++i) items[i].score = scores[i];
  SortItems(items, SortMode::kNumeric, false, false, false);
  EXPECT_EQ(Elements(items), (Strings{"a", "ab", "b", "2", "10"}));
  SortItems(items, SortMode::kNumeric, false, false, true);
  EXPECT_EQ(Elements(items), (Strings{"10", "2", "b", "ab", "a"}));
}

TEST(SortItemsTest, AlphaComparesCStringsOrBytes) {
  // Without STORE, as strcoll in the C locale: "a\0z" and "a\0b" are both "a", a tie that
  // keeps their order; with STORE, bytes.
  std::vector<SortItem> items = Items({"b", "a\0z"s, "B", "a\0b"s, "a"});
  SortItems(items, SortMode::kAlpha, false, /*binary=*/false, false);
  EXPECT_EQ(Elements(items), (Strings{"B", "a\0z"s, "a\0b"s, "a", "b"}));
  SortItems(items, SortMode::kAlpha, false, /*binary=*/true, false);
  EXPECT_EQ(Elements(items), (Strings{"B", "a", "a\0b"s, "a\0z"s, "b"}));
}

TEST(SortItemsTest, AlphaByPutsMissingValuesFirstAndKeepsTies) {
  std::vector<SortItem> items = Items({"3", "1", "10", "2", "4"});
  items[1].by_value = "one";
  items[3].by_value = "two";
  items[4].by_value = "one";
  SortItems(items, SortMode::kAlpha, /*by_pattern=*/true, false, false);
  EXPECT_EQ(Elements(items), (Strings{"3", "10", "1", "4", "2"}));
  // DESC reverses the comparison, not the ties.
  SortItems(items, SortMode::kAlpha, true, false, true);
  EXPECT_EQ(Elements(items), (Strings{"2", "1", "4", "3", "10"}));
}

TEST(SortItemsTest, RandomNumericSortsMatchAReference) {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<SortItem> items;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      SortItem item;
      item.element = "e" + std::to_string(rng() % 20);
      item.score = static_cast<double>(static_cast<int>(rng() % 7) - 3);
      items.push_back(item);
    }
    const bool desc = rng() % 2 == 0;
    std::vector<SortItem> expected = items;
    std::sort(expected.begin(), expected.end(), [&](const SortItem& a, const SortItem& b) {
      if (a.score != b.score) return desc ? a.score > b.score : a.score < b.score;
      return desc ? a.element > b.element : a.element < b.element;
    });
    SortItems(items, SortMode::kNumeric, false, false, desc);
    ASSERT_EQ(Elements(items), Elements(expected)) << "round " << round;
  }
}

}  // namespace
}  // namespace sluice::server
