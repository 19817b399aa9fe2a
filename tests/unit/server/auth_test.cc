// requirepass comparison: right answers for every kind of difference (the timing property, no
// early exit, is in the code's shape: every byte of the longer input is always examined).

#include "server/commands/auth.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::server {
namespace {

TEST(ConstantTimeEqualsTest, EqualInputs) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_TRUE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0b", 3)));
}

TEST(ConstantTimeEqualsTest, DifferentInputs) {
  EXPECT_FALSE(ConstantTimeEquals("secret", "secreT"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "Secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secret2"));  // a prefix is not a match
  EXPECT_FALSE(ConstantTimeEquals("secret2", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
  EXPECT_FALSE(ConstantTimeEquals("x", ""));
  // Trailing NUL bytes must not make a shorter input equal (the padding is NUL too).
  EXPECT_FALSE(ConstantTimeEquals("ab", std::string("ab\0", 3)));
  EXPECT_FALSE(ConstantTimeEquals(std::string("ab\0", 3), "ab"));
}

}  // namespace
}  // namespace sluice::server
