#include "common/glob_match.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

namespace sluice::storage {
namespace {

using namespace std::string_literals;

// A reference for differential testing: Redis's recursive stringmatchlen_impl() transcribed
// branch by branch (util.c, Redis 7), with reads bounded by the lengths (Redis reads the NUL
// after its sds strings) and range ends compared as unsigned bytes (see glob_match.h).
int RedisMatch(const char* pattern, int pattern_len, const char* string, int string_len,
               bool nocase, int* skip_longer, int nesting) {
  auto lower = [](int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; };
  auto at = [&](int i) -> int {  // pattern[i], or 0 past the end (as the sds NUL)
    return i < pattern_len ? static_cast<unsigned char>(pattern[i]) : 0;
  };
  if (nesting > 1000) return 0;
  while (pattern_len && string_len) {
    switch (pattern[0]) {
      case '*':
        while (pattern_len && at(1) == '*') {
          pattern++;
          pattern_len--;
        }
        if (pattern_len == 1) return 1;
        while (string_len) {
          if (RedisMatch(pattern + 1, pattern_len - 1, string, string_len, nocase, skip_longer,
                         nesting + 1)) {
            return 1;
          }
          if (*skip_longer) return 0;
          string++;
          string_len--;
        }
        *skip_longer = 1;
        return 0;
      case '?':
        string++;
        string_len--;
        break;
      case '[': {
        pattern++;
        pattern_len--;
        const bool negate = at(0) == '^';
        if (negate) {
          pattern++;
          pattern_len--;
        }
        bool match = false;
        while (true) {
          if (at(0) == '\\' && pattern_len >= 2) {
            pattern++;
            pattern_len--;
            if (pattern[0] == string[0]) match = true;
          } else if (at(0) == ']') {
            break;
          } else if (pattern_len == 0) {
            pattern--;
            pattern_len++;
            break;
          } else if (pattern_len >= 3 && pattern[1] == '-') {
            int start = static_cast<unsigned char>(pattern[0]);
            int end = static_cast<unsigned char>(pattern[2]);
            int c = static_cast<unsigned char>(string[0]);
            if (start > end) std::swap(start, end);
            if (nocase) {
              start = lower(start);
              end = lower(end);
              c = lower(c);
            }
            pattern += 2;
            pattern_len -= 2;
            if (c >= start && c <= end) match = true;
          } else if (!nocase ? pattern[0] == string[0]
                             : lower(static_cast<unsigned char>(pattern[0])) ==
                                   lower(static_cast<unsigned char>(string[0]))) {
            match = true;
          }
          pattern++;
          pattern_len--;
        }
        if (negate) match = !match;
        if (!match) return 0;
        string++;
        string_len--;
        break;
      }
      case '\\':
        if (pattern_len >= 2) {
          pattern++;
          pattern_len--;
        }
        [[fallthrough]];
      default:
        if (!nocase ? pattern[0] != string[0]
                    : lower(static_cast<unsigned char>(pattern[0])) !=
                          lower(static_cast<unsigned char>(string[0]))) {
          return 0;
        }
        string++;
        string_len--;
        break;
    }
    pattern++;
    pattern_len--;
    if (string_len == 0) {
      while (at(0) == '*') {
        pattern++;
        pattern_len--;
      }
      break;
    }
  }
  return pattern_len == 0 && string_len == 0;
}

bool Reference(const std::string& pattern, const std::string& str, bool nocase) {
  int skip = 0;
  return RedisMatch(pattern.data(), static_cast<int>(pattern.size()), str.data(),
                    static_cast<int>(str.size()), nocase, &skip, 0) != 0;
}

struct Row {
  std::string pattern;
  std::string str;
  bool match;
  bool nocase = false;
};

TEST(GlobMatchTest, Table) {
  const std::vector<Row> rows = {
      // Redis's KEYS documentation.
      {"h?llo", "hello", true},
      {"h?llo", "hallo", true},
      {"h?llo", "hllo", false},
      {"h*llo", "hllo", true},
      {"h*llo", "heeeello", true},
      {"h[ae]llo", "hello", true},
      {"h[ae]llo", "hallo", true},
      {"h[ae]llo", "hillo", false},
      {"h[^e]llo", "hallo", true},
      {"h[^e]llo", "hbllo", true},
      {"h[^e]llo", "hello", false},
      {"h[a-b]llo", "hallo", true},
      {"h[a-b]llo", "hbllo", true},
      {"h[a-b]llo", "hcllo", false},
      // Stars.
      {"*", "anything", true},
      {"**", "x", true},
      {"a*", "a", true},
      {"*a", "a", true},
      {"a*b", "ab", true},
      {"a*b", "a-long-b", true},
      {"a*b", "a-long-bc", false},
      {"*a*b*c*", "xaxbxcx", true},
      {"*a*b*c*", "xaxcxbx", false},
      {"foo*bar", "foobar", true},
      {"foo*bar", "foobarbar", true},
      {"foo*", "fo", false},
      // The empty cases: Redis's loop never runs on an empty string.
      {"", "", true},
      {"", "a", false},
      {"*", "", false},
      {"?", "", false},
      {"a", "", false},
      // Question marks.
      {"?", "a", true},
      {"??", "a", false},
      {"a?c", "abc", true},
      {"???", "\0\xff\n"s, true},
      // Classes.
      {"[abc]", "b", true},
      {"[abc]", "d", false},
      {"[^abc]", "d", true},
      {"[^abc]", "a", false},
      {"[a-c]", "b", true},
      {"[c-a]", "b", true},  // reversed range
      {"[a-c]", "d", false},
      {"[a-cx-z]", "y", true},
      {"[\\]]", "]", true},
      {"[\\-]", "-", true},
      {"[]]", "]", false},   // "[]" is an empty class, then "]" must match literally...
      {"[]]", "]]", false},  // ...and an empty class matches nothing
      {"[a-]", "_", true},   // Redis quirk: the range ends at ']', so "]".."a"
      {"[a-]", "-", false},
      // Unterminated classes (Redis quirks, kept).
      {"[abc", "a", true},
      {"[abc", "d", false},
      {"[", "a", false},
      {"[^", "a", true},
      {"x[", "xa", false},
      // Escapes.
      {"\\*", "*", true},
      {"\\*", "a", false},
      {"\\?", "?", true},
      {"\\[a]", "[a]", true},
      {"a\\", "a\\", true},  // a trailing backslash is literal
      {"\\\\", "\\", true},
      // Binary bytes.
      {"\xff*"s, "\xff\x00\x01"s, true},
      {"[\x80-\xff]"s, "\x90"s, true},
      {"[\x80-\xff]"s, "a"s, false},
      // Case-insensitive.
      {"HELLO", "hello", true, true},
      {"HELLO", "hello", false, false},
      {"h[A-Z]llo", "hello", true, true},
      {"h[^E]llo", "hello", false, true},
      {"[\\A]", "a", false, true},  // escapes inside classes compare exactly, as in Redis
      {"[\\A]", "A", true, true},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(GlobMatch(row.pattern, row.str, row.nocase), row.match)
        << "pattern '" << row.pattern << "' string '" << row.str << "' nocase " << row.nocase;
    EXPECT_EQ(Reference(row.pattern, row.str, row.nocase), row.match)
        << "reference disagrees with the table on '" << row.pattern << "' '" << row.str << "'";
  }
}

TEST(GlobMatchTest, AgreesWithRedisAlgorithmOnRandomInputs) {
  std::mt19937 rng(12345);
  const std::string pattern_alphabet = "ab*?[]^-\\A";
  const std::string string_alphabet = "ab-]^\\A*";
  std::uniform_int_distribution<size_t> pattern_len(0, 9);
  std::uniform_int_distribution<size_t> string_len(0, 9);
  std::uniform_int_distribution<size_t> pick_p(0, pattern_alphabet.size() - 1);
  std::uniform_int_distribution<size_t> pick_s(0, string_alphabet.size() - 1);
  int matches = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string pattern(pattern_len(rng), ' ');
    for (char& c : pattern) c = pattern_alphabet[pick_p(rng)];
    std::string str(string_len(rng), ' ');
    for (char& c : str) c = string_alphabet[pick_s(rng)];
    const bool nocase = i % 3 == 0;
    const bool got = GlobMatch(pattern, str, nocase);
    ASSERT_EQ(got, Reference(pattern, str, nocase))
        << "pattern '" << pattern << "' string '" << str << "' nocase " << nocase;
    matches += got;
  }
  EXPECT_GT(matches, 5000);  // the comparison covered both outcomes
}

TEST(GlobMatchTest, PathologicalPatternsStayPolynomial) {
  // The CVE-2022-36021 shape: many stars before a byte that never comes. With backtracking to
  // every star this is exponential; here it is one pass per star position.
  std::string pattern;
  for (int i = 0; i < 64; ++i) pattern += "*a";
  pattern += "*b";
  const std::string str(4000, 'a');
  EXPECT_FALSE(GlobMatch(pattern, str));
  EXPECT_TRUE(GlobMatch(pattern, str + "b"));
}

TEST(GlobMatchTest, StarNestingIsCappedAsInRedis) {
  // 1000 "*a" groups followed by more pattern: within Redis's nesting limit.
  std::string ok_pattern;
  for (size_t i = 0; i < kGlobMaxStarGroups; ++i) ok_pattern += "*a";
  const std::string str(kGlobMaxStarGroups + 5, 'a');
  EXPECT_TRUE(GlobMatch(ok_pattern + "*", str));
  EXPECT_TRUE(GlobMatch(ok_pattern, str));
  EXPECT_EQ(GlobMatch(ok_pattern, str), Reference(ok_pattern, str, false));
  // One more group goes past it: no match, as Redis answers.
  const std::string deep_pattern = ok_pattern + "*a";
  EXPECT_FALSE(GlobMatch(deep_pattern, str));
  EXPECT_EQ(GlobMatch(deep_pattern, str), Reference(deep_pattern, str, false));
}

TEST(GlobMatchTest, HugePatternsUseNoStack) {
  std::string pattern;
  for (int i = 0; i < 200000; ++i) pattern += "*a";
  EXPECT_FALSE(GlobMatch(pattern, std::string(200000, 'a')));
  EXPECT_TRUE(GlobMatch(std::string(200000, '*'), "x"));
  std::string classes;
  for (int i = 0; i < 100000; ++i) classes += "[a-z]";
  EXPECT_TRUE(GlobMatch(classes, std::string(100000, 'q')));
}

TEST(GlobMatchTest, LiteralPrefix) {
  EXPECT_EQ(GlobLiteralPrefix("rl:*"), "rl:");
  EXPECT_EQ(GlobLiteralPrefix("user:?:x"), "user:");
  EXPECT_EQ(GlobLiteralPrefix("a[bc]"), "a");
  EXPECT_EQ(GlobLiteralPrefix("ab\\*"), "ab");
  EXPECT_EQ(GlobLiteralPrefix("*"), "");
  EXPECT_EQ(GlobLiteralPrefix("plain"), "plain");
  EXPECT_EQ(GlobLiteralPrefix(""), "");
}

}  // namespace
}  // namespace sluice::storage
