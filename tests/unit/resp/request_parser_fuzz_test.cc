// Randomized parser tests: random valid pipelines must parse to what was encoded however they
// are split; random garbage must never crash (run under ASan/UBSan) and must give the same
// answer however it is split.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "parser_harness.h"
#include "resp/request_parser.h"

namespace sluice::resp {
namespace {

using Result = RequestParser::Result;
using harness::Feed;
using harness::Outcome;
using harness::Strings;
using Commands = std::vector<std::vector<std::string>>;

constexpr uint32_t kSeed = 20240601;

class Random {
 public:
  explicit Random(uint32_t seed) : rng_(seed) {}
  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool OneIn(size_t n) { return Below(n) == 0; }
  char Byte() { return static_cast<char>(Below(256)); }
  std::string Bytes(size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = Byte();
    return s;
  }
  std::vector<size_t> Cuts(size_t size) {
    std::vector<size_t> cuts;
    size_t count = Below(6);
    for (size_t i = 0; i < count; ++i) cuts.push_back(Below(size + 1));
    std::sort(cuts.begin(), cuts.end());
    return cuts;
  }

 private:
  std::mt19937 rng_;
};

std::string EncodeMultibulk(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

bool IsPlainWord(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string EncodeInline(const std::vector<std::string>& args, Random& rnd) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = rnd.OneIn(4) ? " " : "";
  for (const std::string& a : args) {
    if (IsPlainWord(a) && !rnd.OneIn(3)) {
      out += a;
    } else if (a.find_first_of("'\\\r\n\t \v\f") == std::string::npos && rnd.OneIn(2)) {
      out += "'" + a + "'";
    } else {
      out += '"';
      for (char c : a) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
          out += '\\';
          out += c;
        } else if (c == '\n') {
          out += "\\n";
        } else if (u < 0x20 || u >= 0x7f || rnd.OneIn(10)) {
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 0xf];
        } else {
          out += c;
        }
      }
      out += '"';
    }
    out += rnd.OneIn(5) ? " \t " : " ";
  }
  out += rnd.OneIn(2) ? "\r\n" : "\n";
  return out;
}

std::string RandomArg(Random& rnd) {
  switch (rnd.Below(4)) {
    case 0:
      return "";
    case 1:
      return std::string(1 + rnd.Below(8), static_cast<char>('a' + rnd.Below(26)));
    case 2:
      return rnd.Bytes(rnd.Below(40));
    default:
      return rnd.Bytes(rnd.OneIn(20) ? 5000 + rnd.Below(5000) : rnd.Below(300));
  }
}

TEST(ParserFuzzTest, RandomPipelinesAnySplit) {
  Random rnd(kSeed);
  for (int iteration = 0; iteration < 1500; ++iteration) {
    std::string stream;
    Commands expected;
    size_t count = 1 + rnd.Below(8);
    for (size_t c = 0; c < count; ++c) {
      switch (rnd.Below(8)) {
        case 0:
          stream += rnd.OneIn(2) ? "\r\n" : (rnd.OneIn(2) ? "*0\r\n" : "*-1\r\n");
          continue;
        default:
          break;
      }
      std::vector<std::string> args;
      size_t nargs = 1 + rnd.Below(6);
      for (size_t i = 0; i < nargs; ++i) args.push_back(RandomArg(rnd));
      std::string request = EncodeMultibulk(args);
      if (rnd.OneIn(3)) {
        std::string line = EncodeInline(args, rnd);
        if (line.size() < ParserLimits{}.max_line_len) request = line;
      }
      stream += request;
      expected.push_back(args);
    }
    for (int s = 0; s < 8; ++s) {
      std::vector<size_t> cuts = rnd.Cuts(stream.size());
      Outcome out = Feed(stream, cuts);
      ASSERT_EQ(out.error, "") << "seed " << kSeed << " iteration " << iteration;
      ASSERT_EQ(out.unconsumed, 0u) << "iteration " << iteration;
      ASSERT_EQ(Strings(out, stream), expected) << "iteration " << iteration;
    }
  }
}

// Bytes drawn mostly from protocol characters, so that parsing gets deep before failing.
std::string Garbage(Random& rnd) {
  static const std::string kAlphabet = "*$\r\n\r\n0123456789-+ \"'\\x\t";
  std::string s;
  size_t n = rnd.Below(120);
  if (rnd.OneIn(3)) s = "*" + std::to_string(rnd.Below(5)) + "\r\n";
  for (size_t i = 0; i < n; ++i) {
    s += rnd.OneIn(4) ? rnd.Byte() : kAlphabet[rnd.Below(kAlphabet.size())];
  }
  return s;
}

TEST(ParserFuzzTest, GarbageNeverCrashesAndIgnoresSplits) {
  Random rnd(kSeed + 1);
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const std::string stream = Garbage(rnd);
    ParserLimits limits;
    if (rnd.OneIn(2)) {  // small limits, so that every limit is hit too
      limits.max_line_len = 1 + rnd.Below(12);
      limits.max_bulk_len = rnd.Below(20);
      limits.max_multibulk_len = static_cast<int64_t>(rnd.Below(6));
    }
    const bool authenticated = !rnd.OneIn(4);
    const Outcome whole = Feed(stream, {}, limits, authenticated);
    for (int s = 0; s < 4; ++s) {
      ASSERT_EQ(Feed(stream, rnd.Cuts(stream.size()), limits, authenticated), whole)
          << ::testing::PrintToString(stream) << " iteration " << iteration;
    }
  }
}

TEST(ParserFuzzTest, GarbageAfterValidRequestsKeepsThem) {
  Random rnd(kSeed + 2);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string stream = "*2\r\n$4\r\nECHO\r\n$1\r\nx\r\nPING\r\n" + rnd.Bytes(rnd.Below(64));
    Outcome out = Feed(stream, rnd.Cuts(stream.size()));
    Commands got = Strings(out, stream);
    ASSERT_GE(got.size(), 2u);
    EXPECT_EQ(got[0], (std::vector<std::string>{"ECHO", "x"}));
    EXPECT_EQ(got[1], (std::vector<std::string>{"PING"}));
  }
}

}  // namespace
}  // namespace sluice::resp
