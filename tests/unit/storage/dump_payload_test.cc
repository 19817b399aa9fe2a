#include "storage/dump_payload.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "storage/crc64.h"
#include "storage/rdb_format.h"
#include "tests/unit/hex.h"

namespace sluice::storage {
namespace {

// Payloads that redis-server 7.0.15 answered to DUMP, as hex.
using sluice::testing::FromHex;

DumpValue Decoded(std::string_view hex) {
  auto value = DecodeDumpPayload(FromHex(hex));
  EXPECT_TRUE(value.ok()) << value.status().message();
  return value.ok() ? *value : DumpValue{};
}

using Strings = std::vector<std::string>;
using Fields = std::vector<std::pair<std::string, std::string>>;

std::vector<std::pair<std::string, double>> Scores(const DumpValue& value) {
  std::vector<std::pair<std::string, double>> out;
  for (const ScoredMember& each : value.scored) out.emplace_back(each.member, each.score);
  return out;
}

TEST(Crc64JonesTest, ChecksTheStandardCheckValue) {
  EXPECT_EQ(Crc64Jones(0, "123456789"), 0xe9c6d914c4b8d9caULL);
  EXPECT_EQ(Crc64Jones(Crc64Jones(0, "1234"), "56789"), 0xe9c6d914c4b8d9caULL);
}

// Eight bytes at a time (slicing) gives the bit-by-bit definition's CRC whatever the length,
// the alignment and the value the CRC continues from.
TEST(Crc64JonesTest, AgreesWithTheBitwiseDefinitionOnAnyLengthAndAlignment) {
  const auto bitwise = [](uint64_t crc, std::string_view data) {
    constexpr uint64_t kReflected = 0x95ac9329ac4bc9b5ULL;  // 0xad93d23594c935a9 reversed
    for (char c : data) {
      crc ^= static_cast<uint8_t>(c);
      for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kReflected : crc >> 1;
    }
    return crc;
  };
  std::string bytes(300, '\0');
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (char& c : bytes) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    c = static_cast<char>(state >> 56);
  }
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t length = 0; length + offset <= 200; length += 7) {
      const std::string_view data = std::string_view(bytes).substr(offset, length);
      EXPECT_EQ(Crc64Jones(0, data), bitwise(0, data)) << offset << " " << length;
      EXPECT_EQ(Crc64Jones(0x1234567890abcdefULL, data), bitwise(0x1234567890abcdefULL, data));
    }
  }
}

TEST(DumpPayloadTest, DecodesRedisStrings) {
  DumpValue plain = Decoded("000568656c6c6f0a006372df766534200a");
  EXPECT_EQ(plain.type, KeyType::kString);
  EXPECT_EQ(plain.bytes, "hello");
  EXPECT_EQ(Decoded("00c139300a009d94ea2793fc08b9").bytes, "12345");  // integer encoded
  EXPECT_EQ(Decoded("00c3094064016161e057000161610a00e8a3b507b06df271").bytes,
            std::string(100, 'a'));  // LZF compressed
}

TEST(DumpPayloadTest, DecodesRedisListsFromQuicklistsOfListpacks) {
  DumpValue small =
      Decoded("120102171700000005008161028162020101dffb02f2e0930404ff0a00450af2c834578fc4");
  EXPECT_EQ(small.type, KeyType::kList);
  EXPECT_EQ(small.elements, (Strings{"a", "b", "1", "-5", "300000"}));
  // A compressed listpack with a 12-bit string and 24- and 64-bit integers.
  DumpValue wide = Decoded(
      "120102c326406608660000000500e04678e03c000f48f270110104f290eefe04f4005ed0b2205c0400090c01ff"
      "0a00493e46fd67a46fc7");
  EXPECT_EQ(wide.elements, (Strings{std::string(70, 'x'), "70000", "-70000", "3000000000", "12"}));
}

TEST(DumpPayloadTest, DecodesRedisSets) {
  DumpValue intset = Decoded("0b0e02000000030000000100020003000a00a5025ce26d6e4d1b");
  EXPECT_EQ(intset.type, KeyType::kSet);
  EXPECT_EQ(intset.elements, (Strings{"1", "2", "3"}));
  EXPECT_EQ(Decoded("0b10040000000200000001000000701101000a002735436efd6656c4").elements,
            (Strings{"1", "70000"}));
  EXPECT_EQ(Decoded("0202016201610a0075d99d835ef85f65").elements, (Strings{"b", "a"}));
}

