// Request parser: what each well-formed request yields and which error text each malformed one
// gets (checked by hand against redis-server 7.0.15).

#include "resp/request_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parser_harness.h"
#include "resp/error_messages.h"

namespace sluice::resp {
namespace {

using ::testing::ElementsAre;
using Result = RequestParser::Result;
using std::string_literals::operator""s;
using harness::Feed;
using harness::Strings;

using Commands = std::vector<std::vector<std::string>>;

Commands ParseAll(std::string_view stream) { return Strings(Feed(stream, {}), stream); }

std::string ErrorOf(std::string_view stream, const ParserLimits& limits = {},
                    bool authenticated = true) {
  harness::Outcome out = Feed(stream, {}, limits, authenticated);
  return out.last == Result::kError ? out.error : "(no error)";
}

TEST(ParserTest, MultibulkRequest) {
  RequestParser parser;
  std::string input = "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n";
  std::vector<std::string_view> args;
  size_t used = 0;
  ASSERT_EQ(parser.Parse(input, &used, &args), Result::kOk);
  EXPECT_EQ(used, 25u);
  EXPECT_THAT(args, ElementsAre("ECHO", "hello"));
  // Zero copy: the arguments are the input's own bytes.
  EXPECT_EQ(args[0].data(), input.data() + 8);
  EXPECT_EQ(args[1].data(), input.data() + 18);

  ASSERT_EQ(parser.Parse(std::string_view(input).substr(used), &used, &args), Result::kOk);
  EXPECT_THAT(args, ElementsAre("PING"));
  EXPECT_EQ(used, 14u);
}

TEST(ParserTest, BinarySafeBulks) {
  const std::string stream = "*3\r\n$3\r\nSET\r\n$1\r\n\0\r\n$6\r\na\r\nb\r\n\r\n"s;
  EXPECT_EQ(ParseAll(stream), (Commands{{"SET", std::string("\0", 1), std::string("a\r\nb\r\n")}}));
  EXPECT_EQ(ParseAll("*1\r\n$0\r\n\r\n"), (Commands{{""}}));
}

TEST(ParserTest, IncompleteRequestNeedsMore) {
  for (std::string_view partial :
       {"*", "*2", "*2\r", "*2\r\n", "*2\r\n$", "*2\r\n$3\r", "*2\r\n$3\r\nGE", "*2\r\n$3\r\nGET\r",
        "*2\r\n$3\r\nGET\r\n", "PING", "PING\r", "\"unterminated"}) {
    harness::Outcome out = Feed(partial, {});
    EXPECT_EQ(out.last, Result::kNeedMore) << partial;
    EXPECT_EQ(out.error, "") << partial;
    EXPECT_EQ(out.unconsumed, partial.size()) << partial;
  }
}

TEST(ParserTest, EmptyRequestsAreConsumedWithoutArguments) {
  harness::Outcome out = Feed("\r\n\n   \r\n*0\r\n*-1\r\n*-7\r\nPING\n", {});
  EXPECT_EQ(out.empty_requests, 6u);
  EXPECT_EQ(Strings(out, ""), (Commands{{"PING"}}));
  EXPECT_EQ(out.unconsumed, 0u);
}

TEST(ParserTest, InlineRequests) {
  EXPECT_EQ(ParseAll("PING\r\nset  k   v\n  get\tk \r\n"),
            (Commands{{"PING"}, {"set", "k", "v"}, {"get", "k"}}));
  EXPECT_EQ(ParseAll("echo \"a b\" 'c d' \"\\x41\\n\" 'it\\'s'\r\n"),
            (Commands{{"echo", "a b", "c d", "A\n", "it's"}}));
  // A '\r' that does not end the line separates arguments, as in sdssplitargs.
  EXPECT_EQ(ParseAll("a\rb\n"), (Commands{{"a", "b"}}));
  // Only "\n" and "\r\n" end a line; a lone '\r' at the end is kept waiting for its '\n'.
  EXPECT_EQ(Feed("PING\r", {}).last, Result::kNeedMore);
}

TEST(ParserTest, UnescapedInlineArgumentsLiveInParserStorage) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  std::string input = "SET \"k\\x00\" v\r\n";
  ASSERT_EQ(parser.Parse(input, &used, &args), Result::kOk);
  EXPECT_THAT(args, ElementsAre("SET", std::string_view("k\0", 2), "v"));
  EXPECT_EQ(used, input.size());
  input.assign(input.size(), '#');  // the caller may drop its bytes; the arguments stay
  EXPECT_THAT(args, ElementsAre("SET", std::string_view("k\0", 2), "v"));
}

TEST(ParserTest, RedisLeavesDelimitersAfterCrAndBulksUnchecked) {
  // redis-server 7.0 skips the byte after a header's '\r' and the two bytes after a bulk's data
  // without looking at them; sluice does the same (checked: both replies are +PONG).
  EXPECT_EQ(ParseAll("*1\rX$4\r\nPING\r\n"), (Commands{{"PING"}}));
  EXPECT_EQ(ParseAll("*1\r\n$4\r\nPINGXY*1\r\n$1\r\na\r\n"), (Commands{{"PING"}, {"a"}}));
}

struct ErrorCase {
  std::string input;
  std::string error;
};

TEST(ParserTest, MalformedRequestsGetRedisErrors) {
  const std::string big(70000, '1');
  const std::vector<ErrorCase> cases = {
      {"*abc\r\n", "Protocol error: invalid multibulk length"},
      {"*\r\n", "Protocol error: invalid multibulk length"},
      {"*-\r\n", "Protocol error: invalid multibulk length"},
      {"*-0\r\n", "Protocol error: invalid multibulk length"},
      {"*01\r\n", "Protocol error: invalid multibulk length"},
      {"*+1\r\n", "Protocol error: invalid multibulk length"},
      {"* 1\r\n", "Protocol error: invalid multibulk length"},
      {"*1 \r\n", "Protocol error: invalid multibulk length"},
      {"*2147483648\r\n", "Protocol error: invalid multibulk length"},
      {"*99999999999999999999\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$abc\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$+1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$01\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$536870913\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$99999999999\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\nfoo\r\n", "Protocol error: expected '$', got 'f'"},
      {"*1\r\n:1\r\n", "Protocol error: expected '$', got ':'"},
      {"*2\r\n$1\r\na\r\n*1\r\n", "Protocol error: expected '$', got '*'"},
      // The raw byte; the reply turns CR into a space, as Redis's does.
      {"*1\r\n\r\n", "Protocol error: expected '$', got '\r'"},
      {"*" + big, "Protocol error: too big mbulk count string"},
      {"*1\r\n$" + big, "Protocol error: too big bulk count string"},
      {std::string(70000, 'x'), "Protocol error: too big inline request"},
      {"set \"a b\r\n", "Protocol error: unbalanced quotes in request"},
      {"set 'a'b\r\n", "Protocol error: unbalanced quotes in request"},
      {"set a\"b\"c\r\n", "Protocol error: unbalanced quotes in request"},
      {"set 'a\n", "Protocol error: unbalanced quotes in request"},
      {"PING\r\nset \"a\n", "Protocol error: unbalanced quotes in request"},
  };
  for (const ErrorCase& c : cases) {
    EXPECT_EQ(ErrorOf(c.input), c.error) << ::testing::PrintToString(c.input.substr(0, 40));
  }
}

TEST(ParserTest, ErrorStatusRepliesAsErr) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  ASSERT_EQ(parser.Parse("*x\r\n", &used, &args), Result::kError);
  EXPECT_EQ(parser.error_status().code(), Code::kProtocol);
  EXPECT_EQ(parser.error_status().message(), kProtoInvalidMultibulkLen);
}

