// The sandbox's string.format (scripting/lua_format.cc) against Lua 5.1's own, which it must
// equal in every result: the string, or the error and its message.

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fake_host.h"
#include "scripting/lua_format.h"
#include "scripting/sandbox.h"

namespace sluice::scripting {
namespace {

// An argument to string.format: pushed by `push`, described by `text` for failure messages.
struct Arg {
  enum class Kind { kNumber, kString, kNil, kBoolean, kTable } kind = Kind::kNumber;
  double number = 0;
  std::string string;

  void Push(lua_State* L) const {
    switch (kind) {
      case Kind::kNumber:
        lua_pushnumber(L, number);
        break;
      case Kind::kString:
        lua_pushlstring(L, string.data(), string.size());
        break;
      case Kind::kNil:
        lua_pushnil(L);
        break;
      case Kind::kBoolean:
        lua_pushboolean(L, 1);
        break;
      case Kind::kTable:
        lua_newtable(L);
        break;
    }
  }
  std::string Describe() const {
    switch (kind) {
      case Kind::kNumber: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%a", number);
        return buf;
      }
      case Kind::kString:
        return '"' + string + '"';
      case Kind::kNil:
        return "nil";
      case Kind::kBoolean:
        return "true";
      case Kind::kTable:
        return "{}";
    }
    return "";
  }
};

Arg Number(double n) { return {Arg::Kind::kNumber, n, {}}; }
Arg String(std::string s) { return {Arg::Kind::kString, 0, std::move(s)}; }
Arg OfKind(Arg::Kind kind) { return {kind, 0, {}}; }

// Lua's own string.format, and how many calls the replacement handed to it.
lua_CFunction lua_format = nullptr;
int lua_format_calls = 0;

// The replacement calls its upvalue in its own call frame, where lua_upvalueindex still means
// the replacement's upvalues: so Lua's own is reached through a variable here.
int CountedLuaFormat(lua_State* L) {
  ++lua_format_calls;
  return lua_format(L);
}

// A plain Lua state holding Lua's own string.format and the replacement side by side; the
// replacement reaches Lua's own through CountedLuaFormat.
class LuaFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
    lua_getfield(L, LUA_GLOBALSINDEX, "string");
    lua_getfield(L, -1, "format");
    lua_format = lua_tocfunction(L, -1);
    lua_setfield(L, LUA_GLOBALSINDEX, "lua_format");
    lua_pushcfunction(L, CountedLuaFormat);
    lua_pushcclosure(L, FastStringFormat, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_GLOBALSINDEX, "fast_format");
    lua_setfield(L, -2, "format");
    lua_pop(L, 1);
    lua_format_calls = 0;
  }
  void TearDown() override { lua_close(L); }

  // "ok:<result>" or "error:<message>" from calling the global `function`.
  std::string Call(const char* function, const std::string& format, const std::vector<Arg>& args) {
    lua_getfield(L, LUA_GLOBALSINDEX, function);
    lua_pushlstring(L, format.data(), format.size());
    for (const Arg& arg : args) arg.Push(L);
    const int status = lua_pcall(L, static_cast<int>(args.size()) + 1, 1, 0);
    size_t size = 0;
    const char* text = lua_tolstring(L, -1, &size);
    std::string result = (status == 0 ? "ok:" : "error:") + std::string(text, size);
    lua_pop(L, 1);
    return result;
  }

  void ExpectAsLua(const std::string& format, const std::vector<Arg>& args) {
    EXPECT_EQ(Call("fast_format", format, args), Call("lua_format", format, args)) << [&] {
      std::string described = "format \"";
      described.append(format).append("\", args");
      for (const Arg& arg : args) described.append(" ").append(arg.Describe());
      return described;
    }();
  }

  lua_State* L = nullptr;
};

TEST_F(LuaFormatTest, TheConversionsItWritesMatchLuasOwn) {
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<std::string, std::vector<Arg>>> cases = {
      {"%.3f:%d", {Number(999999999.25), Number(1764698000123)}},
      {"%.0f", {Number(1764698000123456)}},
      {"%d %i", {Number(-7.9), Number(7.9)}},
      {"%d", {Number(-9223372036854775808.0)}},
      {"%d", {Number(9223372036854775808.0)}},  // out of long's range: LONG_MIN
      {"%d", {Number(kNan)}},
      {"%f", {Number(0.1)}},
      {"%.f|%.0f|%.1f", {Number(2.5), Number(3.5), Number(0.25)}},  // ties go to even
      {"%.2f %.2f %.2f", {Number(0.125), Number(0.375), Number(-0.125)}},
      {"%.3f", {Number(-0.0)}},
      {"%.99f", {Number(5e-324)}},
      {"%.99f", {Number(-1.7976931348623157e308)}},
      {"%f %f %f", {Number(kInf), Number(-kInf), Number(kNan)}},
      {"%s|%s", {String("plain"), String(std::string("a\0b", 3))}},
      {"%s", {String(std::string(99, 'x') + std::string("\0y", 2))}},
      {"%s", {String(std::string(120, 'x') + std::string("\0y", 2))}},  // kept whole
      {"%s", {Number(0.1)}},
      {"%d", {String("12")}},
      {"%d", {String("twelve")}},
      {"%d", {}},
      {"%s", {OfKind(Arg::Kind::kTable)}},
      {"100%%", {}},
      {"%", {}},
      {"%.123f", {Number(1)}},
      {"%5d|%-3s|%05.1f|%x|%g|%c|%q|%.2s|%.1d",
       {Number(3), String("ab"), Number(2.25), Number(255), Number(0.5), Number(65), String("a\nb"),
        String("abc"), Number(0)}},
      {"%1$d", {Number(1)}},
      {"%z", {Number(1)}},
      {std::string("a\0%d\0b", 6), {Number(42)}},
      {"%d", {Number(1), Number(2)}},                // extra arguments are ignored
      {std::string(1100, 'x') + "%d", {Number(1)}},  // longer than the replacement's buffer
  };
  for (const auto& [format, args] : cases) ExpectAsLua(format, args);
}

