// Function libraries: FUNCTION LOAD's registration rules and errors (Redis 7.0's texts, checked
// against redis-server 7.0.15), FCALL's (keys, args), and DELETE / FLUSH / RESTORE.

#include "scripting/function_libraries.h"

#include <gtest/gtest.h>

#include "fake_host.h"
#include "resp/capturing_builder.h"

namespace sluice::scripting {
namespace {

using resp::Value;
using testing::FakeHost;

class FunctionLibrariesTest : public ::testing::Test {
 protected:
  std::string LoadError(std::string_view payload, bool replace = false) {
    auto loaded = libraries.Load(payload, replace);
    return loaded.ok() ? "" : loaded.status().message();
  }

  Value Call(std::string_view name, std::vector<std::string_view> keys,
             std::vector<std::string_view> args) {
    const LibraryFunction* f = libraries.FindFunction(name);
    if (f == nullptr) return Value::Error("not found");
    resp::CapturingReplyBuilder reply(resp::ProtocolVersion::kResp2);
    libraries.engine().RunFunction(*f, keys, args, reply);
    return reply.Take();
  }

  FakeHost host;
  FunctionLibraries libraries{&host};
};

TEST_F(FunctionLibrariesTest, LoadTimesOut) {
  // Redis's limit is 500 ms; 1 ms keeps the test from waiting. What registered is let go.
  libraries.engine().set_load_time_limit_ms(1);
  EXPECT_EQ(LoadError("#!lua name=x\nwhile true do end"),
            "Error registering functions: ERR FUNCTION LOAD timeout");
  EXPECT_EQ(LoadError("#!lua name=x\nredis.register_function('f', function() end)\n"
                      "while true do end"),
            "Error registering functions: ERR FUNCTION LOAD timeout");
  EXPECT_TRUE(libraries.libraries().empty());
  libraries.engine().set_load_time_limit_ms(500);
  EXPECT_TRUE(libraries.Load("#!lua name=ok\nredis.register_function('f', function() end)",
                             false)
                  .ok());
}

TEST_F(FunctionLibrariesTest, LoadAndCall) {
  auto loaded = libraries.Load(
      "#!lua name=lib\n"
      "redis.register_function('echo', function(keys, args) return {keys[1], args[1]} end)\n"
      "redis.register_function{function_name='ro', callback=function() return KEYS end,\n"
      "  flags={'NO-WRITES', 'allow-oom'}, description='reads'}\n",
      false);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*loaded, "lib");
  EXPECT_EQ(Call("echo", {"k"}, {"a"}), Value::Array({Value::Bulk("k"), Value::Bulk("a")}));
  const LibraryFunction* ro = libraries.FindFunction("ro");
  ASSERT_NE(ro, nullptr);
  EXPECT_TRUE(ro->flags.no_writes);
  EXPECT_TRUE(ro->flags.allow_oom);
  EXPECT_TRUE(ro->flags.has_shebang);
  EXPECT_EQ(ro->description, "reads");
  // Functions have no KEYS global: the error names the function and its line.
  EXPECT_EQ(Call("ro", {}, {}),
            Value::Error("ERR user_function:3: Script attempted to access nonexistent global "
                         "variable 'KEYS' script: ro, on @user_function:3."));
  EXPECT_EQ(libraries.function_count(), 2u);
}

TEST_F(FunctionLibrariesTest, LoadErrors) {
  EXPECT_EQ(LoadError("#!lua name=x-y\nreturn 1"),
            "Library names can only contain letters, numbers, or underscores(_) and must be at "
            "least one character long");
  EXPECT_EQ(LoadError("#!perl name=x\nreturn 1"), "Engine 'perl' not found");
  EXPECT_EQ(LoadError("#!lua name=x\nreturn 1"), "No functions registered");
  EXPECT_EQ(LoadError("#!lua name=x\nreturn 1 +"),
            "Error compiling function: user_function:2: unexpected symbol near '<eof>'");
  EXPECT_EQ(LoadError("#!lua name=x\nredis.call('set', 'a', 1)"),
            "Error registering functions: ERR user_function:2: Script attempted to access "
            "nonexistent global variable 'call'");
  EXPECT_EQ(LoadError("#!lua name=x\nfoo = 1"),
            "Error registering functions: ERR user_function:2: Attempt to modify a readonly "
            "table");
  EXPECT_EQ(LoadError("#!lua name=x\nlocal f = function() end\n"
                      "redis.register_function('f', f)\nredis.register_function('f', f)"),
            "Error registering functions: ERR Function already exists in the library");
  EXPECT_EQ(LoadError("#!lua name=x\nredis.register_function('f', 1)"),
            "Error registering functions: ERR second argument to redis.register_function must "
            "be a function");
  EXPECT_EQ(LoadError("#!lua name=x\nredis.register_function{function_name='f', "
                      "callback=function() end, flags={'bad'}}"),
            "Error registering functions: ERR unknown flag given");
  EXPECT_EQ(LoadError("#!lua name=x\nredis.register_function{callback=function() end}"),
            "Error registering functions: ERR redis.register_function must get a function name "
            "argument");
  EXPECT_TRUE(libraries.libraries().empty());
  // The scripts' environment is back after a failed load.
  resp::CapturingReplyBuilder reply(resp::ProtocolVersion::kResp2);
  ASSERT_TRUE(libraries
                  .Load("#!lua name=ok\nredis.register_function('s', function() "
                        "return string.rep('a', 2) end)",
                        false)
                  .ok());
  EXPECT_EQ(Call("s", {}, {}), Value::Bulk("aa"));
}

TEST_F(FunctionLibrariesTest, ReplaceCollideDelete) {
  const std::string v1 = "#!lua name=a\nredis.register_function('f', function() return 1 end)";
  const std::string v2 = "#!lua name=a\nredis.register_function('f', function() return 2 end)";
  ASSERT_EQ(LoadError(v1), "");
  EXPECT_EQ(LoadError(v2), "Library 'a' already exists");
  EXPECT_EQ(LoadError(v2, /*replace=*/true), "");
  EXPECT_EQ(Call("f", {}, {}), Value::Int(2));
  EXPECT_EQ(LoadError("#!lua name=b\nredis.register_function('f', function() end)"),
            "Function f already exists");
  // A failed replace keeps the library as it was.
  EXPECT_EQ(LoadError("#!lua name=a\nreturn 1", true), "No functions registered");
  EXPECT_EQ(Call("f", {}, {}), Value::Int(2));
  EXPECT_TRUE(libraries.Delete("a"));
  EXPECT_FALSE(libraries.Delete("a"));
  EXPECT_EQ(libraries.FindFunction("f"), nullptr);
}

TEST_F(FunctionLibrariesTest, RestoreIsAllOrNothing) {
  const std::string a = "#!lua name=a\nredis.register_function('fa', function() return 1 end)";
  const std::string b = "#!lua name=b\nredis.register_function('fb', function() return 2 end)";
  ASSERT_EQ(LoadError(a), "");
  std::vector<std::string> payload = {b, a};
  Status appended = libraries.Restore(payload, RestorePolicy::kAppend);
  EXPECT_EQ(appended.message(), "Library a already exists");
  EXPECT_EQ(libraries.libraries().size(), 1u);
  std::vector<std::string> broken = {b, "#!lua name=c\nreturn 1"};
  EXPECT_FALSE(libraries.Restore(broken, RestorePolicy::kFlush).ok());
  EXPECT_EQ(libraries.libraries().size(), 1u);
  EXPECT_EQ(Call("fa", {}, {}), Value::Int(1));
  EXPECT_TRUE(libraries.Restore(payload, RestorePolicy::kReplace).ok());
  EXPECT_EQ(libraries.libraries().size(), 2u);
  EXPECT_EQ(Call("fb", {}, {}), Value::Int(2));
}

// As Redis 7.0 (checked against 7.0.15): REPLACE unlinks the libraries the payload replaces
// before any function name is compared, whatever the payload's order.
TEST_F(FunctionLibrariesTest, RestoreReplacesBeforeComparingFunctions) {
  ASSERT_EQ(LoadError("#!lua name=a\nredis.register_function('f', function() return 1 end)"), "");
  std::vector<std::string> payload = {
      "#!lua name=b\nredis.register_function('f', function() return 2 end)",
      "#!lua name=a\nredis.register_function('g', function() return 3 end)"};
  ASSERT_TRUE(libraries.Restore(payload, RestorePolicy::kReplace).ok());
  EXPECT_EQ(Call("f", {}, {}), Value::Int(2));
  EXPECT_EQ(Call("g", {}, {}), Value::Int(3));
  EXPECT_EQ(libraries.libraries().size(), 2u);
}

// The payload is loaded by itself first: a library or a function twice in it is refused,
// REPLACE or not, and nothing changes.
TEST_F(FunctionLibrariesTest, RestoreRefusesAPayloadThatCollidesWithItself) {
  ASSERT_EQ(LoadError("#!lua name=a\nredis.register_function('f', function() return 1 end)"), "");
  std::vector<std::string> twice = {
      "#!lua name=b\nredis.register_function('g', function() return 2 end)",
      "#!lua name=b\nredis.register_function('h', function() return 3 end)"};
  EXPECT_EQ(libraries.Restore(twice, RestorePolicy::kReplace).message(),
            "Library 'b' already exists");
  std::vector<std::string> same_function = {
      "#!lua name=b\nredis.register_function('g', function() return 2 end)",
      "#!lua name=c\nredis.register_function('G', function() return 3 end)"};
  EXPECT_EQ(libraries.Restore(same_function, RestorePolicy::kReplace).message(),
            "Function G already exists");
  // A function of a library the payload does not replace still collides.
  std::vector<std::string> taken = {
      "#!lua name=b\nredis.register_function('f', function() return 2 end)"};
  EXPECT_EQ(libraries.Restore(taken, RestorePolicy::kReplace).message(),
            "Function f already exists");
  EXPECT_EQ(libraries.libraries().size(), 1u);
  EXPECT_EQ(libraries.function_count(), 1u);
  EXPECT_EQ(Call("f", {}, {}), Value::Int(1));
}

}  // namespace
}  // namespace sluice::scripting
