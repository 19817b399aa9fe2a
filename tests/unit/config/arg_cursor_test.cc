#include "server/arg_cursor.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

constexpr std::string_view kNotInteger = "value is not an integer or out of range";
constexpr std::string_view kNotFloat = "value is not a valid float";

// ---- ParseInt64: Redis's string2ll ------------------------------------------------------------

struct IntCase {
  std::string_view text;
  bool ok;
  int64_t value;
};

TEST(ParseInt64Test, FollowsString2ll) {
  const IntCase cases[] = {
      {"0", true, 0},
      {"1", true, 1},
      {"-1", true, -1},
      {"42", true, 42},
      {"9223372036854775807", true, std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808", true, std::numeric_limits<int64_t>::min()},
      {"9223372036854775808", false, 0},   // INT64_MAX + 1
      {"-9223372036854775809", false, 0},  // INT64_MIN - 1
      {"18446744073709551615", false, 0},  // UINT64_MAX
      {"18446744073709551616", false, 0},  // UINT64_MAX + 1 (overflows the accumulator)
      {"99999999999999999999999", false, 0},
      {"+1", false, 0},
      {" 1", false, 0},
      {"1 ", false, 0},
      {"01", false, 0},
      {"00", false, 0},
      {"-0", false, 0},
      {"-01", false, 0},
      {"-", false, 0},
      {"", false, 0},
      {"1.0", false, 0},
      {"1e3", false, 0},
      {"0x10", false, 0},
      {"abc", false, 0},
      {"12a", false, 0},
      {std::string_view("1\0", 2), false, 0},
  };
  for (const IntCase& c : cases) {
    int64_t value = 12345;
    EXPECT_EQ(ParseInt64(c.text, &value), c.ok) << "'" << c.text << "'";
    if (c.ok) {
      EXPECT_EQ(value, c.value) << "'" << c.text << "'";
    } else {
      EXPECT_EQ(value, 12345) << "failed parse must not write: '" << c.text << "'";
    }
  }
}

TEST(ParseUint64Test, SameShapeWithoutSign) {
  uint64_t value = 0;
  EXPECT_TRUE(ParseUint64("18446744073709551615", &value));
  EXPECT_EQ(value, std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(ParseUint64("0", &value));
  EXPECT_EQ(value, 0u);
  EXPECT_FALSE(ParseUint64("18446744073709551616", &value));
  EXPECT_FALSE(ParseUint64("-1", &value));
  EXPECT_FALSE(ParseUint64("-0", &value));
  EXPECT_FALSE(ParseUint64("+1", &value));
  EXPECT_FALSE(ParseUint64("01", &value));
  EXPECT_FALSE(ParseUint64(" 1", &value));
  EXPECT_FALSE(ParseUint64("", &value));
}

// ---- ParseDouble: Redis's getDoubleFromObject -------------------------------------------------

TEST(ParseDoubleTest, AcceptsWhatStrtodAccepts) {
  struct Case {
    std::string_view text;
    double value;
  };
  const Case cases[] = {
      {"0", 0.0},  {"1.5", 1.5}, {"-2.25", -2.25}, {"+3", 3.0},  {"1e3", 1000.0}, {"1E-3", 0.001},
      {".5", 0.5}, {"5.", 5.0},  {"0x10", 16.0},   {"-0", -0.0}, {"007", 7.0},
  };
  for (const Case& c : cases) {
    double value = -99;
    ASSERT_TRUE(ParseDouble(c.text, &value)) << c.text;
    EXPECT_EQ(value, c.value) << c.text;
  }
}

// Plain integers take a path of their own (ParsePlainInteger); it must read every one as
// strtod does, bit for bit (the sign of zero too), and leave the rest to strtod.
TEST(ParseDoubleTest, PlainIntegersReadAsStrtodReadsThem) {
  const std::string_view texts[] = {"0",
                                    "-0",
                                    "7",
                                    "007",
                                    "-007",
                                    "1764698000123",
                                    "999999999999999",
                                    "-999999999999999",
                                    "9007199254740993",
                                    "12345678901234567890",
                                    "000000000000000000001",
                                    "-",
                                    "--1",
                                    "1-",
                                    "+1"};
  for (std::string_view text : texts) {
    const std::string copy(text);
    char* end = nullptr;
    const double expected = std::strtod(copy.c_str(), &end);
    const bool whole = *end == '\0';
    double value = -99;
    ASSERT_EQ(ParseDouble(text, &value), whole) << text;
    if (whole) {
      EXPECT_EQ(std::bit_cast<uint64_t>(value), std::bit_cast<uint64_t>(expected)) << text;
    }
  }
  double value = -99;
  EXPECT_TRUE(ParsePlainInteger("-0", &value));
  EXPECT_TRUE(std::signbit(value));
  EXPECT_FALSE(ParsePlainInteger("1234567890123456", &value)) << "16 digits: strtod's";
  EXPECT_FALSE(ParsePlainInteger("1.0", &value));
  EXPECT_FALSE(ParsePlainInteger("-", &value));
}

TEST(ParseDoubleTest, InfinitiesAreScoresButNanIsNot) {
  double value = 0;
  ASSERT_TRUE(ParseDouble("inf", &value));
  EXPECT_TRUE(std::isinf(value) && value > 0);
  ASSERT_TRUE(ParseDouble("+inf", &value));
  EXPECT_TRUE(std::isinf(value) && value > 0);
  ASSERT_TRUE(ParseDouble("-inf", &value));
  EXPECT_TRUE(std::isinf(value) && value < 0);
  ASSERT_TRUE(ParseDouble("-Infinity", &value));
  EXPECT_TRUE(std::isinf(value) && value < 0);
  value = 7;
  EXPECT_FALSE(ParseDouble("nan", &value));
  EXPECT_FALSE(ParseDouble("NaN", &value));
  EXPECT_FALSE(ParseDouble("-nan", &value));
  EXPECT_EQ(value, 7) << "a refused value must not be written";
}

TEST(ParseDoubleTest, RefusesRangeErrorsSpacesAndTrailingBytes) {
  double value = 0;
  EXPECT_FALSE(ParseDouble("1e400", &value)) << "overflow to HUGE_VAL";
  EXPECT_FALSE(ParseDouble("-1e400", &value));
  EXPECT_FALSE(ParseDouble("1e-400", &value)) << "underflow to zero";
  EXPECT_TRUE(ParseDouble("4e-320", &value)) << "a subnormal is kept, as Redis";
  EXPECT_GT(value, 0);
  EXPECT_FALSE(ParseDouble("", &value));
  EXPECT_FALSE(ParseDouble(" 1", &value));
  EXPECT_FALSE(ParseDouble("\t1", &value));
  EXPECT_FALSE(ParseDouble("1 ", &value));
  EXPECT_FALSE(ParseDouble("1.5x", &value));
  EXPECT_FALSE(ParseDouble("abc", &value));
  EXPECT_FALSE(ParseDouble(std::string_view("1\0", 2), &value));
}

TEST(ParseDoubleTest, LongInputsAreParsedWhole) {
  // Longer than the parser's stack buffer.
  std::string text = "1." + std::string(200, '0') + "1";
  double value = 0;
  ASSERT_TRUE(ParseDouble(text, &value));
  EXPECT_EQ(value, 1.0);
  text += "z";
  EXPECT_FALSE(ParseDouble(text, &value));
}

TEST(EqualsIgnoreCaseTest, AsciiOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("COST", "cost"));
  EXPECT_TRUE(EqualsIgnoreCase("CoSt", "cOsT"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("cost", "costs"));
  EXPECT_FALSE(EqualsIgnoreCase("cost", "cast"));
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));  // differ by 0x20 but are not letters
  EXPECT_FALSE(EqualsIgnoreCase("@", "`"));
}

