// The bit math of the bitmap commands: tables from Redis's documentation and edge cases, and
// random strings and ranges checked against a bit-by-bit reference.

#include "server/commands/bit_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sluice::server::bits {
namespace {

using std::string_literals::operator""s;

constexpr uint64_t k512Mb = 512ull << 20;

BitRange Bytes(int64_t length, int64_t start, int64_t end) {
  return ResolveRange(length, start, end, Unit::kByte);
}
BitRange Bits(int64_t length, int64_t start, int64_t end) {
  return ResolveRange(length, start, end, Unit::kBit);
}

// The reference: one bit at a time.
bool BitAt(std::string_view s, int64_t i) {
  return (static_cast<uint8_t>(s[static_cast<size_t>(i / 8)]) >> (7 - i % 8)) & 1;
}
int64_t NaiveCount(std::string_view s, BitRange r) {
  int64_t n = 0;
  for (int64_t i = r.first; i <= r.last; ++i) n += BitAt(s, i) ? 1 : 0;
  return n;
}
int64_t NaiveFind(std::string_view s, bool bit, BitRange r, bool end_given) {
  for (int64_t i = r.first; i <= r.last; ++i) {
    if (BitAt(s, i) == bit) return i;
  }
  return (!bit && !end_given && !r.empty()) ? r.last + 1 : -1;
}

TEST(ResolveRangeTest, NegativeIndexesCountFromTheEndAndClampToTheString) {
  EXPECT_EQ(Bytes(6, 0, -1).first, 0);
  EXPECT_EQ(Bytes(6, 0, -1).last, 47);
  EXPECT_EQ(Bytes(6, 1, 1).first, 8);
  EXPECT_EQ(Bytes(6, 1, 1).last, 15);
  EXPECT_EQ(Bytes(6, -2, -1).first, 32);
  EXPECT_EQ(Bytes(6, -100, 100).first, 0);
  EXPECT_EQ(Bytes(6, -100, 100).last, 47);
  EXPECT_TRUE(Bytes(6, 6, 10).empty());
  EXPECT_TRUE(Bytes(6, 3, 2).empty());
  EXPECT_TRUE(Bytes(0, 0, -1).empty());
  EXPECT_TRUE(Bytes(0, 0, 0).empty());
  // Both far before the start clamp to the first byte (BITCOUNT special-cases start > end).
  EXPECT_EQ(Bytes(3, -20, -10).first, 0);
  EXPECT_EQ(Bytes(3, -20, -10).last, 7);
  EXPECT_EQ(Bits(6, 5, 30).first, 5);
  EXPECT_EQ(Bits(6, 5, 30).last, 30);
  EXPECT_EQ(Bits(2, -3, -1).first, 13);
  EXPECT_EQ(Bits(2, 0, 1000).last, 15);
  auto extreme = Bytes(4, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(extreme.first, 0);
  EXPECT_EQ(extreme.last, 31);
  EXPECT_TRUE(Bytes(4, std::numeric_limits<int64_t>::max(), -1).empty());
}

TEST(CountBitsTest, RedisDocumentationExamples) {
  const std::string s = "foobar";
  EXPECT_EQ(CountBits(s, Bytes(6, 0, -1)), 26);
  EXPECT_EQ(CountBits(s, Bytes(6, 0, 0)), 4);
  EXPECT_EQ(CountBits(s, Bytes(6, 1, 1)), 6);
  EXPECT_EQ(CountBits(s, Bits(6, 1, 1)), 1);
  EXPECT_EQ(CountBits(s, Bits(6, 5, 30)), 17);
  EXPECT_EQ(CountBits(s, BitRange{}), 0);
}

TEST(CountBitsTest, PartialBytesAtBothEnds) {
  const std::string s = "\xff\xff\xff"s;
  EXPECT_EQ(CountBits(s, Bits(3, 3, 3)), 1);
  EXPECT_EQ(CountBits(s, Bits(3, 3, 5)), 3);
  EXPECT_EQ(CountBits(s, Bits(3, 7, 8)), 2);
  EXPECT_EQ(CountBits(s, Bits(3, 1, 22)), 22);
  EXPECT_EQ(CountBits("\x80\x01"s, Bits(2, 1, 14)), 0);
  EXPECT_EQ(CountBits("\x80\x01"s, Bits(2, 0, 15)), 2);
}

TEST(FindBitTest, RedisDocumentationExamples) {
  const std::string a = "\xff\xf0\x00"s;
  EXPECT_EQ(FindBit(a, false, Bytes(3, 0, -1), false), 12);
  const std::string b = "\x00\xff\xf0"s;
  EXPECT_EQ(FindBit(b, true, Bytes(3, 0, std::numeric_limits<int64_t>::max()), false), 8);
  EXPECT_EQ(FindBit(b, true, Bytes(3, 2, std::numeric_limits<int64_t>::max()), false), 16);
  EXPECT_EQ(FindBit(b, true, Bytes(3, 2, -1), true), 16);
  EXPECT_EQ(FindBit(b, true, Bits(3, 7, 15), true), 8);
  EXPECT_EQ(FindBit("\x00\x00\x00"s, true, Bytes(3, 0, -1), false), -1);
}

TEST(FindBitTest, ZeroInAllOnesIsPastTheEndOnlyWithoutAnEnd) {
  const std::string ones = "\xff\xff"s;
  EXPECT_EQ(FindBit(ones, false, Bytes(2, 0, -1), false), 16);
  EXPECT_EQ(FindBit(ones, false, Bytes(2, 1, std::numeric_limits<int64_t>::max()), false), 16);
  EXPECT_EQ(FindBit(ones, false, Bytes(2, 0, -1), true), -1);
  EXPECT_EQ(FindBit(ones, false, Bytes(2, 0, 100), true), -1);
  EXPECT_EQ(FindBit(ones, false, Bits(2, 3, 9), true), -1);
  EXPECT_EQ(FindBit(ones, true, Bits(2, 3, 9), true), 3);
  // Empty ranges hold neither: -1 for both, the string continuing with zeros or not.
  EXPECT_EQ(FindBit(ones, false, BitRange{}, false), -1);
  EXPECT_EQ(FindBit("", false, Bytes(0, 0, -1), false), -1);
  EXPECT_EQ(FindBit("", true, Bytes(0, 0, -1), false), -1);
}

TEST(FindBitTest, LongRunsAreSkippedWithoutMissingTheBitAfterThem) {
  std::string s(1000, '\0');
  s[777] = '\x01';
  EXPECT_EQ(FindBit(s, true, Bytes(1000, 0, -1), false), 777 * 8 + 7);
  EXPECT_EQ(FindBit(s, true, Bits(1000, 3, 777 * 8 + 6), true), -1);
  EXPECT_EQ(FindBit(s, true, Bits(1000, 3, 777 * 8 + 7), true), 777 * 8 + 7);
  std::string ones(1000, '\xff');
  ones[999] = '\xfe';
  EXPECT_EQ(FindBit(ones, false, Bytes(1000, 0, -1), false), 999 * 8 + 7);
  EXPECT_EQ(FindBit(ones, false, Bytes(1000, 0, -2), true), -1);
}

TEST(BitOpsPropertyTest, CountAndFindMatchABitByBitReference) {
  std::mt19937_64 rng(20251125);
  for (int round = 0; round < 3000; ++round) {
    const auto length = static_cast<int64_t>(rng() % 40);
    std::string s(static_cast<size_t>(length), '\0');
    const int style = static_cast<int>(rng() % 3);  // random, mostly zeros, mostly ones
    for (char& c : s) {
      const auto r = static_cast<uint8_t>(rng());
      c = static_cast<char>(style == 0 ? r : style == 1 ? (r < 16 ? r : 0) : (r < 16 ? ~r : 0xff));
    }
    const auto span = length * 8 + 20;
    const int64_t start =
        static_cast<int64_t>(rng() % static_cast<uint64_t>(span)) - 10 - length * 4;
    const int64_t end = static_cast<int64_t>(rng() % static_cast<uint64_t>(span)) - 10 - length * 4;
    for (Unit unit : {Unit::kByte, Unit::kBit}) {
      const BitRange r = ResolveRange(length, start, end, unit);
      ASSERT_GE(r.first, 0);
      ASSERT_LE(r.last, length * 8 - 1);
      EXPECT_EQ(CountBits(s, r), NaiveCount(s, r)) << round;
      for (bool bit : {false, true}) {
        for (bool end_given : {false, true}) {
          EXPECT_EQ(FindBit(s, bit, r, end_given), NaiveFind(s, bit, r, end_given))
              << "round " << round << " bit " << bit << " end_given " << end_given;
        }
      }
    }
  }
}

TEST(GetSetBitTest, MostSignificantBitFirst) {
  std::string s(2, '\0');
  EXPECT_FALSE(SetBit(s, 0, true));
  EXPECT_EQ(s, "\x80\x00"s);
  EXPECT_FALSE(SetBit(s, 15, true));
  EXPECT_EQ(s, "\x80\x01"s);
  EXPECT_TRUE(SetBit(s, 15, true));
  EXPECT_TRUE(SetBit(s, 0, false));
  EXPECT_EQ(s, "\x00\x01"s);
  EXPECT_FALSE(SetBit(s, 0, false));
  EXPECT_TRUE(GetBit(s, 15));
  EXPECT_FALSE(GetBit(s, 14));
  EXPECT_FALSE(GetBit(s, 16));  // past the end
  EXPECT_FALSE(GetBit(s, std::numeric_limits<uint64_t>::max()));
  EXPECT_TRUE(GetBit("`", 1));
  EXPECT_TRUE(GetBit("`", 2));
  EXPECT_FALSE(GetBit("`", 3));
}

std::string CombineOf(BitOp op, const std::vector<std::string>& sources) {
  std::vector<std::string_view> views(sources.begin(), sources.end());
  return Combine(op, views);
}

TEST(CombineTest, ShorterSourcesArePaddedWithZeros) {
  const std::vector<std::string> sources = {"\xff\x0f\xf0"s, "\x0f\xff"s};
  EXPECT_EQ(CombineOf(BitOp::kAnd, sources), "\x0f\x0f\x00"s);
  EXPECT_EQ(CombineOf(BitOp::kOr, sources), "\xff\xff\xf0"s);
  EXPECT_EQ(CombineOf(BitOp::kXor, sources), "\xf0\xf0\xf0"s);
  EXPECT_EQ(CombineOf(BitOp::kAnd, {"\xff"s, ""s, "\xff\xff"s}), "\x00\x00"s);
  EXPECT_EQ(CombineOf(BitOp::kOr, {""s, "ab"s}), "ab"s);
  EXPECT_EQ(CombineOf(BitOp::kXor, {"abc"s, "abc"s}), "\x00\x00\x00"s);
  EXPECT_EQ(CombineOf(BitOp::kNot, {"\x0f\x00"s}), "\xf0\xff"s);
  EXPECT_EQ(CombineOf(BitOp::kNot, {""s}), "");
  EXPECT_EQ(CombineOf(BitOp::kAnd, {""s, ""s}), "");
  EXPECT_EQ(CombineOf(BitOp::kOr, {"x"s}), "x");
}

TEST(CombineTest, MatchesAByteByByteReference) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> sources(1 + rng() % 4);
    size_t longest = 0;
    for (auto& source : sources) {
      source.resize(rng() % 50);
      for (char& c : source) c = static_cast<char>(rng());
      longest = std::max(longest, source.size());
    }
    for (BitOp op : {BitOp::kAnd, BitOp::kOr, BitOp::kXor}) {
      std::string expected(longest, '\0');
      for (size_t j = 0; j < longest; ++j) {
        auto byte_of = [&](const std::string& source) {
          return j < source.size() ? static_cast<uint8_t>(source[j]) : uint8_t{0};
        };
        uint8_t out = byte_of(sources[0]);
        for (size_t i = 1; i < sources.size(); ++i) {
          if (op == BitOp::kAnd) out &= byte_of(sources[i]);
          if (op == BitOp::kOr) out |= byte_of(sources[i]);
          if (op == BitOp::kXor) out ^= byte_of(sources[i]);
        }
        expected[j] = static_cast<char>(out);
      }
      EXPECT_EQ(CombineOf(op, sources), expected) << round;
    }
  }
}

