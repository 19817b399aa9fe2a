// The blocking pops' arguments as Redis 7.0.15 reads them: the timeout (seconds as a long
// double, rounded up to ms) and LMPOP/ZMPOP's numkeys form. The expected texts and values were
// taken from a real redis-server 7.0.15.

#include "server/commands/blocking_pops.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

std::string TimeoutError(std::string_view arg) {
  auto parsed = ParseBlockTimeout(arg);
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(ParseBlockTimeoutTest, SecondsRoundedUpToMilliseconds) {
  const std::pair<std::string_view, int64_t> rows[] = {
      {"0", 0},       {"1", 1000},   {"0.1", 100},  {"0.0001", 1},
      {"1e-9", 1},    {"0.0015", 2}, {"2.5", 2500}, {"0x10", 16000},
      {"-0.0001", 0}, {"-0", 0},     {"1e-400", 1}, {"9223372036854775", 9223372036854775000}};
  for (const auto& [arg, ms] : rows) {
    auto parsed = ParseBlockTimeout(arg);
    ASSERT_TRUE(parsed.ok()) << arg << ": " << parsed.status().message();
    EXPECT_EQ(*parsed, ms) << arg;
  }
}

TEST(ParseBlockTimeoutTest, RedisErrors) {
  for (std::string_view arg : {"abc", "", " 1", "1 ", "nan", "0x", "1e"}) {
    EXPECT_EQ(TimeoutError(arg), "timeout is not a float or out of range") << arg;
  }
  // Negative, and (as Redis's cast to long long makes them) past the 64-bit range of ms.
  for (std::string_view arg : {"-1", "-0.002", "-0.5", "inf", "-inf", "1e30", "1e400",
                               "9223372036854775.808", "9223372036854776"}) {
    EXPECT_EQ(TimeoutError(arg), "timeout is negative") << arg;
  }
}

StatusOr<MultiPopArgs> Parse(std::vector<std::string_view> args, size_t numkeys_index = 1) {
  return ParseMultiPop(args, numkeys_index, "left", "right");
}

std::string ParseError(std::vector<std::string_view> args) {
  auto parsed = Parse(std::move(args));
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(ParseMultiPopTest, KeysEndAndCount) {
  auto parsed = Parse({"lmpop", "2", "a", "b", "RIGHT", "COUNT", "7"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->keys, (std::vector<std::string_view>{"a", "b"}));
  EXPECT_TRUE(parsed->second_end);
  EXPECT_EQ(parsed->count, 7u);
  parsed = Parse({"blmpop", "0.5", "1", "left", "Left"}, 2);  // a key may be called "left"
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->keys, (std::vector<std::string_view>{"left"}));
  EXPECT_FALSE(parsed->second_end);
  EXPECT_EQ(parsed->count, 1u);
}

TEST(ParseMultiPopTest, RedisErrorsInRedisOrder) {
  const std::string kNumKeys = "numkeys should be greater than 0";
  const std::string kCount = "count should be greater than 0";
  const std::string kSyntax = "syntax error";
  EXPECT_EQ(ParseError({"lmpop", "0", "a", "left"}), kNumKeys);
  EXPECT_EQ(ParseError({"lmpop", "-1", "a", "left"}), kNumKeys);
  EXPECT_EQ(ParseError({"lmpop", "x", "a", "middle"}), kNumKeys);
  EXPECT_EQ(ParseError({"lmpop", "2", "a", "left"}), kSyntax);  // the end is taken as a key
  EXPECT_EQ(ParseError({"lmpop", "9223372036854775807", "a", "left"}), kSyntax);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "middle", "count", "0"}), kSyntax);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "left", "count"}), kSyntax);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "left", "count", "0"}), kCount);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "left", "count", "x"}), kCount);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "left", "count", "1", "count", "2"}), kSyntax);
  EXPECT_EQ(ParseError({"lmpop", "1", "a", "left", "extra"}), kSyntax);
}

}  // namespace
}  // namespace sluice::server
