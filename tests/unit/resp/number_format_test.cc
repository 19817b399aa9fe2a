#include "resp/number_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

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
