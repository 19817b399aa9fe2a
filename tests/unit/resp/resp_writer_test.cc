// Golden bytes for every ReplyBuilder method in RESP2 and RESP3 (checked against
// redis-server 7.0.15 replies where Redis has the reply).

#include "resp/resp_writer.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "resp/error_messages.h"

namespace sluice::resp {
namespace {

constexpr auto kResp2 = ProtocolVersion::kResp2;
constexpr auto kResp3 = ProtocolVersion::kResp3;

template <typename Fn>
std::string Write(ProtocolVersion v, Fn fn) {
  std::string out;
  RespWriter w(&out, v);
  fn(w);
  return out;
}

template <typename Fn>
void ExpectBoth(Fn fn, std::string_view resp2, std::string_view resp3) {
  EXPECT_EQ(Write(kResp2, fn), resp2);
  EXPECT_EQ(Write(kResp3, fn), resp3);
}

TEST(WriterTest, Simple) {
  ExpectBoth([](RespWriter& w) { w.Simple("OK"); }, "+OK\r\n", "+OK\r\n");
  ExpectBoth([](RespWriter& w) { w.Ok(); }, "+OK\r\n", "+OK\r\n");
  ExpectBoth([](RespWriter& w) { w.Simple(""); }, "+\r\n", "+\r\n");
  ExpectBoth([](RespWriter& w) { w.Simple("a\r\nb"); }, "+a  b\r\n", "+a  b\r\n");
  // 32 bytes are built on the stack, longer lines in place: both lose their CR and LF.
  for (size_t size : {32, 33, 100}) {
    const std::string line = std::string(size - 3, 'x') + "\r\ny";
    const std::string sent = "+" + std::string(size - 3, 'x') + "  y\r\n";
    ExpectBoth([&](RespWriter& w) { w.Simple(line); }, sent, sent);
  }
}

TEST(WriterTest, Errors) {
  ExpectBoth([](RespWriter& w) { w.Error(Code::kErr, "boom"); }, "-ERR boom\r\n", "-ERR boom\r\n");
  ExpectBoth([](RespWriter& w) { w.Error(Status(Code::kSyntax, "")); }, "-ERR syntax error\r\n",
             "-ERR syntax error\r\n");
  ExpectBoth([](RespWriter& w) { w.Error(Code::kWrongType, kWrongTypeMsg); },
             "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
             "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  ExpectBoth([](RespWriter& w) { w.Error(Code::kRaw, "MYERR custom"); }, "-MYERR custom\r\n",
             "-MYERR custom\r\n");
  ExpectBoth([](RespWriter& w) { w.Error(Code::kErr, "a\r\nb\nc"); }, "-ERR a  b c\r\n",
             "-ERR a  b c\r\n");
  ExpectBoth([](RespWriter& w) { w.Error(Code::kProtocol, kProtoInvalidBulkLen); },
             "-ERR Protocol error: invalid bulk length\r\n",
             "-ERR Protocol error: invalid bulk length\r\n");
}

TEST(WriterTest, Integers) {
  ExpectBoth([](RespWriter& w) { w.Int(0); }, ":0\r\n", ":0\r\n");
  ExpectBoth([](RespWriter& w) { w.Int(42); }, ":42\r\n", ":42\r\n");
  ExpectBoth([](RespWriter& w) { w.Int(-7); }, ":-7\r\n", ":-7\r\n");
  ExpectBoth([](RespWriter& w) { w.Int(INT64_MIN); }, ":-9223372036854775808\r\n",
             ":-9223372036854775808\r\n");
  ExpectBoth([](RespWriter& w) { w.Int(INT64_MAX); }, ":9223372036854775807\r\n",
             ":9223372036854775807\r\n");
}

// IntArray writes on the stack up to eight elements and element by element past that; both
// must give what Array and Int give, in both protocols.
TEST(WriterTest, IntArraysEqualArrayThenInts) {
  std::mt19937_64 rng(11);
  for (size_t n = 0; n <= 12; ++n) {
    std::vector<int64_t> values(n);
    for (int64_t& v : values) {
      switch (rng() % 4) {
        case 0: v = INT64_MIN; break;
        case 1: v = INT64_MAX; break;
        case 2: v = static_cast<int64_t>(rng() % 20) - 10; break;
        default: v = static_cast<int64_t>(rng()); break;
      }
    }
    for (ProtocolVersion version : {kResp2, kResp3}) {
      const std::string element_by_element = Write(version, [&](RespWriter& w) {
        w.Array(static_cast<int64_t>(n));
        for (int64_t v : values) w.Int(v);
      });
      EXPECT_EQ(Write(version, [&](RespWriter& w) { w.IntArray(values); }), element_by_element)
          << n;
    }
  }
  ExpectBoth([](RespWriter& w) { w.IntArray(std::vector<int64_t>{1, -2, 30}); },
             "*3\r\n:1\r\n:-2\r\n:30\r\n", "*3\r\n:1\r\n:-2\r\n:30\r\n");
}

TEST(WriterTest, Bulks) {
  ExpectBoth([](RespWriter& w) { w.Bulk(""); }, "$0\r\n\r\n", "$0\r\n\r\n");
  ExpectBoth([](RespWriter& w) { w.Bulk("foo"); }, "$3\r\nfoo\r\n", "$3\r\nfoo\r\n");
  const std::string binary("a\r\n\0b", 5);
  ExpectBoth([&](RespWriter& w) { w.Bulk(binary); }, std::string("$5\r\na\r\n\0b\r\n", 11),
             std::string("$5\r\na\r\n\0b\r\n", 11));
  const std::string big(100000, 'z');
  EXPECT_EQ(Write(kResp2, [&](RespWriter& w) { w.Bulk(big); }), "$100000\r\n" + big + "\r\n");
}

TEST(WriterTest, Nulls) {
  ExpectBoth([](RespWriter& w) { w.Null(); }, "$-1\r\n", "_\r\n");
  ExpectBoth([](RespWriter& w) { w.NullArray(); }, "*-1\r\n", "_\r\n");
  ExpectBoth([](RespWriter& w) { w.Array(-1); }, "*-1\r\n", "_\r\n");
}

TEST(WriterTest, Aggregates) {
  ExpectBoth([](RespWriter& w) { w.Array(0); }, "*0\r\n", "*0\r\n");
  ExpectBoth(
      [](RespWriter& w) {
        w.Array(2);
        w.Bulk("a");
        w.Int(1);
      },
      "*2\r\n$1\r\na\r\n:1\r\n", "*2\r\n$1\r\na\r\n:1\r\n");
  ExpectBoth([](RespWriter& w) { w.Map(0); }, "*0\r\n", "%0\r\n");
  ExpectBoth([](RespWriter& w) { w.Map(3); }, "*6\r\n", "%3\r\n");
  ExpectBoth([](RespWriter& w) { w.Set(0); }, "*0\r\n", "~0\r\n");
  ExpectBoth([](RespWriter& w) { w.Set(2); }, "*2\r\n", "~2\r\n");
}

TEST(WriterTest, NestedMaps) {
  auto write = [](RespWriter& w) {
    w.Map(2);
    w.Bulk("server");
    w.Map(1);
    w.Bulk("version");
    w.Bulk("7.0.0");
    w.Bulk("modules");
    w.Array(0);
  };
  ExpectBoth(write,
             "*4\r\n$6\r\nserver\r\n*2\r\n$7\r\nversion\r\n$5\r\n7.0.0\r\n$7\r\nmodules\r\n*0\r\n",
             "%2\r\n$6\r\nserver\r\n%1\r\n$7\r\nversion\r\n$5\r\n7.0.0\r\n$7\r\nmodules\r\n*0\r\n");
}

TEST(WriterTest, Doubles) {
  struct Case {
    double d;
    std::string_view text;
  };
  const Case cases[] = {
      {1.5, "1.5"},
      {0.1, "0.10000000000000001"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {1e300, "1.0000000000000001e+300"},
      {0.0, "0"},
      {-0.0, "-0"},
      {3.0, "3"},
      {-2.5, "-2.5"},
      {1e17, "1e+17"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {DBL_MIN, "2.2250738585072014e-308"},
      {-DBL_MAX, "-1.7976931348623157e+308"},
      {5e-324, "4.9406564584124654e-324"},
  };
  for (const Case& c : cases) {
    std::string text(c.text);
    ExpectBoth([&](RespWriter& w) { w.Double(c.d); },
               "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n", "," + text + "\r\n");
  }
}

// GEOPOS's coordinates in redis-server 7.0.15: the command's own text, a bulk string in RESP2
// and a double in RESP3.
TEST(WriterTest, DoublesWithTheirText) {
  ExpectBoth([](RespWriter& w) { w.DoubleText(13.361389338970184, "13.36138933897018433"); },
             "$20\r\n13.36138933897018433\r\n", ",13.36138933897018433\r\n");
}

TEST(WriterTest, DoublesMatchPrintf17g) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;
    char expected[64];
    std::snprintf(expected, sizeof expected, "%.17g", d);
    ASSERT_EQ(Write(kResp3, [&](RespWriter& w) { w.Double(d); }),
              "," + std::string(expected) + "\r\n");
  }
}

TEST(WriterTest, Bools) {
  ExpectBoth([](RespWriter& w) { w.Bool(true); }, ":1\r\n", "#t\r\n");
  ExpectBoth([](RespWriter& w) { w.Bool(false); }, ":0\r\n", "#f\r\n");
}

TEST(WriterTest, Verbatim) {
  ExpectBoth([](RespWriter& w) { w.Verbatim("hi\nthere"); }, "$8\r\nhi\nthere\r\n",
             "=12\r\ntxt:hi\nthere\r\n");
  ExpectBoth([](RespWriter& w) { w.Verbatim(""); }, "$0\r\n\r\n", "=4\r\ntxt:\r\n");
}

TEST(WriterTest, AppendsAndSwitches) {
  std::string a = "existing";
  std::string b;
  RespWriter w(&a);
  EXPECT_EQ(w.protocol(), kResp2);
  w.Null();
  w.set_protocol(kResp3);
  EXPECT_EQ(w.protocol(), kResp3);
  w.Null();
  w.set_output(&b);
  EXPECT_EQ(w.output(), &b);
  w.Bool(true);
  EXPECT_EQ(a, "existing$-1\r\n_\r\n");
  EXPECT_EQ(b, "#t\r\n");
  // Through the base interface, as handlers see it (HELLO switches protocol there).
  ReplyBuilder& base = w;
  base.set_protocol(kResp2);
  base.Bool(true);
  EXPECT_EQ(b, "#t\r\n:1\r\n");
}

}  // namespace
}  // namespace sluice::resp
