#include "resp/number_format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace sluice::resp {
namespace {

TEST(RespNumberFormatTest, Integers) {
  char buf[kNumberBufferSize];
  EXPECT_EQ(FormatInt(0, buf), "0");
  EXPECT_EQ(FormatInt(-1, buf), "-1");
  EXPECT_EQ(FormatInt(INT64_MIN, buf), "-9223372036854775808");
  std::string out = "x";
  AppendInt(INT64_MAX, &out);
  EXPECT_EQ(out, "x9223372036854775807");
}

// FormatInt writes its digits by itself: it must agree with the standard library everywhere,
// above all where the length changes (9 and 10, 99 and 100, ...) and at the ends of the range.
TEST(RespNumberFormatTest, IntegersAgreeWithToChars) {
  std::vector<int64_t> values = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1};
  int64_t power = 1;
  for (int digits = 1; digits <= 19; ++digits) {
    std::vector<int64_t> around = {power - 1, power, power + 1, 2 * power - 1, 9 * power};
    if (digits < 19) around.push_back(10 * power - 1);  // 10^19 - 1 passes INT64_MAX
    for (int64_t v : around) {
      values.push_back(v);
      values.push_back(-v);
    }
    if (digits < 19) power *= 10;
  }
  std::mt19937_64 random(20261125);
  for (int i = 0; i < 100000; ++i) {
    // Every bit width alike, not mostly 19-digit numbers; at most 63 bits, so -v exists.
    const auto v = static_cast<int64_t>(random() >> (1 + random() % 63));
    values.push_back(v);
    values.push_back(-v);
  }
  for (int64_t v : values) {
    char expected[kNumberBufferSize];
    auto [end, ec] = std::to_chars(expected, expected + sizeof(expected), v);
    char buf[kNumberBufferSize];
    ASSERT_EQ(FormatInt(v, buf), std::string_view(expected, end - expected)) << v;
  }
}

TEST(RespNumberFormatTest, Doubles) {
  char buf[kNumberBufferSize];
  EXPECT_EQ(FormatDouble(0.1, buf), "0.10000000000000001");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity(), buf), "inf");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity(), buf), "-inf");
  EXPECT_EQ(FormatDouble(-1.7976931348623157e308, buf), "-1.7976931348623157e+308");
  EXPECT_EQ(FormatDouble(-2.2250738585072014e-308, buf), "-2.2250738585072014e-308");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN(), buf), "nan");
  std::string out;
  AppendDouble(2.0, &out);
  EXPECT_EQ(out, "2");
}

}  // namespace
}  // namespace sluice::resp
