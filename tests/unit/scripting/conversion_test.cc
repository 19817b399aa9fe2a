// Redis 7.0's Lua <-> reply conversions (script_lua.c), both ways, in RESP2 and RESP3.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fake_host.h"
#include "scripting/lua_support.h"

namespace sluice::scripting {
namespace {

using resp::ProtocolVersion;
using resp::Value;
using testing::Eval;
using testing::FakeHost;

class ConversionTest : public ::testing::Test {
 protected:
  FakeHost host;
  ScriptEngine engine{&host};
};

// ------------------------------------------------------------------------- Lua -> reply

TEST_F(ConversionTest, ScalarsFromLua) {
  EXPECT_EQ(Eval(engine, "return 42"), Value::Int(42));
  EXPECT_EQ(Eval(engine, "return 3.99"), Value::Int(3));
  EXPECT_EQ(Eval(engine, "return -3.99"), Value::Int(-3));
  EXPECT_EQ(Eval(engine, "return 1e300"), Value::Int(INT64_MIN));
  EXPECT_EQ(Eval(engine, "return 0/0"), Value::Int(INT64_MIN));
  EXPECT_EQ(Eval(engine, "return -1/0"), Value::Int(INT64_MIN));
  EXPECT_EQ(Eval(engine, "return 'ciao'"), Value::Bulk("ciao"));
  EXPECT_EQ(Eval(engine, "return ''"), Value::Bulk(""));
  EXPECT_EQ(Eval(engine, "return true"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return false"), Value::Null());
  EXPECT_EQ(Eval(engine, "return nil"), Value::Null());
  EXPECT_EQ(Eval(engine, "return"), Value::Null());
  EXPECT_EQ(Eval(engine, "return function() end"), Value::Null());
  EXPECT_EQ(Eval(engine, "return coroutine.create(function() end)"), Value::Null());
}

TEST_F(ConversionTest, TablesFromLua) {
  EXPECT_EQ(Eval(engine, "return {1, 2, 3, 'ciao', {1, 2}}"),
            Value::Array({Value::Int(1), Value::Int(2), Value::Int(3), Value::Bulk("ciao"),
                          Value::Array({Value::Int(1), Value::Int(2)})}));
  // An array stops at its first nil; string keys are not part of it.
  EXPECT_EQ(Eval(engine, "return {1, 2, nil, 4}"), Value::Array({Value::Int(1), Value::Int(2)}));
  EXPECT_EQ(Eval(engine, "return {a = 1}"), Value::Array({}));
  EXPECT_EQ(Eval(engine, "return {1, false, 3}"),
            Value::Array({Value::Int(1), Value::Null(), Value::Int(3)}));
  EXPECT_EQ(Eval(engine, "return {1, function() end, 3}"),
            Value::Array({Value::Int(1), Value::Null(), Value::Int(3)}));
}

TEST_F(ConversionTest, FieldTablesFromLua) {
  EXPECT_EQ(Eval(engine, "return {ok = 'fine'}"), Value::Simple("fine"));
  EXPECT_EQ(Eval(engine, "return {err = 'ERR x'}"), Value::Error("ERR x"));
  EXPECT_EQ(Eval(engine, "return {err = 'x y'}"), Value::Error("x y"));
  EXPECT_EQ(Eval(engine, "return {err = ''}"), Value::Error(""));
  // Only string fields count: {ok = 1} is an (empty) array.
  EXPECT_EQ(Eval(engine, "return {ok = 1}"), Value::Array({}));
  EXPECT_EQ(Eval(engine, "return {err = 1}"), Value::Array({}));
  EXPECT_EQ(Eval(engine, "return {err = 'e', ok = 'o'}"), Value::Error("e"));
  EXPECT_EQ(Eval(engine, "return {double = 1.5}"), Value::Double(1.5));
  EXPECT_EQ(Eval(engine, "return {map = {a = 1}}"), Value::Map({Value::Bulk("a"), Value::Int(1)}));
  EXPECT_EQ(Eval(engine, "return {set = {a = true}}"), Value::Set({Value::Bulk("a")}));
  EXPECT_EQ(Eval(engine, "return {big_number = '123456789012345678901234567890'}"),
            Value::Bulk("123456789012345678901234567890"));
  EXPECT_EQ(Eval(engine, "return {verbatim_string = {format = 'txt', string = 'hi'}}"),
            Value::Verbatim("hi"));
  // A field wins over array elements beside it, however the table was built.
  EXPECT_EQ(Eval(engine, "local t = {1, 2, 3} t.err = 'E' return t"), Value::Error("E"));
  EXPECT_EQ(Eval(engine, "local t = {} for i = 1, 100 do t[i] = i end t.ok = 'fine' return t"),
            Value::Simple("fine"));
  EXPECT_EQ(Eval(engine, "local t = {ok = 'x'} t.ok = nil t[1] = 7 return t"),
            Value::Array({Value::Int(7)}));
  // Number keys that are not the array's (fractions, past a nil) are not fields either.
  EXPECT_EQ(Eval(engine, "return {1, 2, [2.5] = 3, [10] = 4}"),
            Value::Array({Value::Int(1), Value::Int(2)}));
  EXPECT_EQ(Eval(engine, "return {[2] = 1}"), Value::Array({}));
}

TEST_F(ConversionTest, BooleansFollowTheScriptsProtocol) {
  EXPECT_EQ(Eval(engine, "redis.setresp(3); return true"), Value::Bool(true));
  EXPECT_EQ(Eval(engine, "redis.setresp(3); return false"), Value::Bool(false));
  EXPECT_EQ(Eval(engine, "redis.setresp(2); return false"), Value::Null());
  // Each run starts in RESP2 again.
  EXPECT_EQ(Eval(engine, "return true"), Value::Int(1));
}

TEST_F(ConversionTest, SelfReferencingTableEndsWithAnError) {
  Value v = Eval(engine, "local t = {} t[1] = t return t");
  int depth = 0;
  const Value* at = &v;
  while (at->kind == Value::Kind::kArray && !at->elements.empty()) {
    at = &at->elements[0];
    ++depth;
  }
  EXPECT_EQ(*at, Value::Error("ERR reached lua stack limit"));
  EXPECT_GT(depth, 100);
  // {t, t} would double at every level: the total is bounded too, and the server answers.
  Value wide = Eval(engine, "local t = {} t[1] = t t[2] = t return t");
  EXPECT_EQ(wide, Value::Error("ERR reply of the script has more than 4194304 values"));
  EXPECT_EQ(Eval(engine, "return 1"), Value::Int(1));
}

// ------------------------------------------------------------------------- reply -> Lua

// Runs `script` after host.replies["x"] = reply; the script inspects `r`.
Value Inspect(ScriptEngine& engine, FakeHost& host, Value reply, std::string_view script) {
  host.replies["x"] = std::move(reply);
  return Eval(engine, script);
}

TEST_F(ConversionTest, Resp2RepliesToLua) {
  EXPECT_EQ(Inspect(engine, host, Value::Int(7), "local r = redis.call('x') return {type(r), r}"),
            Value::Array({Value::Bulk("number"), Value::Int(7)}));
  EXPECT_EQ(Inspect(engine, host, Value::Bulk("b"), "return type(redis.call('x'))"),
            Value::Bulk("string"));
  EXPECT_EQ(Inspect(engine, host, Value::Null(), "return redis.call('x') == false"), Value::Int(1));
  EXPECT_EQ(Inspect(engine, host, Value::NullArray(), "return redis.call('x') == false"),
            Value::Int(1));
  EXPECT_EQ(Inspect(engine, host, Value::Simple("PONG"), "return redis.call('x')['ok']"),
            Value::Bulk("PONG"));
  EXPECT_EQ(Inspect(engine, host, Value::Simple("PONG"), "return redis.call('x')"),
            Value::Simple("PONG"));
  EXPECT_EQ(Inspect(engine, host, Value::Array({Value::Int(1), Value::Bulk("a"), Value::Null()}),
                    "local r = redis.call('x') return {#r, r[1], r[2], tostring(r[3])}"),
            Value::Array({Value::Int(3), Value::Int(1), Value::Bulk("a"), Value::Bulk("false")}));
  // RESP2 has no maps, sets, doubles or booleans: they arrive as RESP2 writes them.
  EXPECT_EQ(Inspect(engine, host, Value::Map({Value::Bulk("k"), Value::Int(1)}),
                    "local r = redis.call('x') return {#r, r[1], r[2]}"),
            Value::Array({Value::Int(2), Value::Bulk("k"), Value::Int(1)}));
  EXPECT_EQ(Inspect(engine, host, Value::Set({Value::Bulk("m")}), "return redis.call('x')[1]"),
            Value::Bulk("m"));
  EXPECT_EQ(Inspect(engine, host, Value::Double(1.5), "return redis.call('x')"),
            Value::Bulk("1.5"));
  EXPECT_EQ(Inspect(engine, host, Value::Bool(true), "return type(redis.call('x'))"),
            Value::Bulk("number"));
  EXPECT_EQ(Inspect(engine, host, Value::Verbatim("v"), "return redis.call('x')"),
            Value::Bulk("v"));
}

TEST_F(ConversionTest, Resp3RepliesToLua) {
  const char* prefix = "redis.setresp(3) ";
  auto run = [&](Value reply, std::string body) {
    return Inspect(engine, host, std::move(reply), prefix + body);
  };
  EXPECT_EQ(run(Value::Null(), "return tostring(redis.call('x'))"), Value::Bulk("nil"));
  EXPECT_EQ(run(Value::NullArray(), "return tostring(redis.call('x'))"), Value::Bulk("nil"));
  EXPECT_EQ(
      run(Value::Map({Value::Bulk("k"), Value::Int(1)}), "return redis.call('x')['map']['k']"),
      Value::Int(1));
  EXPECT_EQ(run(Value::Set({Value::Bulk("m")}), "return tostring(redis.call('x')['set']['m'])"),
            Value::Bulk("true"));
  EXPECT_EQ(run(Value::Double(2.5), "return redis.call('x')['double'] * 2"), Value::Int(5));
  EXPECT_EQ(run(Value::Bool(false), "return type(redis.call('x'))"), Value::Bulk("boolean"));
  EXPECT_EQ(run(Value::Verbatim("v"),
                "local r = redis.call('x')['verbatim_string'] return {r.format, r.string}"),
            Value::Array({Value::Bulk("txt"), Value::Bulk("v")}));
  // Returned as is, the RESP3 shapes become RESP3 replies again.
  EXPECT_EQ(run(Value::Map({Value::Bulk("k"), Value::Int(1)}), "return redis.call('x')"),
            Value::Map({Value::Bulk("k"), Value::Int(1)}));
  EXPECT_EQ(run(Value::Double(2.5), "return redis.call('x')"), Value::Double(2.5));
  EXPECT_EQ(host.call_protocols.back(), ProtocolVersion::kResp3);
}

TEST_F(ConversionTest, ErrorRepliesRaiseOrReturnTables) {
  host.replies["x"] = Value::Error("WRONGTYPE Operation against a key");
  std::string raise = "return redis.call('x')";
  EXPECT_EQ(Eval(engine, raise),
            Value::Error("WRONGTYPE Operation against a key" + testing::Where(raise)));
  EXPECT_EQ(Eval(engine, "return redis.pcall('x')"),
            Value::Error("WRONGTYPE Operation against a key"));
  EXPECT_EQ(
      Eval(engine,
           "local t = redis.pcall('x') return {t.err, tostring(t.ignore_error_stats_update)}"),
      Value::Array({Value::Bulk("WRONGTYPE Operation against a key"), Value::Bulk("true")}));
  // Lua's pcall turns the table into its message.
  EXPECT_EQ(Eval(engine, "local ok, e = pcall(redis.call, 'x') return {tostring(ok), e}"),
            Value::Array({Value::Bulk("false"), Value::Bulk("WRONGTYPE Operation against a key")}));
}

TEST_F(ConversionTest, NumbersPassedToCommandsUseRedisFormat) {
  Eval(engine,
       "redis.call('echo', 3) redis.call('echo', 0.1) redis.call('echo', 1e20) "
       "redis.call('echo', 1/0) redis.call('echo', 2^53) redis.call('echo', -17)");
  // Alone: Lua 5.1 shares one constant slot between 0 and -0 within a chunk.
  Eval(engine, "redis.call('echo', -0.0)");
  std::vector<std::string> seen;
  for (const auto& call : host.calls) seen.push_back(call[1]);
  EXPECT_EQ(seen, (std::vector<std::string>{"3", "0.10000000000000001", "1e+20", "inf",
                                            "9007199254740992", "-17", "-0"}));
}

// The integer shortcut writes exactly what Redis 7.0's "%.17g" writes.
TEST(FormatLuaNumberTest, MatchesPrintfG17) {
  auto printf_g17 = [](double n) {
    char buf[64];
    const int len = std::snprintf(buf, sizeof(buf), "%.17g", n);
    return std::string(buf, static_cast<size_t>(len));
  };
  const double two53 = 9007199254740992.0;
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                1700000000123.0,
                                two53,
                                -two53,
                                two53 + 2,
                                -two53 - 2,
                                1e15,
                                1e16,
                                1e17,
                                -1e17,
                                0.5,
                                -2.5,
                                1e300,
                                -1e-300,
                                std::numeric_limits<double>::infinity(),
                                std::nan("")};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    values.push_back(static_cast<double>(static_cast<int64_t>(rng()) >> (rng() % 64)));
    values.push_back(
        std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 60));
  }
  for (double n : values) EXPECT_EQ(FormatLuaNumber(n), printf_g17(n)) << n;
}

TEST_F(ConversionTest, BadCommandArguments) {
  std::string none = "return redis.call()";
  EXPECT_EQ(Eval(engine, none),
            Value::Error("ERR Please specify at least one argument for this redis lib call" +
                         testing::Where(none)));
  std::string table = "return redis.call('echo', {})";
  EXPECT_EQ(Eval(engine, table),
            Value::Error("ERR Lua redis lib command arguments must be strings or integers" +
                         testing::Where(table)));
  EXPECT_EQ(Eval(engine, "return redis.pcall('echo', true)"),
            Value::Error("ERR Lua redis lib command arguments must be strings or integers"));
  EXPECT_TRUE(host.calls.empty());
}

TEST_F(ConversionTest, KeysAndArgv) {
  EXPECT_EQ(Eval(engine, "return {KEYS[1], KEYS[2], ARGV[1], #KEYS, #ARGV}", {"a", "b"}, {"c"}),
            Value::Array({Value::Bulk("a"), Value::Bulk("b"), Value::Bulk("c"), Value::Int(2),
                          Value::Int(1)}));
  // Every run gets its own tables; a script may change them.
  EXPECT_EQ(Eval(engine, "KEYS[1] = 'x' return KEYS", {"a"}), Value::Array({Value::Bulk("x")}));
  EXPECT_EQ(Eval(engine, "return #KEYS"), Value::Int(0));
}

}  // namespace
}  // namespace sluice::scripting
