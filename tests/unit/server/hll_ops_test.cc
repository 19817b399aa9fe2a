// The HyperLogLog math of the PF* commands: the hash against vectors from a separate Python
// reimplementation of MurmurHash64A, bytes a real Redis 7.0.15 produced, sparse and dense
// strings that must hold the same registers, promotion, corrupt strings, and estimates
// against exact counts.

#include "server/commands/hll_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sluice::server::hll {
namespace {

using std::string_literals::operator""s;

constexpr uint64_t kDefaultSparseMax = 3000;

// Computed by a 30-line Python MurmurHash64A written from the algorithm's description (not
// from this code): the hash with Redis's seed and with seed 0, and the register and value.
struct HashVector {
  std::string input;
  uint64_t with_redis_seed;
  uint64_t with_zero_seed;
  int index;
  int value;
};
const std::vector<HashVector> kHashVectors = {
    {"", 0xd8dfea6585bc9732, 0x0, 5938, 2},
    {"a", 0x53d2470a9b43b1a7, 0x71717d2d36b6b11, 12711, 2},
    {"b", 0xf10cdf96c004fda4, 0xea8bfc7d922a2a37, 15780, 1},
    {"c", 0x7585a45533f260f4, 0xd8788d18ba82e0b5, 8436, 1},
    {"abcdefgh", 0xf3a65df559914567, 0xafdb0257ff41aa98, 1383, 1},
    {"abcdefghi", 0x834fba4d9152daf7, 0xc9b9d84356146ac2, 6903, 1},
    {"hello world!", 0xfc444011f57220c, 0x64db099bd1512951, 8716, 3},
    {"\x00\xff\x80"s, 0xb3a88b2d350bf7f, 0xb9e76380cadc050e, 16255, 2},
    {std::string(23, 'x'), 0x54d1dc7019246d2e, 0x4a318aaf10509266, 11566, 1},
};

TEST(HllHash, MatchesAnIndependentImplementation) {
  for (const HashVector& v : kHashVectors) {
    EXPECT_EQ(MurmurHash64A(v.input, kHashSeed), v.with_redis_seed) << v.input;
    EXPECT_EQ(MurmurHash64A(v.input, 0), v.with_zero_seed) << v.input;
    const RegisterUpdate update = HashElement(v.input);
    EXPECT_EQ(update.index, v.index) << v.input;
    EXPECT_EQ(update.value, v.value) << v.input;
  }
}

std::string Header(uint8_t encoding, uint8_t stale) {
  std::string s = "HYLL"s + static_cast<char>(encoding) + std::string(10, '\0');
  return s + static_cast<char>(stale);
}

TEST(HllSparse, NewAndAddedBytesAreRedisOnes) {
  // redis-server 7.0.15: PFADD h, then PFADD h a b c, GET h.
  std::string hll = NewHll();
  EXPECT_EQ(hll, Header(1, 0) + "\x7f\xff"s);
  for (const char* e : {"a", "b", "c"}) {
    EXPECT_EQ(Add(hll, e, kDefaultSparseMax), SetResult::kUpdated);
  }
  EXPECT_EQ(hll, Header(1, 0x80) + "\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a"s);
  EXPECT_EQ(DescribeSparse(hll), "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
  EXPECT_EQ(Add(hll, "a", kDefaultSparseMax), SetResult::kUnchanged);
  EXPECT_EQ(Estimate(hll), 3u);
}

TEST(HllSparse, SplitsAndMergesRuns) {
  std::string hll = NewHll();
  EXPECT_EQ(SetRegister(hll, 0, 3, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,1 Z:16383");
  EXPECT_EQ(SetRegister(hll, 2, 3, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,1 z:1 v:3,1 Z:16381");
  // Filling the zero between them merges the three into one run.
  EXPECT_EQ(SetRegister(hll, 1, 3, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,3 Z:16381");
  // Raising the middle of a run splits it; a lower value changes nothing.
  EXPECT_EQ(SetRegister(hll, 1, 2, kDefaultSparseMax), SetResult::kUnchanged);
  EXPECT_EQ(SetRegister(hll, 1, 5, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,1 v:5,1 v:3,1 Z:16381");
  EXPECT_EQ(SetRegister(hll, 100, 1, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,1 v:5,1 v:3,1 Z:97 v:1,1 Z:16283");
  EXPECT_EQ(SetRegister(hll, 16383, 32, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(hll), "v:3,1 v:5,1 v:3,1 Z:97 v:1,1 Z:16282 v:32,1");
  EXPECT_EQ(EncodingOf(hll), Encoding::kSparse);
}

TEST(HllSparse, PromotesAboveValue32OrPastTheSizeLimit) {
  std::string hll = NewHll();
  EXPECT_EQ(SetRegister(hll, 7, 33, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(EncodingOf(hll), Encoding::kDense);
  EXPECT_EQ(hll.size(), kDenseSize);
  EXPECT_EQ(DenseRegister(std::string_view(hll).substr(kHeaderSize), 7), 33);

  // The limit counts the header: an XZERO split in three grows 18 bytes to 21.
  std::string at_limit = NewHll();
  EXPECT_EQ(SetRegister(at_limit, 5000, 1, 21), SetResult::kUpdated);
  EXPECT_EQ(EncodingOf(at_limit), Encoding::kSparse);
  EXPECT_EQ(at_limit.size(), 21u);
  // Raising a VAL of run 1 does not grow the string: no promotion.
  EXPECT_EQ(SetRegister(at_limit, 5000, 9, 21), SetResult::kUpdated);
  EXPECT_EQ(EncodingOf(at_limit), Encoding::kSparse);
  EXPECT_EQ(SetRegister(at_limit, 9000, 1, 21), SetResult::kUpdated);
  EXPECT_EQ(EncodingOf(at_limit), Encoding::kDense);
  const std::string_view registers = std::string_view(at_limit).substr(kHeaderSize);
  EXPECT_EQ(DenseRegister(registers, 5000), 9);
  EXPECT_EQ(DenseRegister(registers, 9000), 1);
  EXPECT_EQ(DenseRegister(registers, 8999), 0);
  // The header (the cache's stale bit) survives the conversion.
  EXPECT_EQ(at_limit.substr(0, 4), "HYLL");
  EXPECT_FALSE(CachedCardinality(at_limit).has_value());

  std::string over = NewHll();
  EXPECT_EQ(SetRegister(over, 5000, 1, 20), SetResult::kUpdated);
  EXPECT_EQ(EncodingOf(over), Encoding::kDense);
}

RawRegisters RegistersOf(std::string_view hll) {
  RawRegisters out{};
  EXPECT_TRUE(MergeInto(out, hll));
  return out;
}

TEST(HllEncodings, SparseDenseAndPromotedHoldTheSameRegisters) {
  std::mt19937_64 rng(7);
  // Each sparse add walks the whole string: 30,000 elements took 44 s under the sanitizers.
  for (int n : {1, 10, 300, 3000, 6000}) {
    std::string sparse = NewHll();
    std::string dense = NewHll();
    ASSERT_TRUE(ToDense(dense));
    std::string promoted = NewHll();  // the default limit: dense somewhere past ~1000 elements
    for (int i = 0; i < n; ++i) {
      const std::string element = std::to_string(rng());
      const SetResult a = Add(sparse, element, uint64_t{1} << 40);
      const SetResult b = Add(dense, element, 0);
      ASSERT_EQ(a, b) << element;
      ASSERT_NE(Add(promoted, element, kDefaultSparseMax), SetResult::kCorrupt);
    }
    EXPECT_EQ(EncodingOf(sparse), Encoding::kSparse);
    EXPECT_EQ(EncodingOf(promoted), n >= 3000 ? Encoding::kDense : Encoding::kSparse) << n;
    const RawRegisters expected = RegistersOf(dense);
    EXPECT_EQ(RegistersOf(sparse), expected);
    EXPECT_EQ(RegistersOf(promoted), expected);
    EXPECT_EQ(Estimate(sparse), Estimate(dense));
    EXPECT_EQ(Estimate(promoted), Estimate(dense));
    EXPECT_EQ(Estimate(expected), *Estimate(dense));
    // Converting the sparse one gives the dense bytes but the header's cache byte.
    std::string converted = sparse;
    ASSERT_TRUE(ToDense(converted));
    EXPECT_EQ(converted.substr(kHeaderSize), dense.substr(kHeaderSize));
  }
}

TEST(HllEstimate, StaysWithinTheErrorOfExactCounts) {
  std::mt19937_64 rng(11);
  std::string hll = NewHll();
  int added = 0;
  for (int target : {0, 1, 2, 5, 20, 100, 1000, 10000, 100000, 400000}) {
    for (; added < target; ++added) {
      (void)Add(hll, "member:" + std::to_string(rng()), kDefaultSparseMax);
    }
    const std::optional<uint64_t> estimate = Estimate(hll);
    ASSERT_TRUE(estimate.has_value());
    // The standard error is 1.04 / sqrt(16384), 0.81%: three of them, and exact when tiny.
    const double allowed = target <= 20 ? 0 : 0.0244 * target;
    EXPECT_LE(std::abs(static_cast<double>(*estimate) - target), allowed) << target;
  }
}

TEST(HllHeader, ValidityAndCache) {
  std::string hll = NewHll();
  EXPECT_TRUE(HasValidHeader(hll));
  EXPECT_FALSE(HasValidHeader(hll.substr(0, 15)));
  EXPECT_FALSE(HasValidHeader("HYLX" + hll.substr(4)));
  std::string bad_encoding = hll;
  bad_encoding[4] = 2;
  EXPECT_FALSE(HasValidHeader(bad_encoding));
  std::string dense = hll;
  ASSERT_TRUE(ToDense(dense));
  EXPECT_TRUE(HasValidHeader(dense));
  EXPECT_FALSE(HasValidHeader(dense + "x"));
  EXPECT_FALSE(HasValidHeader(dense.substr(0, kDenseSize - 1)));
  EXPECT_TRUE(HasValidHeader(Header(1, 0)));  // sparse with no opcodes: valid header, corrupt

  EXPECT_EQ(CachedCardinality(hll), 0u);
  StoreCardinality(hll, 0x0102030405u);
  EXPECT_EQ(hll.substr(8, 8), "\x05\x04\x03\x02\x01\x00\x00\x00"s);
  EXPECT_EQ(CachedCardinality(hll), 0x0102030405u);
  InvalidateCache(hll);
  EXPECT_FALSE(CachedCardinality(hll).has_value());
  EXPECT_EQ(static_cast<uint8_t>(hll[15]), 0x80);
}

TEST(HllCorrupt, SparseRunsMustCoverExactlyTheRegisters) {
  RawRegisters max{};
  // No opcodes at all.
  std::string empty = Header(1, 0x80);
  EXPECT_EQ(SetRegister(empty, 3, 1, kDefaultSparseMax), SetResult::kCorrupt);
  EXPECT_FALSE(Estimate(empty).has_value());
  EXPECT_FALSE(MergeInto(max, empty));
  EXPECT_FALSE(ToDense(empty));
  EXPECT_EQ(empty, Header(1, 0x80));

  // 100 registers only: an add inside them works, one past them is corrupt.
  std::string short_runs = Header(1, 0) + "\x40\x63"s;
  EXPECT_EQ(SetRegister(short_runs, 50, 2, kDefaultSparseMax), SetResult::kUpdated);
  EXPECT_EQ(DescribeSparse(short_runs), "z:50 v:2,1 z:49");
  EXPECT_EQ(SetRegister(short_runs, 100, 2, kDefaultSparseMax), SetResult::kCorrupt);
  EXPECT_FALSE(Estimate(short_runs).has_value());

  // Twice the registers.
  const std::string twice = Header(1, 0) + "\x7f\xff\x7f\xff"s;
  EXPECT_FALSE(Estimate(twice).has_value());
  EXPECT_FALSE(MergeInto(max, twice));
  std::string copy = twice;
  EXPECT_FALSE(ToDense(copy));
  // A VAL run past the last register: Redis stops merging there.
  const std::string val_past = Header(1, 0) + "\x7f\xfe\x83"s;  // 16383 zeros, then 4 ones
  EXPECT_FALSE(MergeInto(max, val_past));
  // A truncated XZERO reads its missing byte as 0 (Redis reads the string's NUL).
  EXPECT_EQ(DescribeSparse(Header(1, 0) + "\x40"s), "Z:1");
}

TEST(HllDense, EveryRegisterRoundTrips) {
  std::string dense = NewHll();
  ASSERT_TRUE(ToDense(dense));
  std::mt19937 rng(3);
  RawRegisters expected{};
  for (int i = 0; i < kRegisters; ++i) {
    const auto value = static_cast<uint8_t>(rng() % 64);
    expected[static_cast<size_t>(i)] = value;
    if (value != 0) {
      EXPECT_EQ(SetRegister(dense, i, value, 0), SetResult::kUpdated);
    }
  }
  EXPECT_EQ(dense.size(), kDenseSize);
  EXPECT_EQ(RegistersOf(dense), expected);
  EXPECT_EQ(SetRegister(dense, 0, 0, 0), SetResult::kUnchanged);
}

}  // namespace
}  // namespace sluice::server::hll