// ---- ArgCursor -------------------------------------------------------------------------------

TEST(ArgCursorTest, WalksArgumentsInOrder) {
  const std::vector<std::string_view> args = {"key", "10", "-3", "2.5", "COST", "7"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.Remaining(), 6u);
  EXPECT_EQ(cur.Peek(), "key");
  EXPECT_EQ(cur.Next(), "key");
  EXPECT_EQ(cur.Next<int64_t>(), 10);
  EXPECT_EQ(cur.Next<int64_t>(), -3);
  EXPECT_EQ(cur.Next<double>(), 2.5);
  EXPECT_FALSE(cur.NextIf("LIMIT"));
  EXPECT_TRUE(cur.NextIf("cost"));
  EXPECT_EQ(cur.Next<uint64_t>(), 7u);
  EXPECT_TRUE(cur.Done());
  EXPECT_EQ(cur.Remaining(), 0u);
  EXPECT_TRUE(cur.ok());
  EXPECT_TRUE(cur.status().ok());
}

TEST(ArgCursorTest, NextStringViewIsRaw) {
  const std::vector<std::string_view> args = {" 01 "};
  ArgCursor cur(args);
  EXPECT_EQ(cur.Next<std::string_view>(), " 01 ");
  EXPECT_TRUE(cur.ok());
}

TEST(ArgCursorTest, ExhaustionIsASyntaxError) {
  const std::vector<std::string_view> args = {"only"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.Next(), "only");
  EXPECT_EQ(cur.Next(), "");
  EXPECT_FALSE(cur.ok());
  EXPECT_EQ(cur.status().code(), Code::kSyntax);
  EXPECT_EQ(cur.status().message(), "syntax error");
}

TEST(ArgCursorTest, TypedExhaustionIsASyntaxError) {
  ArgCursor cur(Args{});
  EXPECT_EQ(cur.Next<int64_t>(), 0);
  EXPECT_EQ(cur.status().code(), Code::kSyntax);
}

