// Capturing builder: trees for scalars and nested aggregates, several top-level replies, and
// Replay through RespWriter producing the same bytes as writing directly.

#include "resp/capturing_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>

#include "resp/error_messages.h"
#include "resp/resp_writer.h"

namespace sluice::resp {
namespace {

using V = Value;

TEST(CapturingBuilderTest, Scalars) {
  CapturingReplyBuilder c;
  EXPECT_FALSE(c.complete());
  c.Ok();
  c.Error(Status(Code::kSyntax, ""));
  c.Error(Code::kRaw, "x y");
  c.Int(-3);
  c.Bulk(std::string("a\0b", 3));
  c.Null();
  c.NullArray();
  c.Double(1.5);
  c.Bool(true);
  c.Verbatim("txt");
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.size(), 10u);
  std::vector<Value> all = c.TakeAll();
  EXPECT_EQ(
      all, (std::vector<Value>{V::Simple("OK"), V::Error("ERR syntax error"), V::Error("x y"),
                               V::Int(-3), V::Bulk(std::string("a\0b", 3)), V::Null(),
                               V::NullArray(), V::Double(1.5), V::Bool(true), V::Verbatim("txt")}));
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.size(), 0u);
}

// Values are taken one at a time while others arrive, as a builder reused call after call is.
TEST(CapturingBuilderTest, TakesInOrderWhileValuesArrive) {
  CapturingReplyBuilder c;
  c.Int(1);
  c.Int(2);
  EXPECT_EQ(c.Take(), V::Int(1));
  c.Array(1);
  EXPECT_EQ(c.size(), 1u);  // the array is not finished
  c.Int(3);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.Take(), V::Int(2));
  EXPECT_EQ(c.Take(), V::Array({V::Int(3)}));
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.Take(), V::Null());  // nothing left
  c.Bulk("x");
  EXPECT_EQ(c.TakeAll(), std::vector<Value>{V::Bulk("x")});
}

// A caller that always leaves a value pending gets every value, in order.
TEST(CapturingBuilderTest, TakesInOrderWhileOneStaysPending) {
  CapturingReplyBuilder c;
  c.Int(0);
  for (int i = 1; i <= 1000; ++i) {
    c.Int(i);
    ASSERT_EQ(c.Take(), V::Int(i - 1));
    ASSERT_EQ(c.size(), 1u);
  }
  EXPECT_EQ(c.TakeAll(), std::vector<Value>{V::Int(1000)});
}

TEST(CapturingBuilderTest, ClearForgetsFinishedAndOpenValues) {
  CapturingReplyBuilder c;
  c.Int(1);
  c.Array(2);
  c.Int(2);  // the array stays open
  c.Clear();
  EXPECT_EQ(c.size(), 0u);
  c.Int(4);  // a top-level value again, not the open array's second element
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.TakeAll(), std::vector<Value>{V::Int(4)});
}

TEST(CapturingBuilderTest, ErrorLineHasPrefixAndNoNewlines) {
  CapturingReplyBuilder c;
  c.Error(Code::kWrongType, kWrongTypeMsg);
  c.Error(Code::kErr, "a\r\nb");
  EXPECT_EQ(c.Take(),
            V::Error("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(c.Take(), V::Error("ERR a  b"));
}

TEST(CapturingBuilderTest, NestedAggregates) {
  CapturingReplyBuilder c(ProtocolVersion::kResp3);
  EXPECT_EQ(c.protocol(), ProtocolVersion::kResp3);
  c.Array(3);
  c.Int(1);
  EXPECT_FALSE(c.complete());
  c.Map(2);
  c.Bulk("k1");
  c.Array(2);
  c.Null();
  c.Set(0);
  c.Bulk("k2");
  c.Map(0);
  EXPECT_FALSE(c.complete());
  c.Set(1);
  c.Double(-0.5);
  EXPECT_TRUE(c.complete());
  c.Simple("second");

  Value expected = V::Array(
      {V::Int(1),
       V::Map({V::Bulk("k1"), V::Array({V::Null(), V::Set({})}), V::Bulk("k2"), V::Map({})}),
       V::Set({V::Double(-0.5)})});
  EXPECT_EQ(c.Take(), expected);
  EXPECT_EQ(c.Take(), V::Simple("second"));
  EXPECT_EQ(c.Take(), V::Null());  // nothing left
}

TEST(CapturingBuilderTest, OpenAggregateIsNotTaken) {
  CapturingReplyBuilder c;
  c.Int(1);
  c.Array(2);
  c.Int(2);
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.Take(), V::Int(1));
  c.Int(3);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.Take(), V::Array({V::Int(2), V::Int(3)}));
}

// Lua sees a limiter's verdict through this builder: an integer array is an array of integers.
TEST(CapturingBuilderTest, IntArrayIsAnArrayOfInts) {
  CapturingReplyBuilder c;
  const int64_t values[] = {1, -2, std::numeric_limits<int64_t>::min()};
  c.IntArray(values);
  c.IntArray(std::span<const int64_t>());
  EXPECT_EQ(c.TakeAll(),
            (std::vector<Value>{
                V::Array({V::Int(1), V::Int(-2), V::Int(std::numeric_limits<int64_t>::min())}),
                V::Array({})}));
}

TEST(CapturingBuilderTest, NegativeCountIsNullArray) {
  CapturingReplyBuilder c;
  c.Array(-1);
  c.Map(-1);
  c.Set(-1);
  EXPECT_EQ(c.TakeAll(), (std::vector<Value>{V::NullArray(), V::NullArray(), V::NullArray()}));
}

