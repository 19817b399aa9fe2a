// BITFIELD's field math: types, reading and writing fields at any offset, and the three
// overflow modes, in tables (Redis's documentation and its quirks) and against exact 128-bit
// arithmetic.

#include "server/commands/bitfield_ops.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>

namespace sluice::server::bits {
namespace {

using std::string_literals::operator""s;

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

FieldType I(int bits) { return {true, bits}; }
FieldType U(int bits) { return {false, bits}; }

TEST(ParseFieldTypeTest, SignedUpTo64UnsignedUpTo63) {
  EXPECT_EQ(ParseFieldType("i1")->bits, 1);
  EXPECT_TRUE(ParseFieldType("i1")->is_signed);
  EXPECT_EQ(ParseFieldType("i64")->bits, 64);
  EXPECT_EQ(ParseFieldType("u63")->bits, 63);
  EXPECT_FALSE(ParseFieldType("u63")->is_signed);
  EXPECT_EQ(ParseFieldType("u64"), std::nullopt);
  EXPECT_EQ(ParseFieldType("i65"), std::nullopt);
  EXPECT_EQ(ParseFieldType("i0"), std::nullopt);
  EXPECT_EQ(ParseFieldType("u0"), std::nullopt);
  EXPECT_EQ(ParseFieldType("u-1"), std::nullopt);
  EXPECT_EQ(ParseFieldType("I8"), std::nullopt);
  EXPECT_EQ(ParseFieldType("x8"), std::nullopt);
  EXPECT_EQ(ParseFieldType("i"), std::nullopt);
  EXPECT_EQ(ParseFieldType(""), std::nullopt);
  EXPECT_EQ(ParseFieldType("i08"), std::nullopt);
  EXPECT_EQ(ParseFieldType("i 8"), std::nullopt);
  // Redis reads the width as a C string.
  EXPECT_EQ(ParseFieldType("u8\0junk"s)->bits, 8);
  EXPECT_EQ(ParseFieldType("\0i8"s), std::nullopt);
}

TEST(FieldTest, RedisDocumentationLayout) {
  // A 5-bit unsigned 23 at offset 7 of zeros: 00000001 01110000.
  std::string s(2, '\0');
  SetField(s, 7, U(5), 23);
  EXPECT_EQ(s, "\x01\x70"s);
  EXPECT_EQ(GetField(s, 7, U(5)), 23);
  EXPECT_EQ(GetField(s, 7, I(5)), 23 - 32);
  EXPECT_EQ(GetField(s, 0, U(16)), 0x0170);
}

TEST(FieldTest, ReadsZerosPastTheEndAndSignExtends) {
  EXPECT_EQ(GetField("", 0, I(64)), 0);
  EXPECT_EQ(GetField("\xff"s, 0, U(8)), 255);
  EXPECT_EQ(GetField("\xff"s, 0, I(8)), -1);
  EXPECT_EQ(GetField("\xff"s, 4, U(8)), 0xf0);
  EXPECT_EQ(GetField("\xff"s, 4, I(8)), -16);
  EXPECT_EQ(GetField("\xff"s, 1000, U(63)), 0);
  EXPECT_EQ(GetField("\x80"s, 0, I(1)), -1);
  EXPECT_EQ(GetField("\x80"s, 0, U(1)), 1);
  EXPECT_EQ(GetField(std::string(8, '\xff'), 0, I(64)), -1);
  EXPECT_EQ(GetField(std::string(8, '\xff'), 0, U(63)), kI64Max);
  EXPECT_EQ(GetField("\x80"s + std::string(7, '\0'), 0, I(64)), kI64Min);
}

TEST(FieldTest, SetThenGetRoundTripsAtAnyOffset) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 2000; ++round) {
    const bool is_signed = (rng() & 1) != 0;
    const int bits = 1 + static_cast<int>(rng() % (is_signed ? 64 : 63));
    const FieldType type{is_signed, bits};
    const uint64_t offset = rng() % 100;
    std::string s(static_cast<size_t>((offset + 64) / 8 + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng());
    const std::string before = s;
    const auto raw = static_cast<int64_t>(rng());
    SetField(s, offset, type, raw);
    // What comes back is the value's low `bits` bits, sign-extended for a signed field.
    const uint64_t low = bits == 64 ? static_cast<uint64_t>(raw)
                                    : static_cast<uint64_t>(raw) & ((uint64_t{1} << bits) - 1);
    int64_t expected = static_cast<int64_t>(low);
    if (is_signed && bits < 64 && (low >> (bits - 1)) != 0) {
      expected = static_cast<int64_t>(low | (~uint64_t{0} << bits));
    }
    ASSERT_EQ(GetField(s, offset, type), expected) << round;
    // Bits outside the field are left alone.
    for (uint64_t bit = 0; bit < s.size() * 8; ++bit) {
      if (bit >= offset && bit < offset + static_cast<uint64_t>(bits)) continue;
      const auto mask = 1u << (7 - bit % 8);
      ASSERT_EQ(static_cast<uint8_t>(s[bit / 8]) & mask,
                static_cast<uint8_t>(before[bit / 8]) & mask)
          << round << " bit " << bit;
    }
  }
}

TEST(OverflowTest, UnsignedIncrBy) {
  EXPECT_EQ(FieldForIncrBy(U(8), 250, 10, Overflow::kWrap), 4);
  EXPECT_EQ(FieldForIncrBy(U(8), 250, 10, Overflow::kSat), 255);
  EXPECT_EQ(FieldForIncrBy(U(8), 250, 10, Overflow::kFail), std::nullopt);
  EXPECT_EQ(FieldForIncrBy(U(8), 250, 5, Overflow::kFail), 255);
  EXPECT_EQ(FieldForIncrBy(U(8), 3, -5, Overflow::kWrap), 254);
  EXPECT_EQ(FieldForIncrBy(U(8), 3, -5, Overflow::kSat), 0);
  EXPECT_EQ(FieldForIncrBy(U(8), 3, -5, Overflow::kFail), std::nullopt);
  EXPECT_EQ(FieldForIncrBy(U(8), 3, -3, Overflow::kFail), 0);
  EXPECT_EQ(FieldForIncrBy(U(2), 0, kI64Max, Overflow::kWrap), 3);
  EXPECT_EQ(FieldForIncrBy(U(2), 0, kI64Min, Overflow::kWrap), 0);
  EXPECT_EQ(FieldForIncrBy(U(63), kI64Max, 1, Overflow::kWrap), 0);
  EXPECT_EQ(FieldForIncrBy(U(63), kI64Max, 1, Overflow::kSat), kI64Max);
  EXPECT_EQ(FieldForIncrBy(U(63), 0, kI64Min, Overflow::kSat), 0);
}

TEST(OverflowTest, SignedIncrBy) {
  EXPECT_EQ(FieldForIncrBy(I(8), 120, 10, Overflow::kWrap), -126);
  EXPECT_EQ(FieldForIncrBy(I(8), 120, 10, Overflow::kSat), 127);
  EXPECT_EQ(FieldForIncrBy(I(8), 120, 10, Overflow::kFail), std::nullopt);
  EXPECT_EQ(FieldForIncrBy(I(8), -120, -10, Overflow::kWrap), 126);
  EXPECT_EQ(FieldForIncrBy(I(8), -120, -10, Overflow::kSat), -128);
  EXPECT_EQ(FieldForIncrBy(I(8), -120, -8, Overflow::kFail), -128);
  EXPECT_EQ(FieldForIncrBy(I(64), kI64Max, 1, Overflow::kWrap), kI64Min);
  EXPECT_EQ(FieldForIncrBy(I(64), kI64Max, 1, Overflow::kSat), kI64Max);
  EXPECT_EQ(FieldForIncrBy(I(64), kI64Min, -1, Overflow::kWrap), kI64Max);
  EXPECT_EQ(FieldForIncrBy(I(64), kI64Min, -1, Overflow::kSat), kI64Min);
  EXPECT_EQ(FieldForIncrBy(I(64), kI64Min, kI64Max, Overflow::kFail), -1);
  EXPECT_EQ(FieldForIncrBy(I(64), -1, kI64Min, Overflow::kFail), std::nullopt);
  EXPECT_EQ(FieldForIncrBy(I(1), 0, 1, Overflow::kWrap), -1);
  EXPECT_EQ(FieldForIncrBy(I(1), 0, 1, Overflow::kSat), 0);
  EXPECT_EQ(FieldForIncrBy(I(1), -1, 1, Overflow::kFail), 0);
}

TEST(OverflowTest, SetTakesTheValueAsRedisChecksIt) {
  EXPECT_EQ(FieldForSet(U(8), 255, Overflow::kFail), 255);
  EXPECT_EQ(FieldForSet(U(8), 256, Overflow::kWrap), 0);
  EXPECT_EQ(FieldForSet(U(8), 256, Overflow::kSat), 255);
  EXPECT_EQ(FieldForSet(U(8), 256, Overflow::kFail), std::nullopt);
  // A negative value is its two's complement to an unsigned field: too large, not too small.
  EXPECT_EQ(FieldForSet(U(8), -1, Overflow::kWrap), 255);
  EXPECT_EQ(FieldForSet(U(8), -1, Overflow::kSat), 255);
  EXPECT_EQ(FieldForSet(U(8), -1, Overflow::kFail), std::nullopt);
  EXPECT_EQ(FieldForSet(I(8), 200, Overflow::kWrap), -56);
  EXPECT_EQ(FieldForSet(I(8), 200, Overflow::kSat), 127);
  EXPECT_EQ(FieldForSet(I(8), -200, Overflow::kSat), -128);
  EXPECT_EQ(FieldForSet(I(8), -200, Overflow::kWrap), 56);
  EXPECT_EQ(FieldForSet(I(8), -128, Overflow::kFail), -128);
  // Redis's bounds wrap for values within 127 of INT64_MIN: SAT takes them for too large.
  EXPECT_EQ(FieldForSet(I(8), kI64Min, Overflow::kSat), 127);
  EXPECT_EQ(FieldForSet(I(8), kI64Min + 200, Overflow::kSat), -128);
  EXPECT_EQ(FieldForSet(I(64), kI64Min, Overflow::kFail), kI64Min);
  EXPECT_EQ(FieldForSet(I(64), kI64Max, Overflow::kFail), kI64Max);
}

// For a field holding a value in its range, INCRBY is exact arithmetic: WRAP is the sum modulo
// 2^bits, SAT the sum clamped, FAIL refuses exactly the sums out of range.
TEST(OverflowTest, IncrByMatchesExactArithmetic) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 20000; ++round) {
    const bool is_signed = (rng() & 1) != 0;
    const int bits = 1 + static_cast<int>(rng() % (is_signed ? 64 : 63));
    const FieldType type{is_signed, bits};
    const __int128 min = is_signed ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
    const __int128 max = is_signed ? (static_cast<__int128>(1) << (bits - 1)) - 1
                                   : (static_cast<__int128>(1) << bits) - 1;
    const __int128 span = max - min + 1;
    const auto old = static_cast<int64_t>(
        min +
        static_cast<__int128>(rng() % static_cast<uint64_t>(std::min<__int128>(span, kI64Max))));
    int64_t increment = static_cast<int64_t>(rng());
    if (rng() % 2 == 0) increment >>= rng() % 64;  // small increments too
    const __int128 sum = static_cast<__int128>(old) + increment;
    __int128 wrapped = (sum - min) % span;
    if (wrapped < 0) wrapped += span;
    wrapped += min;
    const __int128 clamped = sum > max ? max : sum < min ? min : sum;
    const bool fits = sum >= min && sum <= max;
    ASSERT_EQ(FieldForIncrBy(type, old, increment, Overflow::kWrap), static_cast<int64_t>(wrapped))
        << round;
    ASSERT_EQ(FieldForIncrBy(type, old, increment, Overflow::kSat), static_cast<int64_t>(clamped))
        << round;
    ASSERT_EQ(FieldForIncrBy(type, old, increment, Overflow::kFail).has_value(), fits) << round;
  }
}

}  // namespace
}  // namespace sluice::server::bits
