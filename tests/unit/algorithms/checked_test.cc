#include "algorithms/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace sluice::algorithms {
namespace {

// Floor q of a / b is the q with q*b <= a < (q+1)*b; the ceiling c has (c-1)*b < a <= c*b.
void ExpectExactDivisions(Int128 a, Int128 b) {
  const Int128 floor = FloorDiv128(a, b);
  EXPECT_TRUE(floor * b <= a && a < (floor + 1) * b);
  const Int128 ceil = CeilDiv128(a, b);
  EXPECT_TRUE((ceil - 1) * b < a && a <= ceil * b);
}

TEST(CheckedTest, DivisionsAreExactAcrossTheInt64Boundary) {
  const Int128 big = static_cast<Int128>(kInt64Max) + 1;  // just past the 64-bit path
  for (Int128 a :
       {Int128{0}, Int128{1}, Int128{-1}, Int128{7}, Int128{-7}, Int128{kInt64Max},
        Int128{kInt64Min}, Int128{kInt64Min + 1}, big, -big, big * 3 + 5, -(big * 3 + 5)}) {
    for (Int128 b : {Int128{1}, Int128{2}, Int128{3}, Int128{1000}, Int128{kInt64Max}, big}) {
      ExpectExactDivisions(a, b);
    }
  }
  EXPECT_EQ(FloorDiv128(-7, 2), -4);
  EXPECT_EQ(CeilDiv128(7, 2), 4);
  EXPECT_EQ(CeilDiv128(-7, 2), -3);
  EXPECT_EQ(FloorDiv128(kInt64Min, 1), kInt64Min);
  EXPECT_EQ(CeilDiv128(big * 4 - 1, big), 4);
}

TEST(CheckedTest, RandomDivisionsAreExact) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    // Numerators up to 2^100 either side, divisors up to 2^62: small and large in equal parts.
    const int a_bits = static_cast<int>(rng() % 100);
    const int b_bits = static_cast<int>(rng() % 62);
    Int128 a = (static_cast<Int128>(rng()) << 64 | rng()) & ((Int128{1} << a_bits) - 1);
    if (rng() % 2 == 0) a = -a;
    const Int128 b = static_cast<Int128>(rng() & ((uint64_t{1} << b_bits) - 1)) + 1;
    ExpectExactDivisions(a, b);
  }
}

}  // namespace
}  // namespace sluice::algorithms