TEST(CapturingBuilderTest, DeepNesting) {
  CapturingReplyBuilder c;
  constexpr int kDepth = 500;
  for (int i = 0; i < kDepth; ++i) c.Array(1);
  c.Int(7);
  ASSERT_TRUE(c.complete());
  Value v = c.Take();
  int depth = 0;
  const Value* p = &v;
  while (p->kind == Value::Kind::kArray) {
    ASSERT_EQ(p->elements.size(), 1u);
    p = &p->elements[0];
    ++depth;
  }
  EXPECT_EQ(depth, kDepth);
  EXPECT_EQ(*p, V::Int(7));
}

TEST(CapturingBuilderTest, ValueEquality) {
  EXPECT_NE(V::Int(1), V::Bool(true));
  EXPECT_NE(V::Bulk("a"), V::Simple("a"));
  EXPECT_NE(V::Null(), V::NullArray());
  EXPECT_NE(V::Double(0.0), V::Double(-0.0));  // they are written differently
  EXPECT_EQ(V::Double(std::nan("")), V::Double(std::nan("")));
  EXPECT_NE(V::Array({V::Int(1)}), V::Set({V::Int(1)}));
  EXPECT_NE(V::Array({V::Int(1)}), V::Array({V::Int(1), V::Int(2)}));
}

TEST(CapturingBuilderTest, ToString) {
  Value v = V::Array({V::Simple("OK"), V::Error("ERR x"), V::Int(-1), V::Bulk("a\"b\n\x01"),
                      V::Null(), V::NullArray(), V::Map({V::Bulk("k"), V::Double(0.5)}),
                      V::Set({V::Bool(true), V::Bool(false)}), V::Verbatim("t")});
  EXPECT_EQ(v.ToString(),
            "[+OK, -ERR x, :-1, \"a\\\"b\\n\\x01\", (nil), (nil-array), {\"k\": ,0.5}, "
            "~[#t, #f], =txt:\"t\"]");
  std::ostringstream os;
  os << V::Int(5);
  EXPECT_EQ(os.str(), ":5");
}

// A reply exercising every method, written the same way to any builder.
void WriteSample(ReplyBuilder& b) {
  b.Map(3);
  b.Bulk("scalars");
  b.Array(11);
  b.Simple("OK");
  b.Error(Code::kNoScript, kNoScriptMsg);
  b.Int(INT64_MIN);
  b.Bulk("");
  b.Null();
  b.NullArray();
  b.Double(0.1);
  b.Double(-std::numeric_limits<double>::infinity());
  b.Bool(false);
  b.Verbatim("line1\nline2");
  b.Set(2);
  b.Int(1);
  b.Int(2);
  b.Bulk("nested");
  b.Map(1);
  b.Bulk("inner");
  b.Array(2);
  b.Map(0);
  b.Array(0);
  b.Bulk("errors");
  b.Error(Code::kSyntax, "");
}

TEST(CapturingBuilderTest, ReplayEqualsDirectWriting) {
  for (ProtocolVersion v : {ProtocolVersion::kResp2, ProtocolVersion::kResp3}) {
    std::string direct;
    RespWriter direct_writer(&direct, v);
    WriteSample(direct_writer);
    WriteSample(direct_writer);

    CapturingReplyBuilder capture(v);
    WriteSample(capture);
    WriteSample(capture);
    ASSERT_TRUE(capture.complete());
    std::string replayed;
    RespWriter replay_writer(&replayed, v);
    for (const Value& value : capture.TakeAll()) Replay(value, replay_writer);
    EXPECT_EQ(replayed, direct) << "protocol " << static_cast<int>(v);
  }
}

Value RandomValue(std::mt19937& rng, int depth) {
  auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto children = [&](int per_element) {
    std::vector<Value> out;
    int n = below(4) * per_element;
    for (int i = 0; i < n; ++i) out.push_back(RandomValue(rng, depth + 1));
    return out;
  };
  int kind = below(depth >= 4 ? 9 : 12);
  switch (kind) {
    case 0:
      return V::Simple("s" + std::to_string(below(100)));
    case 1:
      return V::Error("ERR e" + std::to_string(below(100)));
    case 2:
      return V::Int(static_cast<int64_t>(rng()) - (1LL << 31));
    case 3:
      return V::Bulk(std::string(static_cast<size_t>(below(5)), '\r'));
    case 4:
      return V::Null();
    case 5:
      return V::NullArray();
    case 6:
      return V::Double(below(2) ? 1.0 / (below(9) + 1) : -1e300);
    case 7:
      return V::Bool(below(2) == 1);
    case 8:
      return V::Verbatim("v");
    case 9:
      return V::Array(children(1));
    case 10:
      return V::Map(children(2));
    default:
      return V::Set(children(1));
  }
}

TEST(CapturingBuilderTest, RandomTreesRoundTrip) {
  std::mt19937 rng(5);
  for (int i = 0; i < 2000; ++i) {
    Value tree = RandomValue(rng, 0);
    for (ProtocolVersion v : {ProtocolVersion::kResp2, ProtocolVersion::kResp3}) {
      CapturingReplyBuilder capture(v);
      Replay(tree, capture);
      ASSERT_TRUE(capture.complete());
      Value again = capture.Take();
      ASSERT_EQ(again, tree) << tree;
      // And the bytes agree, replaying either tree.
      std::string a, b;
      RespWriter wa(&a, v), wb(&b, v);
      Replay(tree, wa);
      Replay(again, wb);
      ASSERT_EQ(a, b);
    }
  }
}

}  // namespace
}  // namespace sluice::resp