TEST(ArgCursorTest, IntegerEdges) {
  const std::vector<std::string_view> args = {"9223372036854775807", "-9223372036854775808"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.Next<int64_t>(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(cur.Next<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(cur.ok());
}

TEST(ArgCursorTest, BadIntegersLatchRedisText) {
  for (std::string_view bad :
       {"9223372036854775808", "-9223372036854775809", "+1", " 1", "01", "-0", "1.0", ""}) {
    const std::vector<std::string_view> args = {bad, "5"};
    ArgCursor cur(args);
    EXPECT_EQ(cur.Next<int64_t>(), 0) << "'" << bad << "'";
    EXPECT_FALSE(cur.ok()) << "'" << bad << "'";
    EXPECT_EQ(cur.status().code(), Code::kErr);
    EXPECT_EQ(cur.status().message(), kNotInteger);
    EXPECT_EQ(cur.Remaining(), 1u) << "the bad value is consumed";
  }
}

TEST(ArgCursorTest, BadUnsignedLatchesIntegerText) {
  const std::vector<std::string_view> args = {"-1"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.Next<uint64_t>(), 0u);
  EXPECT_EQ(cur.status().message(), kNotInteger);
}

TEST(ArgCursorTest, BadFloatsLatchRedisText) {
  for (std::string_view bad : {"nan", "1e400", "abc", " 1", ""}) {
    const std::vector<std::string_view> args = {bad};
    ArgCursor cur(args);
    EXPECT_EQ(cur.Next<double>(), 0.0) << "'" << bad << "'";
    EXPECT_EQ(cur.status().code(), Code::kErr);
    EXPECT_EQ(cur.status().message(), kNotFloat) << "'" << bad << "'";
  }
}

TEST(ArgCursorTest, CustomMessagesAndSignChecks) {
  const std::vector<std::string_view> args = {"5", "0", "0", "-1"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.NextPositive("capacity must be a positive integer"), 5);
  EXPECT_EQ(cur.NextNonNegative("cost must be a non-negative integer"), 0);
  EXPECT_TRUE(cur.ok());
  EXPECT_EQ(cur.NextPositive("capacity must be a positive integer"), 0);
  EXPECT_FALSE(cur.ok());
  EXPECT_EQ(cur.status().code(), Code::kErr);
  EXPECT_EQ(cur.status().message(), "capacity must be a positive integer");
}

TEST(ArgCursorTest, NextNonNegativeRefusesNegative) {
  const std::vector<std::string_view> args = {"-1"};
  ArgCursor cur(args);
  EXPECT_EQ(cur.NextNonNegative("cost must be a non-negative integer"), 0);
  EXPECT_EQ(cur.status().message(), "cost must be a non-negative integer");
}

TEST(ArgCursorTest, NextIntUsesCustomMessageForGarbageAndSyntaxForExhaustion) {
  const std::vector<std::string_view> args = {"x"};
  ArgCursor garbage(args);
  garbage.NextInt("window must be an integer");
  EXPECT_EQ(garbage.status().message(), "window must be an integer");

  ArgCursor empty(Args{});
  empty.NextInt("window must be an integer");
  EXPECT_EQ(empty.status().code(), Code::kSyntax);
}

TEST(ArgCursorTest, FirstErrorWinsAndLaterCallsAreInert) {
  const std::vector<std::string_view> args = {"abc", "COST", "5", "x"};
  ArgCursor cur(args);
  cur.Next<int64_t>();  // latches "not an integer"
  EXPECT_TRUE(cur.Done()) << "an error ends option loops";
  EXPECT_EQ(cur.Peek(), "");
  EXPECT_FALSE(cur.NextIf("COST")) << "keywords do not match after an error";
  EXPECT_EQ(cur.Next(), "");
  EXPECT_EQ(cur.Next<double>(), 0.0);
  cur.Fail(SyntaxError());
  cur.Fail(Err("later"));
  EXPECT_EQ(cur.status().code(), Code::kErr);
  EXPECT_EQ(cur.status().message(), kNotInteger);
  EXPECT_EQ(cur.Remaining(), 3u) << "nothing consumed after the error";
}

TEST(ArgCursorTest, FailWithOkStatusIsIgnored) {
  ArgCursor cur(Args{});
  cur.Fail(Status::Ok());
  EXPECT_TRUE(cur.ok());
  cur.Fail(SyntaxError());
  EXPECT_EQ(cur.status().code(), Code::kSyntax);
}

TEST(ArgCursorTest, OptionLoopEndsOnUnknownKeyword) {
  const std::vector<std::string_view> args = {"COST", "2", "BOGUS", "COST", "3"};
  ArgCursor cur(args);
  int64_t cost = 1;
  int iterations = 0;
  while (!cur.Done()) {
    ASSERT_LT(++iterations, 10) << "the loop must end";
    if (cur.NextIf("COST")) {
      cost = cur.NextNonNegative("cost must be a non-negative integer");
    } else {
      cur.Fail(SyntaxError());
    }
  }
  EXPECT_EQ(cost, 2);
  EXPECT_EQ(cur.status().code(), Code::kSyntax);
  EXPECT_EQ(cur.status().message(), "syntax error");
}

TEST(ArgCursorTest, NextIfAtEndIsFalseWithoutError) {
  ArgCursor cur(Args{});
  EXPECT_FALSE(cur.NextIf("COST"));
  EXPECT_TRUE(cur.ok());
}

}  // namespace
}  // namespace sluice::server
