// struct, cmsgpack, cjson and bit: round trips, and the malformed, huge and deeply nested
// inputs behind Redis's CVEs refused with an error while the engine keeps working.

#include <gtest/gtest.h>

#include <string>

#include "fake_host.h"

namespace sluice::scripting {
namespace {

using resp::Value;
using testing::Eval;
using testing::FakeHost;

class LibrariesTest : public ::testing::Test {
 protected:
  FakeHost host;
  ScriptEngine engine{&host};

  // A script error whose message contains `text`.
  void ExpectError(std::string_view body, std::string_view text) {
    Value v = Eval(engine, body);
    ASSERT_EQ(v.kind, Value::Kind::kError) << body << " -> " << v;
    EXPECT_NE(v.str.find(text), std::string::npos) << body << " -> " << v.str;
    EXPECT_EQ(Eval(engine, "return 'alive'"), Value::Bulk("alive"));
  }
};

// ---------------------------------------------------------------------------------- struct

TEST_F(LibrariesTest, StructRoundTrips) {
  EXPECT_EQ(Eval(engine, "return {struct.unpack('>iI2b', struct.pack('>iI2b', -5, 65535, -1))}"),
            Value::Array({Value::Int(-5), Value::Int(65535), Value::Int(-1), Value::Int(8)}));
  EXPECT_EQ(Eval(engine, "return struct.pack('>I2', 258)"),
            Value::Bulk(std::string("\x01\x02", 2)));
  EXPECT_EQ(Eval(engine, "return struct.pack('<I2', 258)"),
            Value::Bulk(std::string("\x02\x01", 2)));
  EXPECT_EQ(Eval(engine, "return {struct.unpack('s', struct.pack('s', 'hi'))}"),
            Value::Array({Value::Bulk("hi"), Value::Int(4)}));
  EXPECT_EQ(Eval(engine, "return {struct.unpack('bc0', struct.pack('bc0', 3, 'abc'))}"),
            Value::Array({Value::Bulk("abc"), Value::Int(5)}));
  EXPECT_EQ(
      Eval(engine, "local a, b = struct.unpack('>d', struct.pack('>d', 1.5)) return {a * 2, b}"),
      Value::Array({Value::Int(3), Value::Int(9)}));
  EXPECT_EQ(Eval(engine, "return struct.size('!4 b i')"), Value::Int(8));
  EXPECT_EQ(Eval(engine, "return struct.size('>i8 I3 c10')"), Value::Int(21));
  EXPECT_EQ(Eval(engine, "return #struct.pack('i32', -1)"), Value::Int(32));
  EXPECT_EQ(Eval(engine, "return {struct.unpack('>i', struct.pack('>i', 7), 1)}"),
            Value::Array({Value::Int(7), Value::Int(5)}));
}

TEST_F(LibrariesTest, StructRefusesBadFormatsAndShortData) {
  ExpectError("return struct.pack('i99999999999', 1)", "integral size overflow");
  ExpectError("return struct.pack('i33', 1)", "integral size 33 is larger than limit of 32");
  ExpectError("return struct.pack('!3 i', 1)", "alignment 3 is not a power of 2");
  ExpectError("return struct.pack('q', 1)", "invalid format option 'q'");
  ExpectError("return struct.unpack('i', 'ab')", "data string too short");
  ExpectError("return struct.unpack('c2147483647', 'ab')", "data string too short");
  ExpectError("return struct.unpack('i', 'abcdefgh', 9007199254740992)", "data string too short");
  ExpectError("return struct.unpack('i', 'abcd', 0)", "offset must be 1 or greater");
  ExpectError("return struct.unpack('c0', 'abcd')", "format 'c0' needs a previous size");
  ExpectError("return struct.unpack('bc0', struct.pack('b', 100))", "data string too short");
  ExpectError("return struct.unpack('bc0', struct.pack('b', -1) .. 'xyz')",
              "data string too short");
  ExpectError("return struct.unpack('s', 'abc')", "unfinished string in data");
  ExpectError("return struct.pack('c10', 'abc')", "string too short");
  ExpectError("return struct.size('s')", "has no fixed size");
  // Tens of thousands of results overflow Lua's C stack limit: an error, not a crash.
  ExpectError("return struct.unpack(string.rep('b', 20000), string.rep('x', 20000))",
              "too many results");
}

// -------------------------------------------------------------------------------- cmsgpack

TEST_F(LibrariesTest, CmsgpackRoundTrips) {
  EXPECT_EQ(Eval(engine,
                 "local t = cmsgpack.unpack(cmsgpack.pack({1, 'two', {a = 3}, true, 1.5})) "
                 "return {t[1], t[2], t[3].a, tostring(t[4]), t[5] * 2}"),
            Value::Array({Value::Int(1), Value::Bulk("two"), Value::Int(3), Value::Bulk("true"),
                          Value::Int(3)}));
  for (const char* n : {"0", "127", "128", "255", "256", "65535", "65536", "4294967295",
                        "4294967296", "-1", "-32", "-33", "-128", "-129", "-32768", "-32769",
                        "-2147483648", "-2147483649", "9007199254740992"}) {
    std::string body = std::string("return cmsgpack.unpack(cmsgpack.pack(") + n + ")) == " + n;
    EXPECT_EQ(Eval(engine, body), Value::Int(1)) << n;
  }
  for (int len : {0, 31, 32, 255, 256, 65535, 65536}) {
    std::string body = "local s = string.rep('x', " + std::to_string(len) +
                       ") return cmsgpack.unpack(cmsgpack.pack(s)) == s";
    EXPECT_EQ(Eval(engine, body), Value::Int(1)) << len;
  }
  EXPECT_EQ(Eval(engine, "return cmsgpack.pack(1, 'a')"), Value::Bulk("\x01\xa1"
                                                                      "a"));
  EXPECT_EQ(Eval(engine, "return {cmsgpack.unpack(cmsgpack.pack(1, 2, 3))}"),
            Value::Array({Value::Int(1), Value::Int(2), Value::Int(3)}));
  EXPECT_EQ(Eval(engine, "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}"),
            Value::Array({Value::Int(1), Value::Int(1)}));
  EXPECT_EQ(Eval(engine, "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)}"),
            Value::Array({Value::Int(-1), Value::Int(2)}));
  EXPECT_EQ(Eval(engine, "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
            Value::Array({Value::Int(2), Value::Int(1), Value::Int(2)}));
  // Deeper than 16 levels packs as nil: also what stops a cycle.
  EXPECT_EQ(Eval(engine, "local t = {} t[1] = t return #cmsgpack.pack(t)"), Value::Int(17));
}

TEST_F(LibrariesTest, CmsgpackRefusesMalformedInput) {
  ExpectError("return cmsgpack.unpack('\\146\\1')", "Missing bytes in input.");
  ExpectError("return cmsgpack.unpack('\\221\\255\\255\\255\\255')", "Missing bytes in input.");
  ExpectError("return cmsgpack.unpack('\\223\\255\\255\\255\\255\\1')", "Missing bytes in input.");
  ExpectError("return cmsgpack.unpack('\\219\\255\\255\\255\\255xx')", "Missing bytes in input.");
  ExpectError("return cmsgpack.unpack('\\193')", "Bad data format in input.");
  ExpectError("return cmsgpack.unpack_one('\\1', 5)",
              "Start offset 5 greater than input length 1.");
  ExpectError("return cmsgpack.pack()", "MessagePack pack needs input.");
  // A nil map key is a Lua error, not a crash.
  ExpectError("return cmsgpack.unpack('\\129\\192\\1')", "table index is nil");
  // 1001 nested arrays (Redis's CVE-2018-11218 shape): refused; 1000 are fine.
  ExpectError("return cmsgpack.unpack(string.rep('\\145', 1001) .. '\\1')",
              "Bad data format in input.");
  EXPECT_EQ(Eval(engine,
                 "local t = cmsgpack.unpack(string.rep('\\145', 1000) .. '\\1') "
                 "return type(t)"),
            Value::Bulk("table"));
}

// ----------------------------------------------------------------------------------- cjson

TEST_F(LibrariesTest, CjsonRoundTrips) {
  EXPECT_EQ(Eval(engine, "return cjson.encode({1, 2, 'x'})"), Value::Bulk("[1,2,\"x\"]"));
  EXPECT_EQ(Eval(engine, "return cjson.encode({a = {b = true}})"),
            Value::Bulk("{\"a\":{\"b\":true}}"));
  EXPECT_EQ(Eval(engine,
                 "local t = cjson.decode('{\"a\":[1,2,{\"b\":null}]}') "
                 "return {t.a[1], t.a[2], tostring(t.a[3].b == cjson.null)}"),
            Value::Array({Value::Int(1), Value::Int(2), Value::Bulk("true")}));
}

TEST_F(LibrariesTest, CjsonRefusesDeepNestingAndBadInput) {
  ExpectError("return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
              "Found too many nested data structures (1001)");
  ExpectError("return cjson.decode(string.rep('[', 100000))", "too many nested data structures");
  ExpectError("local t = {} t[1] = t return cjson.encode(t)", "excessive nesting");
  ExpectError("return cjson.decode('{')", "Expected object key string but found T_END");
  EXPECT_EQ(
      Eval(engine, "return type(cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000)))"),
      Value::Bulk("table"));
}

// ------------------------------------------------------------------------------------- bit

TEST_F(LibrariesTest, BitOperations) {
  EXPECT_EQ(
      Eval(engine,
           "return {bit.tobit(0xffffffff), bit.tobit(2^32 + 1), bit.bnot(0), "
           "bit.band(0xff, 0x0f, 0x3), bit.bor(1, 2, 4), bit.bxor(3, 1), "
           "bit.lshift(1, 33), bit.rshift(-1, 28), bit.arshift(-16, 2), "
           "bit.rol(0x80000000, 1), bit.ror(1, 1), bit.bswap(0x01020304)}"),
      Value::Array({Value::Int(-1), Value::Int(1), Value::Int(-1), Value::Int(3), Value::Int(7),
                    Value::Int(2), Value::Int(2), Value::Int(15), Value::Int(-4), Value::Int(1),
                    Value::Int(INT32_MIN), Value::Int(0x04030201)}));
  EXPECT_EQ(Eval(engine,
                 "return {bit.tohex(255), bit.tohex(255, 2), bit.tohex(255, -4), "
                 "bit.tohex(-1, 100)}"),
            Value::Array({Value::Bulk("000000ff"), Value::Bulk("ff"), Value::Bulk("00FF"),
                          Value::Bulk("ffffffff")}));
  // Redis's CVE-2024-31449: a digit count of INT32_MIN overran a buffer.
  EXPECT_EQ(Eval(engine, "return bit.tohex(65535, -2147483648)"), Value::Bulk("0000FFFF"));
  ExpectError("return bit.band('x')", "bad argument #1 to 'band' (number expected, got string)");
}

}  // namespace
}  // namespace sluice::scripting