TEST(ParseBitOffsetTest, IntegersUpToTheStringLimit) {
  EXPECT_EQ(ParseBitOffset("0", 0, k512Mb), 0u);
  EXPECT_EQ(ParseBitOffset("7", 0, k512Mb), 7u);
  EXPECT_EQ(ParseBitOffset("4294967295", 0, k512Mb), 4294967295u);  // the last bit of 512 MB
  EXPECT_EQ(ParseBitOffset("4294967296", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("-1", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("1.5", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset(" 1", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("01", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("9223372036854775808", 0, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("15", 0, 2), 15u);  // a smaller proto-max-bulk-len
  EXPECT_EQ(ParseBitOffset("16", 0, 2), std::nullopt);
}

TEST(ParseBitOffsetTest, HashFormCountsInFieldWidthsOnlyForBitfield) {
  EXPECT_EQ(ParseBitOffset("#3", 8, k512Mb), 24u);
  EXPECT_EQ(ParseBitOffset("#0", 64, k512Mb), 0u);
  EXPECT_EQ(ParseBitOffset("#3", 0, k512Mb), std::nullopt);  // SETBIT/GETBIT: not a number
  EXPECT_EQ(ParseBitOffset("#-1", 8, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("#", 8, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("##1", 8, k512Mb), std::nullopt);
  EXPECT_EQ(ParseBitOffset("#536870911", 8, k512Mb), 4294967288u);
  EXPECT_EQ(ParseBitOffset("#536870912", 8, k512Mb), std::nullopt);
  // Redis's unchecked product wraps: 2^61 * 8 is 2^64, offset 0.
  EXPECT_EQ(ParseBitOffset("#2305843009213693952", 8, k512Mb), 0u);
  EXPECT_EQ(ParseBitOffset("#9223372036854775807", 8, k512Mb), std::nullopt);
}

}  // namespace
}  // namespace sluice::server::bits
