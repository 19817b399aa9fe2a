// The sandbox of Redis 7.0, with its texts: forbidden globals, read-only _G / library tables /
// string metatable, no bytecode.

#include <gtest/gtest.h>

#include "fake_host.h"

namespace sluice::scripting {
namespace {

using resp::Value;
using testing::Eval;
using testing::FakeHost;
using testing::Where;

class SandboxTest : public ::testing::Test {
 protected:
  FakeHost host;
  ScriptEngine engine{&host};

  // The error a script gets for `body` raising `message` at line 1 with a position.
  Value ErrorAt(std::string_view body, std::string_view message) {
    return Value::Error("ERR user_script:1: " + std::string(message) + Where(body));
  }
};

TEST_F(SandboxTest, ForbiddenGlobalsDoNotExist) {
  for (const char* name : {"os", "io", "loadfile", "dofile", "require", "debug", "print", "module",
                           "package", "getfenv", "setfenv", "newproxy"}) {
    std::string body = std::string("return ") + name;
    EXPECT_EQ(Eval(engine, body),
              ErrorAt(body, std::string("Script attempted to access nonexistent global "
                                        "variable '") +
                                name + "'"))
        << name;
  }
}

TEST_F(SandboxTest, GlobalsAreRedisAllowList) {
  Value v = Eval(engine,
                 "local names = {} for k in pairs(_G) do names[#names + 1] = k end "
                 "table.sort(names) return names");
  std::vector<Value> expected;
  for (const char* name :
       {"ARGV",      "KEYS",         "_G",     "_VERSION",     "__redis__err__handler",
        "assert",    "bit",          "cjson",  "cmsgpack",     "collectgarbage",
        "coroutine", "error",        "gcinfo", "getmetatable", "ipairs",
        "load",      "loadstring",   "math",   "next",         "pairs",
        "pcall",     "rawequal",     "rawget", "rawset",       "redis",
        "select",    "setmetatable", "string", "struct",       "table",
        "tonumber",  "tostring",     "type",   "unpack",       "xpcall"}) {
    expected.push_back(Value::Bulk(name));
  }
  EXPECT_EQ(v, Value::Array(expected));
}

TEST_F(SandboxTest, WritingGlobalsFails) {
  for (std::string body :
       {"x = 1", "_G.x = 1", "KEYS = 1", "redis = nil", "string.rep = nil", "string.x = 1",
        "redis.call = nil", "cjson.encode = nil", "math.random = nil",
        "getmetatable('').__index = {}", "getmetatable('').__index.upper = nil",
        "local t = getmetatable(_G) t.__index = nil"}) {
    EXPECT_EQ(Eval(engine, body), ErrorAt(body, "Attempt to modify a readonly table")) << body;
  }
  // From C functions Redis's patched Lua raises without a position.
  for (std::string body :
       {"rawset(_G, 'x', 1)", "setmetatable(_G, nil)", "setmetatable(string, {})",
        "table.insert(string, 1)", "rawset(string, 'rep', 1)"}) {
    EXPECT_EQ(Eval(engine, body),
              Value::Error("ERR Attempt to modify a readonly table" + Where(body)))
        << body;
  }
  // Nothing leaked from one script to the next.
  EXPECT_EQ(Eval(engine, "return string.rep('ab', 2)"), Value::Bulk("abab"));
  EXPECT_EQ(Eval(engine, "return #string"), Value::Int(0));
  EXPECT_EQ(Eval(engine, "return ('x'):rep(3)"), Value::Bulk("xxx"));
}

TEST_F(SandboxTest, LibrariesReadThroughTheirProxies) {
  EXPECT_EQ(Eval(engine, "return rawget(string, 'rep') ~= nil"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "local n = 0 for k, v in pairs(string) do n = n + 1 end return n"),
            Value::Int(15));
  EXPECT_EQ(Eval(engine, "return next(math) ~= nil"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return getmetatable('').__index == string"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return _G == _G._G"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return type(getmetatable(_G).__index)"), Value::Bulk("function"));
  EXPECT_EQ(Eval(engine, "return tostring(getmetatable(string))"), Value::Bulk("nil"));
  // Scripts' own tables behave as in plain Lua.
  EXPECT_EQ(Eval(engine,
                 "local t = setmetatable({}, {__index = function(t, k) return k .. '!' end}) "
                 "rawset(t, 'a', 1) table.insert(t, 'x') return {t.a, t.b, t[1], rawget(t, 'b')}"),
            Value::Array({Value::Int(1), Value::Bulk("b!"), Value::Bulk("x")}));
}

TEST_F(SandboxTest, BytecodeIsRefused) {
  EXPECT_EQ(Eval(engine, "return loadstring(string.dump(function() return 1 end))"), Value::Null());
  EXPECT_EQ(Eval(engine, "local f, e = loadstring(string.dump(function() return 1 end)) return e"),
            Value::Bulk("[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'"));
  EXPECT_EQ(Eval(engine,
                 "local s = string.dump(function() return 1 end) local done = false "
                 "local f, e = load(function() if done then return nil end done = true "
                 "return s end) return {tostring(f), e}"),
            Value::Array(
                {Value::Bulk("nil"), Value::Bulk("(load):1: unexpected symbol near 'char(27)'")}));
  std::string body("\x1bLuaQ\x00\x01", 7);
  EXPECT_EQ(Eval(engine, body),
            Value::Error("ERR Error compiling script (new function): user_script:1: unexpected "
                         "symbol near 'char(27)'"));
  // Source still loads.
  EXPECT_EQ(Eval(engine, "return loadstring('return 5')()"), Value::Int(5));
  EXPECT_EQ(Eval(engine,
                 "local n = 0 return load(function() n = n + 1 "
                 "if n == 1 then return 'return 6' end end)()"),
            Value::Int(6));
  std::string load_string = "return load('return 1')";
  EXPECT_EQ(Eval(engine, load_string),
            ErrorAt(load_string, "bad argument #1 to 'load' (function expected, got string)"));
}

TEST_F(SandboxTest, LoadedChunksAreSandboxedToo) {
  std::string body = "return loadstring('x = 1')()";
  EXPECT_EQ(Eval(engine, body),
            Value::Error("ERR [string \"x = 1\"]:1: Attempt to modify a readonly table" +
                         std::string(" script: ") + Sha1Hex(body) + ", on x = 1:1."));
  EXPECT_EQ(Eval(engine, "return loadstring('return type(os)')"), Value::Null());
}

TEST_F(SandboxTest, CoroutinesRun) {
  EXPECT_EQ(Eval(engine,
                 "local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) "
                 "return b * 2 end) local _, x = coroutine.resume(co, 1) "
                 "local _, y = coroutine.resume(co, 10) return {x, y}"),
            Value::Array({Value::Int(2), Value::Int(20)}));
  EXPECT_EQ(Eval(engine,
                 "local co = coroutine.create(function() error('in co') end) "
                 "return {coroutine.resume(co)}"),
            Value::Array({Value::Null(), Value::Bulk("user_script:1: in co")}));
}

}  // namespace
}  // namespace sluice::scripting
