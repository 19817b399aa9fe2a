// INFO errorstats' counting: the code of an error line, as Redis 7.0's afterErrorReply.

#include "server/metrics/error_stats.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace sluice::server {
namespace {

using Counts = std::map<std::string, uint64_t, std::less<>>;

TEST(ErrorStatsTest, TheCodeIsTheFirstWordOfTheLine) {
  ErrorStats errors;
  errors.Count("ERR syntax error");
  errors.Count("WRONGTYPE Operation against a key holding the wrong kind of value");
  errors.Count("ERR value is not an integer or out of range");
  errors.Count("MYERR custom");
  EXPECT_EQ(errors.total(), 4u);
  EXPECT_EQ(errors.by_code(), (Counts{{"ERR", 2}, {"MYERR", 1}, {"WRONGTYPE", 1}}));
}

TEST(ErrorStatsTest, ALineWithoutASpaceInItsFirst32BytesCountsAsErr) {
  ErrorStats errors;
  errors.Count("NOPREFIX");
  errors.Count(std::string(32, 'A') + " late space");
  errors.Count(std::string(31, 'B') + " space at 31");
  EXPECT_EQ(errors.by_code(), (Counts{{"ERR", 2}, {std::string(31, 'B'), 1}}));
}

TEST(ErrorStatsTest, AStatusCountsUnderItsPrefixOrItsOwnCode) {
  ErrorStats errors;
  errors.Count(Status(Code::kNoScript, "No matching script. Please use EVAL."));
  errors.Count(Status(Code::kRaw, "BUSYKEY Target key name already exists."));
  errors.Count(Err("syntax error"));
  EXPECT_EQ(errors.by_code(), (Counts{{"BUSYKEY", 1}, {"ERR", 1}, {"NOSCRIPT", 1}}));
}

TEST(ErrorStatsTest, NewCodesPastTheLimitCountOnlyInTheTotal) {
  ErrorStats errors;
  for (size_t i = 0; i < ErrorStats::kMaxCodes + 5; ++i) {
    std::string line = "C";
    line.append(std::to_string(i)).append(" x");
    errors.Count(line);
  }
  errors.Count("C0 again");  // a code already listed still counts
  EXPECT_EQ(errors.total(), ErrorStats::kMaxCodes + 6);
  EXPECT_EQ(errors.by_code().size(), ErrorStats::kMaxCodes);
  EXPECT_EQ(errors.by_code().at("C0"), 2u);
  EXPECT_FALSE(errors.by_code().contains("C130"));
}

TEST(ErrorStatsTest, ARepeatedErrorIsNotCountedButIsTakenOnce) {
  ErrorStats errors;
  EXPECT_FALSE(errors.TakeRepeated());
  errors.CountRepeated();
  EXPECT_EQ(errors.total(), 0u);
  EXPECT_TRUE(errors.TakeRepeated());
  EXPECT_FALSE(errors.TakeRepeated());
}

}  // namespace
}  // namespace sluice::server
