#include "resp/number_format.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

// FormatDouble writes whole numbers below 10^17 through the integer path: it must agree with
// printf's "%.17g" on them, on their neighbours that are not whole, and where that path ends.
TEST(RespNumberFormatTest, DoublesAgreeWithPrintf) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                1e16,
                                1e17,
                                -1e17,
                                1e18,
                                9007199254740992.0,
                                9007199254740993.0,
                                1e-300,
                                5e-324,
                                std::nextafter(1e17, 0.0),
                                std::nextafter(1e17, 1e18),
                                std::nextafter(-1e17, 0.0)};
  std::mt19937_64 random(20261203);
  for (int i = 0; i < 100000; ++i) {
    // Whole numbers of every size up to 2^63, each with its neighbours (not whole while small).
    const auto whole = static_cast<double>(random() >> (1 + random() % 63));
    for (double v : {whole, std::nextafter(whole, 0.0), std::nextafter(whole, 1e300)}) {
      values.push_back(v);
      values.push_back(-v);
    }
    // And arbitrary bit patterns (NaNs and infinities included).
    values.push_back(std::bit_cast<double>(random()));
  }
  for (double v : values) {
    char expected[64];
    const int length = std::snprintf(expected, sizeof(expected), "%.17g", v);
    const std::string_view printed(expected, static_cast<size_t>(length));
    char buf[kNumberBufferSize];
    ASSERT_EQ(FormatDouble(v, buf), printed) << std::bit_cast<uint64_t>(v);
  }
}

}  // namespace
}  // namespace sluice::resp
