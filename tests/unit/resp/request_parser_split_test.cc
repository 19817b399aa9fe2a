// The parser's answer must not depend on how the bytes arrive: every stream here is fed split at
// every byte position (and pairs of positions, and one byte at a time) and must give exactly what
// the whole stream gives.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "parser_harness.h"
#include "resp/error_messages.h"
#include "resp/request_parser.h"

namespace sluice::resp {
namespace {

using Result = RequestParser::Result;
using std::string_literals::operator""s;
using harness::Feed;
using harness::Outcome;
using harness::Strings;
using Commands = std::vector<std::vector<std::string>>;

std::string Pipeline() {
  std::string s;
  s += "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$8\r\nv\r\nal\0ue\r\n"s;
  s += "PING\r\n";
  s += "\r\n";
  s += "\n";
  s += "  \t \r\n";
  s += "*0\r\n";
  s += "*-1\r\n";
  s += "set \"a b\" 'c\\'d' \"\\x41\\n\\\\\"\n";
  s += "*1\r\n$0\r\n\r\n";
  s += "echo a\"b c\"\r\n";
  s += "*2\r\n$4\r\nECHO\r\n$2\r\n\r\n\r\n";
  s += "GET k\n";
  return s;
}

std::vector<size_t> OneByteCuts(size_t n) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < n; ++i) cuts.push_back(i);
  return cuts;
}

TEST(ParserSplitTest, PipelineWhole) {
  const std::string stream = Pipeline();
  Outcome whole = Feed(stream, {});
  EXPECT_EQ(whole.error, "");
  EXPECT_EQ(whole.unconsumed, 0u);
  EXPECT_EQ(whole.empty_requests, 5u);
  EXPECT_EQ(Strings(whole, stream), (Commands{{"SET", "key", std::string("v\r\nal\0ue", 8)},
                                              {"PING"},
                                              {"set", "a b", "c'd", "A\n\\"},
                                              {""},
                                              {"echo", "ab c"},
                                              {"ECHO", "\r\n"},
                                              {"GET", "k"}}));
}

TEST(ParserSplitTest, PipelineAtEverySplit) {
  const std::string stream = Pipeline();
  const Outcome whole = Feed(stream, {});
  for (size_t i = 0; i <= stream.size(); ++i) {
    ASSERT_EQ(Feed(stream, {i}), whole) << "split at " << i;
  }
}

TEST(ParserSplitTest, PipelineAtEveryPairOfSplits) {
  const std::string stream = Pipeline();
  const Outcome whole = Feed(stream, {});
  for (size_t i = 0; i <= stream.size(); ++i) {
    for (size_t j = i; j <= stream.size(); ++j) {
      ASSERT_EQ(Feed(stream, {i, j}), whole) << "splits at " << i << ", " << j;
    }
  }
}

TEST(ParserSplitTest, PipelineOneByteAtATime) {
  const std::string stream = Pipeline();
  EXPECT_EQ(Feed(stream, OneByteCuts(stream.size())), Feed(stream, {}));
}

std::string MegabyteBulkStream() {
  std::mt19937 rng(7);
  std::string value(1 << 20, '\0');
  for (char& c : value) c = static_cast<char>(rng());
  for (size_t i = 0; i + 1 < value.size(); i += 4093) value.replace(i, 2, "\r\n");
  return "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n" + value + "\r\nPING\r\n";
}

// What Feed records, reduced to a few numbers so that a million splits allocate nothing.
struct Summary {
  Result last = Result::kNeedMore;
  size_t commands = 0;
  uint64_t hash = 0;  // over each argument's place in the stream, or its bytes if elsewhere
  size_t unconsumed = 0;
  bool operator==(const Summary&) const = default;
};

Summary FeedInTwo(RequestParser& parser, std::vector<std::string_view>& args,
                  std::string_view stream, size_t cut) {
  parser.Reset();
  Summary s;
  size_t pos = 0;
  for (size_t end : {cut, stream.size()}) {
    while (pos < end) {
      size_t used = 0;
      s.last = parser.Parse(stream.substr(pos, end - pos), &used, &args);
      if (s.last != Result::kOk) break;
      pos += used;
      ++s.commands;
      for (std::string_view a : args) {
        bool in_stream = a.data() >= stream.data() && a.data() < stream.data() + stream.size();
        uint64_t v = in_stream ? static_cast<uint64_t>(a.data() - stream.data()) * 31 + a.size()
                               : std::hash<std::string_view>()(a);
        s.hash = s.hash * 1000003 + v;
      }
    }
    if (s.last == Result::kError) break;
  }
  s.unconsumed = stream.size() - pos;
  return s;
}

