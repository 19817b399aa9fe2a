#include "resp/short_length.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sluice::resp {
namespace {

constexpr size_t kNone = std::string_view::npos;

// The offset of the '\r' and the value, or kNone (value -1) when the general path must read it.
std::pair<size_t, int64_t> Read(std::string_view input, size_t pos = 1) {
  int64_t value = -1;
  size_t cr = ReadShortLength(input, pos, &value);
  return {cr, cr == kNone ? -1 : value};
}

TEST(ShortLengthTest, ReadsPositiveDecimalsEndedByCr) {
  EXPECT_EQ(Read("$14\r\nRL.FIXEDWINDOW"), std::make_pair(size_t{3}, int64_t{14}));
  EXPECT_EQ(Read("*3\r\n"), std::make_pair(size_t{2}, int64_t{3}));
  // Only "\r" and one more byte are needed: Redis does not look at the byte after '\r'.
  EXPECT_EQ(Read("*7\rx"), std::make_pair(size_t{2}, int64_t{7}));
  EXPECT_EQ(Read("x$1\r\n", 2), std::make_pair(size_t{3}, int64_t{1}));
  const std::string eighteen = "$" + std::string(18, '9') + "\r\n";
  EXPECT_EQ(Read(eighteen), std::make_pair(size_t{19}, int64_t{999'999'999'999'999'999}));
}

TEST(ShortLengthTest, LeavesEverythingElseToTheGeneralPath) {
  for (std::string_view input : {"$0\r\n", "$-1\r\n", "$01\r\n", "$+1\r\n", "$ 1\r\n", "$1 \r\n",
                                 "$1x\r\n", "$\r\n", "$1\n", "$12", "$12\r", "$", ""}) {
    EXPECT_EQ(Read(input).first, kNone) << input;
  }
  // Nineteen digits could overflow: the general parser judges them.
  EXPECT_EQ(Read("$" + std::string(19, '1') + "\r\n").first, kNone);
}

}  // namespace
}  // namespace sluice::resp