TEST(ParserTest, ErrorIsStickyUntilReset) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  ASSERT_EQ(parser.Parse("*1\r\n$x\r\n", &used, &args), Result::kError);
  EXPECT_EQ(parser.Parse("PING\r\n", &used, &args), Result::kError);
  EXPECT_EQ(parser.error(), kProtoInvalidBulkLen);
  parser.Reset();
  EXPECT_EQ(parser.error(), "");
  ASSERT_EQ(parser.Parse("PING\r\n", &used, &args), Result::kOk);
  EXPECT_THAT(args, ElementsAre("PING"));
}

TEST(ParserTest, HugeBulkRefusedFromHeaderAlone) {
  // No body follows: the header alone decides, before anything is reserved for it.
  EXPECT_EQ(ErrorOf("*1\r\n$99999999999\r\n"), kProtoInvalidBulkLen);
  ParserLimits small;
  small.max_bulk_len = 10;
  EXPECT_EQ(ErrorOf("*1\r\n$11\r\n", small), kProtoInvalidBulkLen);
  EXPECT_EQ(Feed("*1\r\n$10\r\n", {}, small).last, Result::kNeedMore);
  // At the default limit exactly, the request just waits for its body.
  EXPECT_EQ(Feed("*1\r\n$536870912\r\n", {}).last, Result::kNeedMore);
}

