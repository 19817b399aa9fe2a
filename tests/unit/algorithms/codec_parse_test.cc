// The state encoding and the argument parsers shared by every algorithm.

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "algorithms/codec.h"
#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"
#include "algorithms/leaky_bucket.h"
#include "algorithms/parse.h"
#include "algorithms/sliding_log.h"
#include "algorithms/sliding_window.h"
#include "algorithms/smooth.h"
#include "algorithms/token_bucket.h"

namespace sluice::algorithms {
namespace {

TEST(ParseTest, Int64FollowsRedisString2ll) {
  int64_t v = 0;
  for (auto [text, want] : std::initializer_list<std::pair<std::string_view, int64_t>>{
           {"0", 0},
           {"7", 7},
           {"-1", -1},
           {"9223372036854775807", INT64_MAX},
           {"-9223372036854775808", INT64_MIN},
           {"1000000000000000000", 1000000000000000000},
           {"-9223372036854775807", -INT64_MAX}}) {
    EXPECT_TRUE(ParseInt64(text, &v)) << text;
    EXPECT_EQ(v, want) << text;
  }
  for (std::string_view bad :
       {"", "+1", " 1", "1 ", "01", "-0", "-", "1.0", "1e3", "abc", "12a", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "9999999999999999999",
        "-9999999999999999999", "18446744073709551615", "-18446744073709551616",
        "18446744073709551616", "123456789012345678901", "--1", "1-"}) {
    EXPECT_FALSE(ParseInt64(bad, &v)) << bad;
  }
}

// A strict integer is exactly the canonical spelling of an int64_t: it parses iff printing
// the value from_chars reads gives the same text back.
TEST(ParseTest, Int64AcceptsExactlyCanonicalSpellings) {
  std::mt19937_64 rng(7);
  const std::string alphabet = "0123456789-+ x";
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    const size_t length = rng() % 23;
    for (size_t j = 0; j < length; ++j) {
      // Mostly digits, so that long numbers near the range's ends come up often.
      text.push_back(rng() % 8 == 0 ? alphabet[rng() % alphabet.size()] : alphabet[rng() % 10]);
    }
    if (rng() % 4 == 0 && !text.empty()) text[0] = '-';
    int64_t reference = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), reference);
    const bool canonical = ec == std::errc() && end == text.data() + text.size() &&
                           std::to_string(reference) == text;
    int64_t parsed = 42;
    ASSERT_EQ(ParseInt64(text, &parsed), canonical) << text;
    if (canonical) {
      ASSERT_EQ(parsed, reference) << text;
    }
  }
}

