// Inline argument splitting, case by case against sdssplitargs (and redis-server 7.0.15).

#include "resp/inline_args.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace sluice::resp {
namespace {

std::optional<std::vector<std::string>> Split(std::string_view line) {
  std::string storage;
  std::vector<ArgSpan> spans;
  if (!SplitInlineArgs(line, &storage, &spans)) return std::nullopt;
  std::vector<std::string> args;
  for (ArgSpan s : spans) args.push_back(storage.substr(s.offset, s.length));
  return args;
}

using Args = std::vector<std::string>;

TEST(ParserInlineTest, Blanks) {
  EXPECT_EQ(Split(""), Args{});
  EXPECT_EQ(Split(" \t\r\n\v\f"), Args{});
  EXPECT_EQ(Split("a b  c"), (Args{"a", "b", "c"}));
  EXPECT_EQ(Split("\t lead trail \t"), (Args{"lead", "trail"}));
  // \v and \f are skipped between arguments but do not end an unquoted one.
  EXPECT_EQ(Split("a\vb\fc d"), (Args{"a\vb\fc", "d"}));
  EXPECT_EQ(Split("a\rb"), (Args{"a", "b"}));
}

TEST(ParserInlineTest, DoubleQuotes) {
  EXPECT_EQ(Split("\"a b\""), (Args{"a b"}));
  EXPECT_EQ(Split("\"\""), (Args{""}));
  EXPECT_EQ(Split("\"\\n\\r\\t\\b\\a\\\\\\\"\\q\""), (Args{"\n\r\t\b\a\\\"q"}));
  EXPECT_EQ(Split("\"\\x41\\x4a\\x4A\\x00z\""), (Args{std::string("AJJ\0z", 5)}));
  // Not two hex digits: the backslash escapes the 'x'.
  EXPECT_EQ(Split("\"\\x4\""), (Args{"x4"}));
  EXPECT_EQ(Split("\"\\xg1\""), (Args{"xg1"}));
  // Quotes may open inside an argument.
  EXPECT_EQ(Split("a\"b c\""), (Args{"ab c"}));
  // A closing quote followed by any blank, \v included, ends the argument.
  EXPECT_EQ(Split("\"a\"\vb"), (Args{"a", "b"}));
  EXPECT_EQ(Split("\"a\" \"b\""), (Args{"a", "b"}));
}

TEST(ParserInlineTest, SingleQuotes) {
  EXPECT_EQ(Split("'a b'"), (Args{"a b"}));
  EXPECT_EQ(Split("'it\\'s'"), (Args{"it's"}));
  // Other backslashes are literal; one right before the closing quote escapes it.
  EXPECT_EQ(Split("'a\\nb\\\\x'"), (Args{"a\\nb\\\\x"}));
  EXPECT_EQ(Split("'a\\\\'"), std::nullopt);
  EXPECT_EQ(Split("'\"'"), (Args{"\""}));
}

TEST(ParserInlineTest, UnbalancedQuotes) {
  for (std::string_view line :
       {"\"abc", "'abc", "\"a\"b", "'a'b", "\"a\\\"", "'a\\'", "x \"", "\"\\"}) {
    EXPECT_EQ(Split(line), std::nullopt) << line;
  }
}

TEST(ParserInlineTest, NulIsAnOrdinaryByte) {
  EXPECT_EQ(Split(std::string_view("a\0b c", 5)), (Args{std::string("a\0b", 3), "c"}));
}

TEST(ParserInlineTest, AppendsToStorage) {
  std::string storage = "keep";
  std::vector<ArgSpan> spans;
  ASSERT_TRUE(SplitInlineArgs("x yz", &storage, &spans));
  EXPECT_EQ(storage, "keepxyz");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].offset, 4u);
  EXPECT_EQ(spans[1].offset, 5u);
  EXPECT_EQ(spans[1].length, 2u);
}

TEST(ReprTest, QuotesAsRedisSdscatrepr) {
  std::string out;
  AppendRepr("a\"b\\c\n\r\t\a\b\x01\x7f\xff~ ", &out);
  EXPECT_EQ(out, R"L("a\"b\\c\n\r\t\a\b\x01\x7f\xff~ ")L");
  out.clear();
  AppendRepr(std::string_view("\0", 1), &out);
  EXPECT_EQ(out, R"L("\x00")L");
}

TEST(ReprTest, SplitReadsItBack) {
  const std::string every_byte = [] {
    std::string s;
    for (int b = 0; b < 256; ++b) s.push_back(static_cast<char>(b));
    return s;
  }();
  for (std::string_view arg :
       {std::string_view(""), std::string_view("two words"),
        std::string_view("'single' \"double\""), std::string_view(every_byte)}) {
    std::string line;
    AppendRepr(arg, &line);
    EXPECT_EQ(Split(line), Args{std::string(arg)}) << line;
  }
}

}  // namespace
}  // namespace sluice::resp
