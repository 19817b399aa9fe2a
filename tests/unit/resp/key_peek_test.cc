#include "resp/key_peek.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::resp {
namespace {

std::vector<std::string_view> Peek(std::string_view input, size_t room = 8) {
  std::vector<std::string_view> out(room);
  out.resize(PeekKeys(input, out));
  return out;
}

TEST(KeyPeekTest, FirstArgumentOfEachPipelinedRequest) {
  const std::string input =
      "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\nv\r\n"
      "*1\r\n$4\r\nPING\r\n"  // no argument: nothing to look up
      "*2\r\n$3\r\nGET\r\n$0\r\n\r\n"
      "*5\r\n$14\r\nRL.FIXEDWINDOW\r\n$4\r\na\r\nb\r\n$2\r\n10\r\n$4\r\n1000\r\n$1\r\nx\r\n";
  EXPECT_EQ(Peek(input), (std::vector<std::string_view>{"k1", "", "a\r\nb"}));
}

TEST(KeyPeekTest, ScriptKeysFollowTheKeyCount) {
  const std::string input =
      "*5\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$2\r\nk1\r\n$1\r\nx\r\n"
      "*3\r\n$4\r\neval\r\n$8\r\nreturn 1\r\n$1\r\n0\r\n"  // no keys
      "*4\r\n$7\r\nevalsha\r\n$3\r\nabc\r\n$1\r\n0\r\n$1\r\nx\r\n"  // no keys
      "*4\r\n$8\r\nFCALL_RO\r\n$1\r\nf\r\n$1\r\n2\r\n$2\r\nk2\r\n"
      "*2\r\n$3\r\nGET\r\n$2\r\nk3\r\n";
  EXPECT_EQ(Peek(input), (std::vector<std::string_view>{"k1", "k2", "k3"}));
}

TEST(KeyPeekTest, StopsWhereRequestsStopBeingCompleteOrWellFormed) {
  const std::string first = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
  EXPECT_EQ(Peek(first + "*2\r\n$3\r\nGET\r\n$1\r\n"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "*2\r\n$3\r\nGET\r\n$5\r\nab"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "*2\r"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "GET b\r\n" + first), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "*x\r\n" + first), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "*2\r\n$-1\r\n" + first), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(Peek(first + "*2\r\n+OK\r\n" + first), (std::vector<std::string_view>{"a"}));
  EXPECT_TRUE(Peek("").empty());
}

TEST(KeyPeekTest, FillsAtMostTheRoomGiven) {
  std::string input;
  for (int i = 0; i < 10; ++i) input += "*2\r\n$3\r\nGET\r\n$1\r\n" + std::to_string(i) + "\r\n";
  EXPECT_EQ(Peek(input, 3), (std::vector<std::string_view>{"0", "1", "2"}));
}

TEST(KeyPeekTest, LooksAtNoMoreRequestsThanItHasRoomFor) {
  std::string input;
  for (int i = 0; i < 40; ++i) input += "*1\r\n$4\r\nPING\r\n";
  input += "*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
  EXPECT_TRUE(Peek(input, 8).empty());
  EXPECT_EQ(Peek(input, 41), (std::vector<std::string_view>{"a"}));
}

TEST(KeyPeekTest, DoesNotWalkThroughRequestsWithManyArguments) {
  std::string many = "*100\r\n";
  for (int i = 0; i < 100; ++i) many += "$1\r\nx\r\n";
  EXPECT_TRUE(Peek(many + "*2\r\n$3\r\nGET\r\n$1\r\na\r\n").empty());
}

}  // namespace
}  // namespace sluice::resp