// The conversions limiter scripts use never reach Lua's own; anything else does.
TEST_F(LuaFormatTest, WritesTheCommonConversionsItself) {
  EXPECT_EQ(Call("fast_format", "%.3f:%d", {Number(999.5), Number(1764698000123)}),
            "ok:999.500:1764698000123");
  EXPECT_EQ(Call("fast_format", "rl:%s:%i %.0f 100%%", {String("user"), Number(-3.5), Number(2.5)}),
            "ok:rl:user:-3 2 100%");
  EXPECT_EQ(Call("fast_format", "%f", {Number(0.1)}), "ok:0.100000");
  EXPECT_EQ(lua_format_calls, 0);
  EXPECT_EQ(Call("fast_format", "%5d", {Number(3)}), "ok:    3");
  EXPECT_EQ(Call("fast_format", "%d", {String("12")}), "ok:12");
  EXPECT_EQ(lua_format_calls, 2);
}

TEST_F(LuaFormatTest, RandomFormatsAndArgumentsMatchLuasOwn) {
  std::mt19937_64 random(20261202);
  const std::vector<std::string> conversions = {
      "%d",    "%i",  "%s",   "%f", "%.f", "%.0f",  "%.1f", "%.3f", "%.9f",   "%.17f",
      "%.25f", "%5d", "%.2s", "%x", "%g",  "%.14g", "%c",   "%%",   "%.100f", "%e"};
  const std::vector<std::string> literals = {"",   ":",  "rl:", " ", "\n", std::string("\0", 1),
                                             "%%", "key"};
  auto random_number = [&]() -> double {
    switch (random() % 6) {
      case 0:
        return static_cast<double>(static_cast<int64_t>(random() % 4000000000000) - 2000000000000);
      case 1:
        return std::bit_cast<double>(random());  // any bits: NaN, subnormal, huge
      case 2: {                                  // a tie at some decimal place
        const int places = static_cast<int>(random() % 4);
        return (static_cast<double>(random() % 100000) + 0.5) / std::pow(10.0, places);
      }
      case 3:
        return std::ldexp(static_cast<double>(random() % 1000000), -20);
      case 4:
        return static_cast<double>(random() % 2000000) / 1000 - 1000;
      default:
        return std::ldexp(static_cast<double>(random() >> 11), static_cast<int>(random() % 80));
    }
  };
  auto random_arg = [&]() -> Arg {
    switch (random() % 10) {
      case 0:
        return String(std::to_string(random() % 1000));
      case 1:
        return String(std::string(random() % 130, 'k'));
      case 2:
        return String(std::string("v\0w", 3));
      case 3:
        return OfKind(Arg::Kind::kNil);
      case 4:
        return OfKind(Arg::Kind::kBoolean);
      default:
        return Number(random_number());
    }
  };
  for (int i = 0; i < 100000; ++i) {
    std::string format;
    const int pieces = static_cast<int>(random() % 4);
    for (int p = 0; p < pieces; ++p) {
      format += literals[random() % literals.size()];
      format += conversions[random() % conversions.size()];
    }
    format += literals[random() % literals.size()];
    std::vector<Arg> args;
    const int count = static_cast<int>(random() % 5);
    for (int a = 0; a < count; ++a) args.push_back(random_arg());
    ExpectAsLua(format, args);
    if (HasFailure()) return;
  }
  // Most random calls meet something the replacement leaves to Lua's own; enough do not.
  EXPECT_LT(lua_format_calls, 80000);
}

// The scripts' string.format is the replacement, and an error through it names 'format' as
// Redis's does (Lua's own runs in the replacement's call frame, not in a call of its own).
TEST(LuaFormatSandboxTest, ScriptsGetTheReplacementAndLuasMessages) {
  lua_State* L = luaL_newstate();
  ASSERT_EQ(lua_cpcall(
                L,
                [](lua_State* state) {
                  InstallSandbox(state, ScriptApi::kEval);
                  return 0;
                },
                nullptr),
            0);
  lua_getfield(L, LUA_GLOBALSINDEX, "string");  // the proxy, which reads through
  lua_getfield(L, -1, "format");
  EXPECT_EQ(lua_tocfunction(L, -1), &FastStringFormat);
  lua_close(L);

  testing::FakeHost host;
  ScriptEngine engine{&host};
  using resp::Value;
  EXPECT_EQ(testing::Eval(engine, "return string.format('%.3f:%d', 2.25, 17)"),
            Value::Bulk("2.250:17"));
  const std::string body = "return string.format('%d', 'abc')";
  EXPECT_EQ(testing::Eval(engine, body),
            Value::Error("ERR user_script:1: bad argument #2 to 'format' (number expected, got "
                         "string)" +
                         testing::Where(body)));
  const std::string method = "return ('%d'):format({})";
  EXPECT_EQ(testing::Eval(engine, method),
            Value::Error("ERR user_script:1: bad argument #1 to 'format' (number expected, got "
                         "table)" +
                         testing::Where(method)));
}

}  // namespace
}  // namespace sluice::scripting