TEST(ParseTest, LenientInt64FollowsRust) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInt64Lenient("+1", &v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(ParseInt64Lenient("007", &v));
  EXPECT_EQ(v, 7);
  EXPECT_TRUE(ParseInt64Lenient("-0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(ParseInt64Lenient("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  for (std::string_view bad : {"", "+", "-", " 1", "1 ", "+-1", "9223372036854775808"}) {
    EXPECT_FALSE(ParseInt64Lenient(bad, &v)) << bad;
  }
}

TEST(ParseTest, FiniteDouble) {
  double v = 0;
  for (auto [text, want] : std::initializer_list<std::pair<std::string_view, double>>{
           {"1", 1.0}, {"0.5", 0.5}, {"1e3", 1000.0}, {"-2.5", -2.5}, {"333", 333.0}}) {
    EXPECT_TRUE(ParseFiniteDouble(text, &v)) << text;
    EXPECT_EQ(v, want) << text;
  }
  for (std::string_view bad : {"", " 1", "1 ", "nan", "inf", "-inf", "1e400", "0x10", "1,5"}) {
    EXPECT_FALSE(ParseFiniteDouble(bad, &v)) << bad;
  }
}

TEST(ParseTest, ArgumentErrorsNameTheArgument) {
  EXPECT_EQ(ParsePositiveArg("0", "capacity").status().message(),
            "capacity must be a positive integer");
  EXPECT_EQ(ParsePositiveArg("x", "capacity").status().message(),
            "capacity must be a positive integer");
  EXPECT_EQ(ParseNonNegativeArg("-1", "max_burst").status().message(),
            "max_burst must be a non-negative integer");
  EXPECT_EQ(*ParseNonNegativeArg("0", "max_burst"), 0);
}

TEST(CodecTest, VarintsDoublesAndBytesRoundTrip) {
  StateWriter w(AlgorithmTag::kTokenBucket);
  const int64_t signed_values[] = {0, 1, -1, 63, -64, 64, 127, 128, INT64_MAX, INT64_MIN};
  const uint64_t unsigned_values[] = {0, 1, 127, 128, 16383, 16384, UINT64_MAX};
  const double doubles[] = {0.0, -0.0, 1.5, 1e-310, 1e300, -7.25};
  for (int64_t v : signed_values) w.Signed(v);
  for (uint64_t v : unsigned_values) w.Unsigned(v);
  for (double v : doubles) w.Double(v);
  w.Bytes("");
  w.Bytes(std::string_view("a\0b", 3));
  std::string bytes = std::move(w).Finish();

  StateReader r(bytes);
  ASSERT_TRUE(r.Header(AlgorithmTag::kTokenBucket).ok());
  for (int64_t want : signed_values) {
    int64_t v = 0;
    ASSERT_TRUE(r.Signed(&v));
    EXPECT_EQ(v, want);
  }
  for (uint64_t want : unsigned_values) {
    uint64_t v = 0;
    ASSERT_TRUE(r.Unsigned(&v));
    EXPECT_EQ(v, want);
  }
  for (double want : doubles) {
    double v = 0;
    ASSERT_TRUE(r.Double(&v));
    EXPECT_EQ(std::signbit(v), std::signbit(want));
    EXPECT_EQ(v, want);
  }
  std::string_view b;
  ASSERT_TRUE(r.Bytes(&b));
  EXPECT_EQ(b, "");
  ASSERT_TRUE(r.Bytes(&b));
  EXPECT_EQ(b, std::string_view("a\0b", 3));
  EXPECT_TRUE(r.AtEnd());
  uint64_t extra = 0;
  EXPECT_FALSE(r.Unsigned(&extra));
}

TEST(CodecTest, HeaderChecks) {
  std::string gcra = GcraState{42}.Encode();
  EXPECT_EQ(PeekAlgorithm(gcra), AlgorithmTag::kGcra);
  StateReader other(gcra);
  EXPECT_EQ(other.Header(AlgorithmTag::kSmooth).code(), Code::kWrongType);
  EXPECT_EQ(SmoothState::Decode(gcra).status().code(), Code::kWrongType);
  std::string bad_version = gcra;
  bad_version[1] = 2;
  EXPECT_EQ(GcraState::Decode(bad_version).status().message(), "corrupt limiter state");
  EXPECT_FALSE(PeekAlgorithm(""));
  EXPECT_FALSE(PeekAlgorithm("x"));
  EXPECT_FALSE(PeekAlgorithm(std::string("\x00\x01", 2)));
  EXPECT_FALSE(PeekAlgorithm("hello"));
  std::string truncated = gcra.substr(0, gcra.size() - 1);
  EXPECT_FALSE(GcraState::Decode(truncated).ok());
  EXPECT_FALSE(GcraState::Decode(gcra + "x").ok());  // trailing bytes
}

TEST(CodecTest, AlgorithmNames) {
  EXPECT_EQ(AlgorithmName(AlgorithmTag::kTokenBucket), "TOKENBUCKET");
  EXPECT_EQ(ParseAlgorithmName("tokenBucket"), AlgorithmTag::kTokenBucket);
  EXPECT_EQ(ParseAlgorithmName("gcra"), AlgorithmTag::kGcra);
  EXPECT_EQ(ParseAlgorithmName("SMOOTH"), AlgorithmTag::kSmooth);
  EXPECT_FALSE(ParseAlgorithmName("POLICYSET"));
  EXPECT_FALSE(ParseAlgorithmName("bucket"));
  EXPECT_EQ(PeekAlgorithm(StateWriter(AlgorithmTag::kPolicySet).Finish()),
            AlgorithmTag::kPolicySet);
}

TEST(CodecTest, StatesAreCompact) {
  const int64_t now = 1'700'000'000'000'000;
  EXPECT_LE((FixedWindowState{now, 1000}.Encode().size()), 14u);
  EXPECT_LE((SlidingWindowState{now, 1000, 1000}.Encode().size()), 16u);
  EXPECT_LE((TokenBucketState{{now, 1'000'000'000, 1'000'000}}.Encode().size()), 20u);
  EXPECT_LE((GcraState{now * 1000}.Encode().size()), 12u);
  EXPECT_LE((SmoothState{3.5, now}.Encode().size()), 20u);
  EXPECT_LE((SlidingLogState{{{now, 1}, {now + 1500, 2}}}.Encode().size()), 20u);
}

// Garbage never crashes a decoder (run under ASan/UBSan), whatever the bytes.
template <typename State>
void FuzzDecode(uint8_t tag, std::mt19937_64& rng) {
  for (int i = 0; i < 3000; ++i) {
    std::string bytes;
    bytes.push_back(static_cast<char>(tag));
    bytes.push_back(static_cast<char>(rng() % 4 == 0 ? rng() : 1 + rng() % 2));  // versions 1, 2
    size_t n = rng() % 24;
    for (size_t k = 0; k < n; ++k) bytes.push_back(static_cast<char>(rng()));
    StatusOr<State> s = State::Decode(bytes);
    if (s.ok()) {
      StatusOr<State> again = State::Decode(s->Encode());
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(*again, *s);
    }
  }
}

TEST(CodecTest, DecodersSurviveGarbage) {
  std::mt19937_64 rng(2024);
  FuzzDecode<FixedWindowState>(1, rng);
  FuzzDecode<SlidingLogState>(2, rng);
  FuzzDecode<SlidingWindowState>(3, rng);
  FuzzDecode<TokenBucketState>(4, rng);
  FuzzDecode<LeakyBucketState>(5, rng);
  FuzzDecode<GcraState>(6, rng);
  FuzzDecode<SmoothState>(7, rng);
}

}  // namespace
}  // namespace sluice::algorithms
