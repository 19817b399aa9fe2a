#include "resp/request_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::resp {
namespace {

using Args = std::vector<std::string_view>;

Args ArgsOf(const RequestBatch& batch, size_t i) {
  auto args = batch.args(i);
  return Args(args.begin(), args.end());
}

Args FirstKeys(const RequestBatch& batch, size_t room = 8) {
  Args out(room);
  out.resize(batch.FirstKeys(out));
  return out;
}

TEST(RequestBatchTest, ParsesEachCompleteRequestWithItsEnd) {
  const std::string set = "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\nv\r\n";
  const std::string ping = "*1\r\n$4\r\nPING\r\n";
  const std::string input = set + "*0\r\n" + ping;
  RequestParser parser;
  RequestBatch batch;
  batch.Parse(parser, input, 32);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(ArgsOf(batch, 0), (Args{"SET", "k1", "v"}));
  EXPECT_EQ(batch.end(0), set.size());
  EXPECT_TRUE(ArgsOf(batch, 1).empty());  // "*0": a request with nothing to run
  EXPECT_EQ(batch.end(1), set.size() + 4);
  EXPECT_EQ(ArgsOf(batch, 2), (Args{"PING"}));
  EXPECT_EQ(batch.end(2), input.size());
}

TEST(RequestBatchTest, ParsesAtMostTheRequestsAskedFor) {
  std::string input;
  for (int i = 0; i < 10; ++i) input += "*2\r\n$3\r\nGET\r\n$1\r\n" + std::to_string(i) + "\r\n";
  RequestParser parser;
  RequestBatch batch;
  batch.Parse(parser, input, 3);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(ArgsOf(batch, 2), (Args{"GET", "2"}));
  // A new Parse forgets the previous batch; the parser goes on from where it is told.
  batch.Parse(parser, std::string_view(input).substr(batch.end(2)), 32);
  ASSERT_EQ(batch.size(), 7u);
  EXPECT_EQ(ArgsOf(batch, 0), (Args{"GET", "3"}));
}

TEST(RequestBatchTest, StopsBeforeInlineIncompleteAndMalformedRequests) {
  const std::string first = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
  // Inline and malformed requests, with a good one after them; incomplete ones, at the end.
  for (std::string rest : {"GET b\r\n" + first, "*x\r\n" + first, "*2\r\n+OK\r\n" + first,
                           std::string("*2\r\n$3\r\nGET\r\n$1\r\n"),
                           std::string("*2\r\n$3\r\nGET\r\n$5\r\nab"), std::string("*2\r")}) {
    const std::string input = first + rest;
    RequestParser parser;
    RequestBatch batch;
    batch.Parse(parser, input, 32);
    ASSERT_EQ(batch.size(), 1u) << rest;
    EXPECT_EQ(ArgsOf(batch, 0), (Args{"GET", "a"}));
  }
  RequestParser parser;
  RequestBatch batch;
  batch.Parse(parser, "", 32);
  EXPECT_EQ(batch.size(), 0u);
}

TEST(RequestBatchTest, TheParserThenGivesTheSameAnswerForTheRequestItStoppedAt) {
  const std::string first = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
  {
    // Incomplete: the parser keeps its progress, and finishes once the rest arrives.
    const std::string input = first + "*2\r\n$3\r\nGET\r\n$3\r\nbc";
    RequestParser parser;
    RequestBatch batch;
    batch.Parse(parser, input, 32);
    ASSERT_EQ(batch.size(), 1u);
    const std::string rest = input.substr(batch.end(0)) + "d\r\n";
    size_t consumed = 0;
    Args args;
    EXPECT_EQ(parser.Parse(rest, &consumed, &args), RequestParser::Result::kOk);
    EXPECT_EQ(args, (Args{"GET", "bcd"}));
    EXPECT_EQ(consumed, rest.size());
  }
  {
    // Malformed: the parser stays failed, with Redis's error.
    const std::string input = first + "*2\r\n$3\r\nGET\r\n$-5\r\n";
    RequestParser parser;
    RequestBatch batch;
    batch.Parse(parser, input, 32);
    ASSERT_EQ(batch.size(), 1u);
    size_t consumed = 0;
    Args args;
    EXPECT_EQ(parser.Parse(std::string_view(input).substr(batch.end(0)), &consumed, &args),
              RequestParser::Result::kError);
    EXPECT_EQ(parser.error(), "Protocol error: invalid bulk length");
  }
}

TEST(RequestBatchTest, FirstKeysOfEachRequestThatHasOne) {
  const std::string input =
      "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\nv\r\n"
      "*1\r\n$4\r\nPING\r\n"  // no argument: nothing to look up
      "*2\r\n$3\r\nGET\r\n$0\r\n\r\n"
      "*5\r\n$14\r\nRL.FIXEDWINDOW\r\n$4\r\na\r\nb\r\n$2\r\n10\r\n$4\r\n1000\r\n$1\r\nx\r\n"
      "*0\r\n";
  RequestParser parser;
  RequestBatch batch;
  batch.Parse(parser, input, 32);
  ASSERT_EQ(batch.size(), 5u);
  EXPECT_EQ(FirstKeys(batch), (Args{"k1", "", "a\r\nb"}));
  EXPECT_EQ(FirstKeys(batch, 2), (Args{"k1", ""}));
}

TEST(RequestBatchTest, ScriptKeysFollowTheKeyCount) {
  EXPECT_EQ(FirstKeyHint(Args{"EVALSHA", "abc", "1", "k1", "x"}), "k1");
  EXPECT_EQ(FirstKeyHint(Args{"eval", "return 1", "0"}), std::nullopt);
  EXPECT_EQ(FirstKeyHint(Args{"evalsha", "abc", "0", "x"}), std::nullopt);
  EXPECT_EQ(FirstKeyHint(Args{"FCALL_RO", "f", "2", "k2"}), "k2");
  EXPECT_EQ(FirstKeyHint(Args{"GET", "k3"}), "k3");
  EXPECT_EQ(FirstKeyHint(Args{"PING"}), std::nullopt);
  EXPECT_EQ(FirstKeyHint(Args{}), std::nullopt);
}

}  // namespace
}  // namespace sluice::resp