TEST(ParserSplitTest, MegabyteBulkAtEverySplit) {
  const std::string stream = MegabyteBulkStream();
  const Outcome whole = Feed(stream, {});
  ASSERT_EQ(whole.commands.size(), 2u);
  ASSERT_EQ(whole.commands[0].size(), 3u);
  // Zero copy: the argument is the stream's own bytes.
  const auto value_at = static_cast<std::ptrdiff_t>(stream.find("$1048576\r\n") + 10);
  EXPECT_EQ(whole.commands[0][2].offset, value_at);
  EXPECT_EQ(whole.commands[0][2].size, 1u << 20);
  EXPECT_EQ(whole.unconsumed, 0u);

  RequestParser parser;
  std::vector<std::string_view> args;
  const Summary expected = FeedInTwo(parser, args, stream, stream.size());
  ASSERT_EQ(expected.commands, 2u);
  // Feed and FeedInTwo agree in detail where it is cheap to check.
  for (size_t i : {size_t{0}, size_t{5}, size_t{31}, size_t{1000}, stream.size() - 7}) {
    ASSERT_TRUE(Feed(stream, {i}) == whole) << "split at " << i;
  }
  for (size_t i = 0; i <= stream.size(); ++i) {
    Summary got = FeedInTwo(parser, args, stream, i);
    if (!(got == expected)) FAIL() << "split at " << i;
  }
}

TEST(ParserSplitTest, MegabyteBulkOneByteAtATime) {
  const std::string stream = MegabyteBulkStream();
  EXPECT_TRUE(Feed(stream, OneByteCuts(stream.size())) == Feed(stream, {}));
}

TEST(ParserSplitTest, MillionArgumentsInSmallReadsIsLinear) {
  constexpr size_t kArgs = 1'000'000;
  std::string stream = "*" + std::to_string(kArgs) + "\r\n";
  for (size_t i = 0; i < kArgs; ++i) stream += "$1\r\nx\r\n";
  std::vector<size_t> cuts;
  for (size_t i = 1024; i < stream.size(); i += 1024) cuts.push_back(i);

  // A parser that re-parsed the arguments it already had at every read would do ~3.5e9
  // argument parses here (minutes); a resumable one does 1e6.
  auto start = std::chrono::steady_clock::now();
  Outcome out = Feed(stream, cuts);
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.commands.size(), 1u);
  EXPECT_EQ(out.commands[0].size(), kArgs);
  EXPECT_EQ(out.commands[0].back().offset, static_cast<std::ptrdiff_t>(stream.size() - 3));
  EXPECT_LT(seconds, 30.0);
}

// Malformed streams give the same error wherever they are split.
TEST(ParserSplitTest, ErrorsAtEverySplit) {
  const std::vector<std::string> streams = {
      "PING\r\n*abc\r\n",
      "*2\r\n$3\r\nGET\r\n$-1\r\n",
      "*1\r\n$536870913\r\nxx",
      "*2\r\n$1\r\na\r\n:1\r\n",
      "PING\nset \"a b\r\nPING\r\n",
      "echo 'x'y\n",
      "*1\r\n\r\n",
  };
  for (const std::string& stream : streams) {
    const Outcome whole = Feed(stream, {});
    ASSERT_EQ(whole.last, Result::kError) << stream;
    for (size_t i = 0; i <= stream.size(); ++i) {
      ASSERT_EQ(Feed(stream, {i}), whole) << ::testing::PrintToString(stream) << " split at " << i;
    }
    EXPECT_EQ(Feed(stream, OneByteCuts(stream.size())), whole) << stream;
  }
}

// Lines at and just over the 64 KB limit, split near the limit and at a sample elsewhere.
TEST(ParserSplitTest, LineLimitDoesNotDependOnSplits) {
  const size_t max = ParserLimits{}.max_line_len;
  const std::vector<std::string> streams = {
      std::string(max, 'a') + "\r\nPING\r\n",    // fine
      std::string(max, 'a') + "b\r\n",           // too big, newline present
      std::string(max + 1, 'a'),                 // too big, no newline yet
      std::string(max, 'a') + "\r",              // fine so far
      "*" + std::string(max - 1, '1') + "\r\n",  // count line at the limit: invalid number
      "*" + std::string(max, '1') + "\r\n",      // too big count line
      "*1\r\n$" + std::string(max, '1'),         // too big bulk line
  };
  for (const std::string& stream : streams) {
    const Outcome whole = Feed(stream, {});
    std::vector<size_t> points;
    for (size_t i = 0; i <= stream.size(); i += 1021) points.push_back(i);
    for (size_t i = max - 8; i <= stream.size(); ++i) points.push_back(i);
    for (size_t i : points) {
      ASSERT_EQ(Feed(stream, {i}), whole)
          << stream.substr(0, 8) << "... size " << stream.size() << " split at " << i;
    }
  }
}

}  // namespace
}  // namespace sluice::resp
