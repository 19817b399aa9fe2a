// FUNCTION DUMP / RESTORE payloads: Redis 7.0's format both ways, and its errors.

#include "server/function_payload.h"

#include <gtest/gtest.h>

#include "storage/rdb_format.h"
#include "tests/unit/hex.h"

namespace sluice::server {
namespace {

using sluice::testing::FromHex;

std::string DecodeError(std::string_view payload) {
  auto decoded = DecodeFunctionPayload(payload);
  return decoded.ok() ? "" : decoded.status().message();
}

TEST(FunctionPayloadTest, RoundTrip) {
  const std::string big(20000, 'x');  // a 4-byte length
  std::vector<std::string_view> codes = {"#!lua name=a\n", std::string_view(big), ""};
  auto decoded = DecodeFunctionPayload(EncodeFunctionPayload(codes));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->size(), 3u);
  EXPECT_EQ((*decoded)[0], "#!lua name=a\n");
  EXPECT_EQ((*decoded)[1], big);
  EXPECT_EQ((*decoded)[2], "");
}

// FUNCTION DUMP of redis-server 7.0.15: the library's code LZF-compressed.
TEST(FunctionPayloadTest, ReadsRedisDump) {
  const std::string dump = FromHex(
      "f5c3406140a71f23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f0b66756e"
      "6374696f6e28226d79400b02222c2040066012116b6579732c2061726773292072657475726e600c075b31"
      "5d20656e6429e0174a0032e0204b0164290a00b1e5dfb1a860fd52");
  auto decoded = DecodeFunctionPayload(dump);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ((*decoded)[0],
            "#!lua name=mylib\n"
            "redis.register_function(\"myfunc\", function(keys, args) return args[1] end)\n"
            "redis.register_function(\"myfunc2\", function(keys, args) return args[1] end)");
}

// Redis 7.0-rc1/rc2's record (opcode 246), which 7.0.15 restores: name, engine, a description
// (dropped), then the code, given the header the name and engine stand for.
TEST(FunctionPayloadTest, ReadsPreGaLibraries) {
  std::string body = "\xf6";
  for (std::string_view part : {"oldlib", "LUA"}) storage::AppendRdbString(&body, part);
  body += '\x01';
  storage::AppendRdbString(&body, "a description");
  storage::AppendRdbString(&body, "redis.register_function('f', function() return 1 end)");
  body += '\xf6';
  for (std::string_view part : {"second", "lua"}) storage::AppendRdbString(&body, part);
  body += '\x00';
  storage::AppendRdbString(&body, "code");
  storage::SealRdbPayload(&body);
  auto decoded = DecodeFunctionPayload(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(*decoded,
            (std::vector<std::string>{
                "#!LUA name=oldlib\nredis.register_function('f', function() return 1 end)",
                "#!lua name=second\ncode"}));
}

TEST(FunctionPayloadTest, Errors) {
  EXPECT_EQ(DecodeError("short"), "DUMP payload version or checksum are wrong");
  std::vector<std::string_view> codes = {"x"};
  std::string good = EncodeFunctionPayload(codes);
  std::string flipped = good;
  flipped[2] ^= 1;
  EXPECT_EQ(DecodeError(flipped), "DUMP payload version or checksum are wrong");
  // A payload with a valid footer around other content.
  auto with_footer = [](std::string body) {
    storage::SealRdbPayload(&body);
    return body;
  };
  EXPECT_EQ(DecodeError(with_footer("\x01")), "given type is not a function");
  EXPECT_EQ(DecodeError(with_footer("\xf6")), "Failed loading library name");
  EXPECT_EQ(DecodeError(with_footer("\xf6\x01n")), "Failed loading engine name");
  EXPECT_EQ(DecodeError(with_footer("\xf6\x01n\x03LUA")),
            "Failed loading library description indicator");
  EXPECT_EQ(DecodeError(with_footer("\xf6\x01n\x03LUA\x01")), "Failed loading library description");
  EXPECT_EQ(DecodeError(with_footer(std::string("\xf6\x01n\x03LUA\x00", 8))),
            "Failed loading library payload");
  EXPECT_EQ(DecodeError(with_footer("\xf5\x05"
                                    "ab")),
            "Failed loading library payload");
  EXPECT_EQ(DecodeError(with_footer("")), "");
}

}  // namespace
}  // namespace sluice::server
