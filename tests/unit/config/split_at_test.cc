#include "common/split_at.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace sluice {
namespace {

using Parts = std::vector<std::string_view>;

// Redis's sdssplitlen returns no elements for a zero length: an empty file has no lines.
TEST(SplitAtTest, EmptyTextHasNoParts) { EXPECT_EQ(SplitAt("", '\n'), Parts{}); }

TEST(SplitAtTest, TextWithoutSeparatorIsOnePart) {
  EXPECT_EQ(SplitAt("port 7000", '\n'), Parts{"port 7000"});
}

TEST(SplitAtTest, LastLineWithoutFinalNewlineIsKept) {
  EXPECT_EQ(SplitAt("a\nb", '\n'), (Parts{"a", "b"}));
}

// A final "\n" is followed by one more, empty, line, as in Redis.
TEST(SplitAtTest, FinalNewlineEndsWithAnEmptyPart) {
  EXPECT_EQ(SplitAt("a\nb\n", '\n'), (Parts{"a", "b", ""}));
  EXPECT_EQ(SplitAt("\n", '\n'), (Parts{"", ""}));
}

TEST(SplitAtTest, EverySeparatorSplits) {
  EXPECT_EQ(SplitAt("a\n\nb", '\n'), (Parts{"a", "", "b"}));
  EXPECT_EQ(SplitAt("user  alice", ' '), (Parts{"user", "", "alice"}));
}

// The caller trims: a CRLF file's lines keep their "\r".
TEST(SplitAtTest, CarriageReturnStaysInItsLine) {
  EXPECT_EQ(SplitAt("a\r\nb\r\n", '\n'), (Parts{"a\r", "b\r", ""}));
}

}  // namespace
}  // namespace sluice