TEST(ParserTest, HugeCountWaitsWithoutReserving) {
  // INT32_MAX is allowed as in Redis; the parser must not size anything by it.
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  EXPECT_EQ(parser.Parse("*2147483647\r\n$1\r\na\r\n", &used, &args), Result::kNeedMore);
  ParserLimits limits;
  limits.max_multibulk_len = 3;
  EXPECT_EQ(ErrorOf("*4\r\n", limits), kProtoInvalidMultibulkLen);
  EXPECT_EQ(Feed("*3\r\n", {}, limits).last, Result::kNeedMore);
}

TEST(ParserTest, LineLengthLimit) {
  const size_t max = ParserLimits{}.max_line_len;
  ASSERT_EQ(max, 64u * 1024);
  // Inline: a line of exactly the limit is fine, one byte more is refused, with or without its
  // newline, whatever the pieces it arrives in.
  std::string at_limit(max, 'a');
  EXPECT_EQ(Feed(at_limit + "\r\n", {}).commands.size(), 1u);
  EXPECT_EQ(Feed(at_limit + "\r", {}).last, Result::kNeedMore);
  EXPECT_EQ(Feed(at_limit, {}).last, Result::kNeedMore);
  EXPECT_EQ(ErrorOf(at_limit + "a"), kProtoTooBigInline);
  EXPECT_EQ(ErrorOf(at_limit + "a\n"), kProtoTooBigInline);
  EXPECT_EQ(ErrorOf(at_limit + "a\r\n"), kProtoTooBigInline);

  // Header lines: the '*' or '$' and the digits up to '\r'.
  std::string count_line = "*" + std::string(max - 1, '1');
  EXPECT_EQ(Feed(count_line, {}).last, Result::kNeedMore);
  EXPECT_EQ(ErrorOf(count_line + "1"), kProtoTooBigMbulkCount);
  EXPECT_EQ(ErrorOf(count_line + "1\r\n"), kProtoTooBigMbulkCount);
  // Of the right length, it is judged as a number.
  EXPECT_EQ(ErrorOf(count_line + "\r\n"), kProtoInvalidMultibulkLen);

  std::string bulk_line = "*1\r\n$" + std::string(max - 1, '1');
  EXPECT_EQ(Feed(bulk_line, {}).last, Result::kNeedMore);
  EXPECT_EQ(ErrorOf(bulk_line + "1"), kProtoTooBigBulkCount);

  ParserLimits tiny;
  tiny.max_line_len = 4;
  EXPECT_EQ(Feed("abcd\r\n", {}, tiny).commands.size(), 1u);
  EXPECT_EQ(ErrorOf("abcde\r\n", tiny), kProtoTooBigInline);
  EXPECT_EQ(ErrorOf("*12345", tiny), kProtoTooBigMbulkCount);
  // Complete headers too, though their numbers are short and well formed.
  EXPECT_EQ(ErrorOf("*12345\r\n", tiny), kProtoTooBigMbulkCount);
  EXPECT_EQ(ErrorOf("*1\r\n$12345\r\n", tiny), kProtoTooBigBulkCount);
  EXPECT_EQ(Feed("*123", {}, tiny).last, Result::kNeedMore);
  // A bulk's data is not a line: only its header is limited.
  EXPECT_EQ(Feed("*1\r\n$10\r\n0123456789\r\n", {}, tiny).commands.size(), 1u);
}