TEST(DumpPayloadTest, DecodesRedisSortedSetsAndHashes) {
  DumpValue zset = Decoded("1114140000000400816102010181620283322e3504ff0a00d44c6ea4f644d9d7");
  EXPECT_EQ(zset.type, KeyType::kZSet);
  EXPECT_EQ(Scores(zset), (std::vector<std::pair<std::string, double>>{{"a", 1}, {"b", 2.5}}));
  DumpValue compressed = Decoded(
      "11c3252e172e0000000600816e02dffd02816d020501816f0297312e30e005000731652b33303018ff0a0075f8"
      "3057c3c12cf4");
  EXPECT_EQ(Scores(compressed),
            (std::vector<std::pair<std::string, double>>{{"n", -3}, {"m", 5}, {"o", 1e300}}));
  DumpValue hash = Decoded("1012120000000400816602817602816e020501ff0a008490939f57b4f3c2");
  EXPECT_EQ(hash.type, KeyType::kHash);
  EXPECT_EQ(hash.fields, (Fields{{"f", "v"}, {"n", "5"}}));
}

TEST(DumpPayloadTest, WhatItEncodesDecodesToTheSameValue) {
  std::vector<DumpValue> values(6);
  values[0].type = KeyType::kString;
  values[0].bytes = std::string(20000, 'q') + std::string("\0\xff", 2);
  values[1].type = KeyType::kList;
  values[1].elements = {"x", "", "x", std::string(300, 'y')};
  values[2].type = KeyType::kSet;
  values[2].elements = {"a", "-1", "zz"};
  values[3].type = KeyType::kZSet;
  values[3].scored = {{"lo", -HUGE_VAL}, {"mid", 0.1}, {"hi", HUGE_VAL}};
  values[4].type = KeyType::kHash;
  values[4].fields = {{"f", "v"}, {"", "empty field"}};
  values[5].type = KeyType::kLimiter;
  values[5].bytes = "\x01\x02state";
  for (const DumpValue& value : values) {
    auto back = DecodeDumpPayload(EncodeDumpPayload(value));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->type, value.type);
    EXPECT_EQ(back->bytes, value.bytes);
    EXPECT_EQ(back->elements, value.elements);
    EXPECT_EQ(Scores(*back), Scores(value));
    EXPECT_EQ(back->fields, value.fields);
  }
}

TEST(DumpPayloadTest, AWrongFooterIsTheVersionOrChecksumError) {
  const std::string good = FromHex("000568656c6c6f0a006372df766534200a");
  std::string bad_crc = good;
  bad_crc.back() ^= 1;
  std::string bad_byte = good;
  bad_byte[3] ^= 1;
  for (const std::string& payload : {bad_crc, bad_byte, good.substr(0, 9), std::string()}) {
    auto value = DecodeDumpPayload(payload);
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.status().message(), "DUMP payload version or checksum are wrong");
  }
  // A newer RDB version than Redis 7.0's, with a correct checksum.
  DumpValue s;
  s.bytes = "x";
  std::string newer = EncodeDumpPayload(s);
  newer.resize(newer.size() - 10);
  newer += std::string("\x0b\x00", 2);
  const uint64_t crc = Crc64Jones(0, newer);
  for (int shift = 0; shift < 64; shift += 8) newer.push_back(static_cast<char>(crc >> shift));
  EXPECT_EQ(DecodeDumpPayload(newer).status().message(),
            "DUMP payload version or checksum are wrong");
}

// `object` (type byte and body) sealed with a good footer: only the body can be wrong.
std::string Sealed(std::string object) {
  SealRdbPayload(&object);
  return object;
}

TEST(DumpPayloadTest, ABodyIsReadFromTheWholePayloadAsRedisReadsIt) {
  // Cut short: the string reads on into the footer. Too long: the rest is ignored.
  auto into_footer = DecodeDumpPayload(Sealed(std::string("\x00\x05hell", 6)));
  ASSERT_TRUE(into_footer.ok());
  EXPECT_EQ(into_footer->bytes, "hell\n");  // \n: the version's low byte, 10
  auto left_over =
      DecodeDumpPayload(Sealed(std::string("\x00\x01"
                                           "ab",
                                           4)));
  ASSERT_TRUE(left_over.ok());
  EXPECT_EQ(left_over->bytes, "a");
}

TEST(DumpPayloadTest, MalformedBodiesAreBadDataFormat) {
  const std::vector<std::string> bodies = {
      std::string("\x00\x20hell", 6),  // a string longer than the payload
      std::string("\x02\x00", 2),      // an empty set
      std::string("\x02\x02\x01"
                  "a\x01"
                  "a",
                  7),  // a member twice
      std::string("\x04\x01\x01"
                  "f",
                  4),                               // a hash field without its value
      std::string("\x0f\x00", 2),                   // a stream
      std::string("\x0a\x00", 2),                   // Redis 6's ziplist list
      std::string("\x00\xc3\x05\x40\x00xxxxx", 9),  // LZF that does not expand as claimed
  };
  for (const std::string& body : bodies) {
    auto value = DecodeDumpPayload(Sealed(body));
    ASSERT_FALSE(value.ok()) << "accepted " << body.size() << " bytes";
    EXPECT_EQ(value.status().message(), "Bad data format");
  }
}

}  // namespace
}  // namespace sluice::storage
