// LCS's table and walk: Redis's documented example (checked against redis-server 7.0.15),
// edge cases, and random strings against a brute-force reference.

#include "server/commands/lcs_ops.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sluice::server {
namespace {

using Matches = std::vector<LcsMatch>;

LcsResult Lcs(std::string_view a, std::string_view b, int64_t min_match_len = 0) {
  std::optional<LcsResult> result = ComputeLcs(a, b, true, true, min_match_len);
  EXPECT_TRUE(result.has_value());
  return result ? *result : LcsResult{};
}

TEST(LcsOpsTest, RedisDocumentationExample) {
  LcsResult result = Lcs("ohmytext", "mynewtext");
  EXPECT_EQ(result.length, 6u);
  EXPECT_EQ(result.subsequence, "mytext");
  EXPECT_EQ(result.matches, (Matches{{4, 7, 5, 8}, {2, 3, 0, 1}}));
  EXPECT_EQ(result.matches[0].length(), 4u);
  EXPECT_EQ(Lcs("ohmytext", "mynewtext", 4).matches, (Matches{{4, 7, 5, 8}}));
  EXPECT_EQ(Lcs("ohmytext", "mynewtext", 5).matches, Matches{});
  EXPECT_EQ(Lcs("ohmytext", "mynewtext", -5).matches.size(), 2u);
}

TEST(LcsOpsTest, EmptyAndEqualStrings) {
  EXPECT_EQ(Lcs("", "").length, 0u);
  EXPECT_EQ(Lcs("abc", "").subsequence, "");
  EXPECT_EQ(Lcs("", "abc").matches, Matches{});
  LcsResult same = Lcs("abcd", "abcd");
  EXPECT_EQ(same.subsequence, "abcd");
  EXPECT_EQ(same.matches, (Matches{{0, 3, 0, 3}}));
  EXPECT_EQ(Lcs("abc", "xyz").length, 0u);
}

TEST(LcsOpsTest, LengthAloneSkipsTheWalk) {
  std::optional<LcsResult> result = ComputeLcs("ohmytext", "mynewtext", false, false, 0);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->length, 6u);
  EXPECT_EQ(result->subsequence, "");
  EXPECT_TRUE(result->matches.empty());
}

TEST(LcsOpsTest, TableBytes) {
  EXPECT_EQ(LcsTableBytes(511, 511), 1048576u);
  EXPECT_EQ(LcsTableBytes(0, 0), 4u);
  EXPECT_FALSE(LcsTableBytes(uint64_t{1} << 32, uint64_t{1} << 32).has_value());
}

// The LCS length by the textbook recursion, for checking.
uint32_t ReferenceLength(const std::string& a, const std::string& b) {
  std::vector<std::vector<uint32_t>> t(a.size() + 1, std::vector<uint32_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t[a.size()][b.size()];
}

bool IsSubsequence(const std::string& sub, const std::string& of) {
  size_t at = 0;
  for (char c : of) {
    if (at < sub.size() && sub[at] == c) ++at;
  }
  return at == sub.size();
}

TEST(LcsOpsTest, RandomStringsAgainstAReference) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    auto random_string = [&] {
      std::string s(rng() % 24, 'a');
      for (char& c : s) c = static_cast<char>('a' + rng() % 3);
      return s;
    };
    const std::string a = random_string();
    const std::string b = random_string();
    LcsResult result = Lcs(a, b);
    ASSERT_EQ(result.length, ReferenceLength(a, b)) << a << " " << b;
    ASSERT_EQ(result.subsequence.size(), result.length);
    ASSERT_TRUE(IsSubsequence(result.subsequence, a) && IsSubsequence(result.subsequence, b));
    // The ranges, last first, cover the subsequence: each is the same bytes in a and b, and
    // together (first to last) they spell it.
    std::string spelled;
    uint32_t previous_a = UINT32_MAX;
    for (auto it = result.matches.rbegin(); it != result.matches.rend(); ++it) {
      ASSERT_EQ(it->a_end - it->a_start, it->b_end - it->b_start);
      const std::string piece = a.substr(it->a_start, it->length());
      ASSERT_EQ(piece, b.substr(it->b_start, it->length()));
      if (previous_a != UINT32_MAX) {
        ASSERT_GT(it->a_start, previous_a);
      }
      previous_a = it->a_end;
      spelled += piece;
    }
    ASSERT_EQ(spelled, result.subsequence) << a << " " << b;
  }
}

}  // namespace
}  // namespace sluice::server