TEST(ParserTest, UnauthenticatedLimits) {
  const bool kUnauth = false;
  EXPECT_EQ(ErrorOf("*11\r\n", {}, kUnauth), kProtoUnauthMultibulkLen);
  EXPECT_EQ(Feed("*10\r\n", {}, {}, kUnauth).last, Result::kNeedMore);
  EXPECT_EQ(ErrorOf("*1\r\n$16385\r\n", {}, kUnauth), kProtoUnauthBulkLen);
  EXPECT_EQ(Feed("*1\r\n$16384\r\n", {}, {}, kUnauth).last, Result::kNeedMore);
  // Redis checks validity before the authentication limits.
  EXPECT_EQ(ErrorOf("*1\r\n$-5\r\n", {}, kUnauth), kProtoInvalidBulkLen);
  EXPECT_EQ(ErrorOf("*99999999999\r\n", {}, kUnauth), kProtoInvalidMultibulkLen);
  // Empty requests and inline commands are not affected (beyond the line limit).
  EXPECT_EQ(Feed("*-3\r\n*0\r\n", {}, {}, kUnauth).empty_requests, 2u);
  std::string eleven_inline = "a b c d e f g h i j k\r\n";
  EXPECT_EQ(Feed(eleven_inline, {}, {}, kUnauth).commands.at(0).size(), 11u);
  // The same bytes are fine once authenticated.
  EXPECT_EQ(Feed("*11\r\n", {}).last, Result::kNeedMore);
}

TEST(ParserTest, AuthenticationChangesApplyToTheNextHeader) {
  RequestParser parser;
  parser.set_authenticated(false);
  std::vector<std::string_view> args;
  size_t used = 0;
  ASSERT_EQ(parser.Parse("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n", &used, &args), Result::kOk);
  parser.set_authenticated(true);
  std::string big = "*1\r\n$20000\r\n" + std::string(20000, 'v') + "\r\n";
  ASSERT_EQ(parser.Parse(big, &used, &args), Result::kOk);
  EXPECT_EQ(args.at(0).size(), 20000u);
}

TEST(ParserTest, BytesExpectedWhileReceivingABulk) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  EXPECT_EQ(parser.bytes_expected(), 0u);
  ASSERT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$1000\r\nab", &used, &args), Result::kNeedMore);
  // 20 bytes of headers and the first bulk, then 1000 bytes and "\r\n".
  EXPECT_EQ(parser.bytes_expected(), 20u + 1000 + 2);
  std::string full = "*2\r\n$3\r\nGET\r\n$1000\r\n" + std::string(1000, 'x') + "\r\n";
  ASSERT_EQ(parser.Parse(full, &used, &args), Result::kOk);
  EXPECT_EQ(used, full.size());
  EXPECT_EQ(parser.bytes_expected(), 0u);
}

TEST(ParserTest, ResetForgetsPartialRequest) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t used = 0;
  ASSERT_EQ(parser.Parse("*3\r\n$3\r\nSET\r\n", &used, &args), Result::kNeedMore);
  parser.Reset();
  ASSERT_EQ(parser.Parse("PING\r\n", &used, &args), Result::kOk);
  EXPECT_THAT(args, ElementsAre("PING"));
}

}  // namespace
}  // namespace sluice::resp
