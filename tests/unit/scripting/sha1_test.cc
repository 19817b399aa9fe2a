#include "scripting/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::scripting {
namespace {

// FIPS 180-1 / RFC 3174 test vectors, plus the empty script Redis users know by heart.
TEST(Sha1Test, KnownVectors) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  EXPECT_EQ(Sha1Hex("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
}

TEST(Sha1Test, BinaryInput) {
  std::string data("a\0b", 3);
  EXPECT_NE(Sha1Hex(data), Sha1Hex("a"));
  EXPECT_EQ(Sha1Hex(data).size(), 40u);
}

}  // namespace
}  // namespace sluice::scripting
