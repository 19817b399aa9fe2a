// The engine around the conversions: the script cache, Redis's error texts, redis.* helpers,
// math.random's sequence, and the memory and time limits.

#include <gtest/gtest.h>

#include "fake_host.h"
#include "scripting/shebang.h"

namespace sluice::scripting {
namespace {

using resp::Value;
using testing::Eval;
using testing::FakeHost;
using testing::Where;

class EngineTest : public ::testing::Test {
 protected:
  FakeHost host;
  ScriptEngine engine{&host};
};

TEST_F(EngineTest, CacheBySha) {
  auto loaded = engine.Load("return 1");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ((*loaded)->sha, "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(engine.Find("E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"), *loaded);
  EXPECT_EQ(engine.Find("e0e1f9fabfc9d4800c877a703b823ac0578ff8d"), nullptr);
  EXPECT_EQ(engine.script_count(), 1u);
  auto again = engine.Load("return 1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *loaded);
  engine.Flush();
  EXPECT_EQ(engine.Find("e0e1f9fabfc9d4800c877a703b823ac0578ff8db"), nullptr);
  EXPECT_EQ(Eval(engine, "return 2"), Value::Int(2));
}

// Scripts EVAL made are evicted least recently used first (EVAL and EVALSHA both use them)
// past kMaxEvalScripts; SCRIPT LOAD's, and EVAL's once a SCRIPT LOAD named them, are kept. An
// evicted script's function is gone from the Lua state too: loading it again compiles it
// again, and it runs.
TEST_F(EngineTest, EvalScriptsPastTheCapAreEvictedLeastRecentlyUsedFirst) {
  auto body = [](size_t i) { return "return " + std::to_string(i); };
  const std::string kept_sha = (*engine.Load("return 'loaded'"))->sha;
  const std::string promoted_sha = (*engine.Load("return 'run'", ScriptOrigin::kEval))->sha;
  ASSERT_TRUE(engine.Load("return 'run'").ok());  // SCRIPT LOAD of an EVAL'd script keeps it
  std::vector<std::string> shas;
  for (size_t i = 0; i < ScriptEngine::kMaxEvalScripts; ++i) {
    shas.push_back((*engine.Load(body(i), ScriptOrigin::kEval))->sha);
  }
  EXPECT_EQ(engine.evicted_scripts(), 0u);
  ASSERT_NE(engine.FindToRun(shas[0]), nullptr);                // EVALSHA: the most recent
  ASSERT_TRUE(engine.Load(body(1), ScriptOrigin::kEval).ok());  // EVAL: the same
  ASSERT_TRUE(engine.Load(body(ScriptEngine::kMaxEvalScripts), ScriptOrigin::kEval).ok());
  ASSERT_TRUE(engine.Load(body(ScriptEngine::kMaxEvalScripts + 1), ScriptOrigin::kEval).ok());
  EXPECT_EQ(engine.evicted_scripts(), 2u);
  EXPECT_EQ(engine.script_count(), ScriptEngine::kMaxEvalScripts + 2);
  EXPECT_NE(engine.Find(shas[0]), nullptr);
  EXPECT_NE(engine.Find(shas[1]), nullptr);
  EXPECT_EQ(engine.Find(shas[2]), nullptr);
  EXPECT_EQ(engine.Find(shas[3]), nullptr);
  EXPECT_NE(engine.Find(shas[4]), nullptr);
  EXPECT_NE(engine.Find(kept_sha), nullptr);
  EXPECT_NE(engine.Find(promoted_sha), nullptr);
  // The cache's bytes follow its scripts: each body and its SHA1.
  size_t cached_bytes = std::string("return 'loaded'").size() + std::string("return 'run'").size();
  for (size_t i : {size_t{0}, size_t{1}}) cached_bytes += body(i).size();
  for (size_t i = 4; i < ScriptEngine::kMaxEvalScripts + 2; ++i) cached_bytes += body(i).size();
  EXPECT_EQ(engine.scripts_bytes(), cached_bytes + 40 * engine.script_count());
  EXPECT_EQ(Eval(engine, body(2)), Value::Int(2));
  engine.ResetEvictedScripts();
  EXPECT_EQ(engine.evicted_scripts(), 0u);
  engine.Flush();
  EXPECT_EQ(engine.scripts_bytes(), 0u);
}

TEST_F(EngineTest, CompileErrors) {
  auto bad = engine.Load("return 1 +");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Error compiling script (new function): user_script:1: unexpected symbol near "
            "'<eof>'");
  EXPECT_EQ(engine.script_count(), 0u);
}

TEST_F(EngineTest, RuntimeErrorTexts) {
  std::string plain = "error('boom')";
  EXPECT_EQ(Eval(engine, plain), Value::Error("ERR user_script:1: boom" + Where(plain)));
  std::string level0 = "error('boom', 0)";
  EXPECT_EQ(Eval(engine, level0), Value::Error("ERR boom" + Where(level0)));
  std::string table = "error({err = 'MY boom'})";
  EXPECT_EQ(Eval(engine, table), Value::Error("MY boom" + Where(table)));
  std::string nil = "error()";
  EXPECT_EQ(Eval(engine, nil), Value::Error("ERR nil" + Where(nil)));
  std::string third = "\n\nerror('l3')";
  EXPECT_EQ(Eval(engine, third), Value::Error("ERR user_script:3: l3" + Where(third, 3)));
  std::string index = "local a = 1\nreturn a.b.c";
  EXPECT_EQ(Eval(engine, index),
            Value::Error("ERR user_script:2: attempt to index local 'a' (a number value)" +
                         Where(index, 2)));
  std::string command = "local x = 1\nredis.call('nosuch')";
  EXPECT_EQ(Eval(engine, command),
            Value::Error("ERR Unknown Redis command called from script" + Where(command, 2)));
  // Redis 7.0 crashes here; sluice answers.
  EXPECT_EQ(Eval(engine, "error({a = 1})").kind, Value::Kind::kError);
}

TEST_F(EngineTest, ReplyHelpers) {
  EXPECT_EQ(Eval(engine, "return redis.error_reply('x')"), Value::Error("ERR x"));
  EXPECT_EQ(Eval(engine, "return redis.error_reply('-x')"), Value::Error("ERR x"));
  EXPECT_EQ(Eval(engine, "return redis.error_reply('MY x')"), Value::Error("MY x"));
  EXPECT_EQ(Eval(engine, "return redis.error_reply('x\\r\\ny')"), Value::Error("ERR x  y"));
  EXPECT_EQ(Eval(engine, "return redis.error_reply('')"), Value::Error("ERR "));
  EXPECT_EQ(Eval(engine, "return redis.error_reply(1)"),
            Value::Error("ERR wrong number or type of arguments"));
  EXPECT_EQ(Eval(engine, "return redis.status_reply('FINE')"), Value::Simple("FINE"));
  EXPECT_EQ(Eval(engine, "return redis.status_reply()"),
            Value::Error("ERR wrong number or type of arguments"));
  EXPECT_EQ(Eval(engine, "local t = redis.error_reply('MY x') return {t.err, type(t)}"),
            Value::Array({Value::Bulk("MY x"), Value::Bulk("table")}));
  std::string raised = "error(redis.error_reply('MY x'))";
  EXPECT_EQ(Eval(engine, raised), Value::Error("MY x" + Where(raised)));
  EXPECT_EQ(Eval(engine, "return redis.sha1hex('')"),
            Value::Bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
  std::string no_arg = "return redis.sha1hex()";
  EXPECT_EQ(Eval(engine, no_arg), Value::Error("ERR wrong number of arguments" + Where(no_arg)));
}

TEST_F(EngineTest, MiscRedisApi) {
  EXPECT_EQ(Eval(engine, "return redis.replicate_commands()"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return redis.breakpoint()"), Value::Null());
  EXPECT_EQ(Eval(engine, "return redis.debug('x')"), Value::Null());
  EXPECT_EQ(Eval(engine, "return redis.set_repl(redis.REPL_ALL)"), Value::Null());
  std::string bad_repl = "return redis.set_repl(99)";
  EXPECT_EQ(Eval(engine, bad_repl),
            Value::Error("ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                         "REPL_NONE." +
                         Where(bad_repl)));
  EXPECT_EQ(Eval(engine,
                 "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, "
                 "redis.REPL_REPLICA, redis.REPL_ALL, redis.LOG_DEBUG, "
                 "redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
            Value::Array({Value::Int(0), Value::Int(1), Value::Int(2), Value::Int(2), Value::Int(3),
                          Value::Int(0), Value::Int(1), Value::Int(2), Value::Int(3)}));
  std::string bad_resp = "redis.setresp(4)";
  EXPECT_EQ(Eval(engine, bad_resp),
            Value::Error("ERR RESP version must be 2 or 3." + Where(bad_resp)));
  EXPECT_EQ(Eval(engine, "return redis.acl_check_cmd('get', 'k')"), Value::Int(1));
  // The host's answer, false included (Lua false is a null reply).
  EXPECT_EQ(Eval(engine, "return redis.acl_check_cmd('set', 'k', 1)"), Value::Null());
  EXPECT_EQ(Eval(engine, "redis.log(redis.LOG_WARNING, 'hello', 42, 'x') return 1"), Value::Int(1));
  ASSERT_EQ(host.logs.size(), 1u);
  EXPECT_EQ(host.logs[0].first, LogLevel::kWarning);
  EXPECT_EQ(host.logs[0].second, "hello 42 x");
  std::string bad_level = "redis.log(99, 'x')";
  EXPECT_EQ(Eval(engine, bad_level), Value::Error("ERR Invalid debug level." + Where(bad_level)));
}

TEST_F(EngineTest, RandomMatchesRedis) {
  // Redis 7.0.15 on a fresh server: the same generator, never reseeded between scripts.
  EXPECT_EQ(Eval(engine, "return {math.random(1000000), math.random(1000000)}"),
            Value::Array({Value::Int(396465), Value::Int(840486)}));
  EXPECT_EQ(Eval(engine, "return math.random(1000000)"), Value::Int(353337));
  engine.Flush();  // does not reset it either
  EXPECT_EQ(Eval(engine, "return math.random(1000000)"), Value::Int(446584));
  EXPECT_EQ(Eval(engine,
                 "math.randomseed(7) return {math.random(1000000), "
                 "tostring(math.random()), math.random(5, 10)}"),
            Value::Array({Value::Int(266445), Value::Bulk("0.68203523041775"), Value::Int(6)}));
  EXPECT_EQ(Eval(engine, "math.randomseed(0) return math.random(1000000)"), Value::Int(170829));
}

TEST_F(EngineTest, MemoryLimitFailsTheScriptOnly) {
  engine.set_memory_limit(4 << 20);
  std::string grow = "local t = {} for i = 1, 1e8 do t[i] = i end return #t";
  Value v = Eval(engine, grow);
  EXPECT_EQ(v, Value::Error("ERR Error running script " + Sha1Hex(grow) + ", not enough memory"));
  std::string rep = "return #string.rep('x', 100 * 1024 * 1024)";
  EXPECT_EQ(Eval(engine, rep).kind, Value::Kind::kError);
  // pcall may catch it, but cannot get past the limit.
  EXPECT_EQ(Eval(engine, "local ok, e = pcall(string.rep, 'x', 1e8) return e"),
            Value::Bulk("not enough memory"));
  EXPECT_EQ(Eval(engine, "return string.rep('x', 1000):len()"), Value::Int(1000));
  EXPECT_LE(engine.used_memory(), size_t{4} << 20);
  engine.set_memory_limit(0);
  EXPECT_EQ(Eval(engine, "return #string.rep('x', 8 * 1024 * 1024)"), Value::Int(8 << 20));
}

// A reply too big to become a Lua value under the limit fails its redis.call like any other
// allocation (pcall catches it, or the script fails), and the run after it is whole, the Lua
// heap back under the limit. (The reply itself, kept outside the Lua heap while it converts,
// is not visible here; LeakSanitizer in CI would report it lost.) The conversion used to run
// in a protected call: this pins that dropping it changed none of these results.
TEST_F(EngineTest, AReplyTooBigForTheLimitFailsItsCallOnly) {
  std::vector<Value> rows;
  for (int i = 0; i < 100000; ++i)
    rows.push_back(Value::Bulk(std::string(100, 'x') + std::to_string(i)));
  host.replies["big"] = Value::Array(std::move(rows));
  engine.set_memory_limit(4 << 20);
  EXPECT_EQ(Eval(engine, "local ok, e = pcall(redis.call, 'big') return {tostring(ok), e}"),
            Value::Array({Value::Bulk("false"), Value::Bulk("not enough memory")}));
  // The part of the reply converted before the limit is collected when pcall returns: the
  // script goes on allocating (Lua 5.1 would not collect it in time by itself).
  EXPECT_EQ(Eval(engine,
                 "local ok, e = pcall(redis.call, 'big') "
                 "local t = {} for i = 1, 20000 do t[i] = 'row' .. i end return {e, #t}"),
            Value::Array({Value::Bulk("not enough memory"), Value::Int(20000)}));
  // Unprotected, the script fails as on any allocation past the limit.
  const std::string unprotected = "return redis.call('big')";
  const Value failed = Eval(engine, unprotected);
  EXPECT_EQ(failed.kind, Value::Kind::kError);
  EXPECT_EQ(failed.str.substr(0, 200),
            "ERR Error running script " + Sha1Hex(unprotected) + ", not enough memory");
  EXPECT_EQ(Eval(engine, "return redis.call('echo', 'after')"), Value::Bulk("after"));
  EXPECT_LE(engine.used_memory(), size_t{4} << 20);
  engine.set_memory_limit(0);
  EXPECT_EQ(Eval(engine, "return #redis.call('big')"), Value::Int(100000));
}

// pcall's collection after an out-of-memory error may itself allocate (Lua 5.1 halves a
// string table that many strings, garbage now, had grown, beside 30 MB of live data): the
// limit does not fail it, so each pcall returns false instead of raising. (The review's
// case: with the limit enforced in that collection this script fails.)
TEST_F(EngineTest, TheCollectionAfterAnOutOfMemoryErrorDoesNotRaise) {
  engine.set_memory_limit(48 << 20);
  EXPECT_EQ(Eval(engine,
                 "local live = {} for i = 1, 30 do "
                 "live[i] = string.rep(string.char(65 + i % 26), 1000000 + i) end "
                 "collectgarbage() "
                 "local t = {} for i = 1, 140000 do t[i] = 'k' .. i end t = nil "
                 "collectgarbage() local fill = {} "
                 "while pcall(function() fill[#fill + 1] = string.rep('z', 100000 + #fill) end) "
                 "do end return 'filled'"),
            Value::Bulk("filled"));
}

// Cached scripts are live: once they hold half the limit, runs do not each collect the whole
// heap (that cost 100 ms a call at 36 MB); garbage is still collected before it reaches the
// limit, so scripts that make a lot of it never fail.
TEST_F(EngineTest, ALiveHeapOverHalfTheLimitIsNotCollectedAfterEveryRun) {
  engine.set_memory_limit(4 << 20);
  for (int i = 0; engine.used_memory() < (size_t{5} << 19); ++i) {  // 2.5 MB of scripts
    ASSERT_TRUE(engine.Load("return '" + std::string(2000, 'x') + std::to_string(i) + "'").ok());
  }
  const uint64_t before = engine.full_collections();
  for (int i = 0; i < 200; ++i) ASSERT_EQ(Eval(engine, "return 1"), Value::Int(1));
  EXPECT_LE(engine.full_collections() - before, 2u);
  // 200 runs that each leave 100 KB of garbage: 20 MB in all, under a 4 MB limit.
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(Eval(engine, "local t = {} for i = 1, 12000 do t[i] = i end return #t"),
              Value::Int(12000))
        << "run " << i;
  }
  EXPECT_LE(engine.used_memory(), size_t{4} << 20);
}

// The collector is not restarted after every run (that began a new cycle each time, so it never
// paused), but a script that stopped or retuned it gets it back: the garbage of later runs is
// still collected.
TEST_F(EngineTest, AScriptThatStopsOrRetunesTheCollectorGetsItBack) {
  const char* changes[] = {
      "collectgarbage('stop')",
      "collectgarbage('setpause', 1000000) collectgarbage()",
      "collectgarbage('setstepmul', 1) collectgarbage('setpause', 100000)",
  };
  for (const char* change : changes) {
    SCOPED_TRACE(change);
    ScriptEngine fresh(&host);
    ASSERT_EQ(Eval(fresh, std::string(change) + " return 1"), Value::Int(1));
    // 40 runs that each leave 1 MB of garbage, fewer than the engine's periodic step.
    for (int i = 0; i < 40; ++i) {
      ASSERT_EQ(Eval(fresh, "local t = {} for i = 1, 60000 do t[i] = i end return #t"),
                Value::Int(60000));
    }
    EXPECT_LT(fresh.used_memory(), size_t{8} << 20);
  }
}

// collectgarbage answers as Lua's own.
TEST_F(EngineTest, CollectGarbageAnswersAsLuas) {
  EXPECT_EQ(Eval(engine, "return collectgarbage('count') > 0"), Value::Int(1));
  EXPECT_EQ(Eval(engine, "return type(collectgarbage('count'))"), Value::Bulk("number"));
  EXPECT_EQ(Eval(engine, "return collectgarbage()"), Value::Int(0));
  EXPECT_EQ(Eval(engine, "return type(collectgarbage('step'))"), Value::Bulk("boolean"));
  // Each answers the value it replaced; after the run the engine puts Lua's own back.
  const std::string replaced =
      "return {collectgarbage('setpause', 150), collectgarbage('setpause', 120),"
      " collectgarbage('setstepmul', 300)}";
  EXPECT_EQ(Eval(engine, replaced),
            Value::Array({Value::Int(200), Value::Int(150), Value::Int(200)}));
  const std::string restored =
      "return {collectgarbage('setpause', 200), collectgarbage('setstepmul', 200)}";
  EXPECT_EQ(Eval(engine, restored), Value::Array({Value::Int(200), Value::Int(200)}));
  const Value bad = Eval(engine, "return collectgarbage('bogus')");
  ASSERT_EQ(bad.kind, Value::Kind::kError);
  EXPECT_NE(bad.str.find("bad argument #1 to 'collectgarbage' (invalid option 'bogus')"),
            std::string::npos)
      << bad.str;
}

// Near the limit, Lua's next cycle begins only past it (at twice the live heap), and Lua 5.1
// does not collect when an allocation fails; a run that makes somewhat more garbage than the
// room left still succeeds. (Restarting the collector after every run, as sluice did before
// session 70, did not move the bound: both pass runs of 8,000 such strings, and fail 12,000.)
TEST_F(EngineTest, ARunNearTheLimitMakingMoreGarbageThanItsRoomSucceeds) {
  engine.set_memory_limit(4 << 20);
  for (int i = 0; engine.used_memory() < (size_t{5} << 19); ++i) {  // 2.5 MB of scripts
    ASSERT_TRUE(engine.Load("return '" + std::string(2000, 'x') + std::to_string(i) + "'").ok());
  }
  ASSERT_EQ(Eval(engine, "return 1"), Value::Int(1));
  // About 2 MB of garbage in each run, where about 1.5 MB is free.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Eval(engine,
                   "local n = 0 for i = 1, 8000 do n = n + #(string.rep('x', 100) .. i) "
                   "end return n"),
              Value::Int(8000 * 100 + 30893))
        << "run " << i;
  }
}

TEST_F(EngineTest, TimeLimitCallsTheHostAndKillStopsTheScript) {
  engine.set_time_limit_ms(1);
  host.on_busy = [&] {
    EXPECT_TRUE(engine.timed_out());
    if (host.busy_ticks == 3) engine.Kill();
  };
  std::string loop = "while true do end";
  EXPECT_EQ(Eval(engine, loop),
            Value::Error("ERR Script killed by user with SCRIPT KILL..." + Where(loop)));
  EXPECT_EQ(host.first_busy_ticks, 1);
  EXPECT_EQ(host.busy_ticks, 3);
  EXPECT_FALSE(engine.running());

  // pcall cannot swallow the kill.
  host.busy_ticks = 0;
  std::string stubborn = "while true do pcall(function() while true do end end) end";
  Value v = Eval(engine, stubborn);
  EXPECT_EQ(v.kind, Value::Kind::kError);
  EXPECT_NE(v.str.find("Script killed by user with SCRIPT KILL..."), std::string::npos);

  // A script under the limit never sees the host.
  host.busy_ticks = 0;
  engine.set_time_limit_ms(60000);
  EXPECT_EQ(Eval(engine, "local n = 0 for i = 1, 1e6 do n = n + 1 end return n"),
            Value::Int(1000000));
  EXPECT_EQ(host.busy_ticks, 0);
}

TEST(ShebangTest, FlagsAndErrors) {
  auto none = ParseShebang("return 1");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->flags.has_shebang);
  auto flags = ParseShebang("#!lua flags=no-writes,allow-oom\nreturn 1");
  ASSERT_TRUE(flags.ok());
  EXPECT_TRUE(flags->flags.has_shebang);
  EXPECT_TRUE(flags->flags.no_writes);
  EXPECT_TRUE(flags->flags.allow_oom);
  EXPECT_FALSE(flags->flags.no_cluster);
  EXPECT_EQ(flags->length, 31u);
  auto empty = ParseShebang("#!lua flags=\nreturn 1");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->flags.no_writes);
  EXPECT_EQ(ParseShebang("#!lua").status().message(), "Invalid script shebang");
  EXPECT_EQ(ParseShebang("#!luax\n").status().message(),
            "Unexpected engine in script shebang: #!luax");
  EXPECT_EQ(ParseShebang("#!lua name=x\n").status().message(),
            "Unknown lua shebang option: name=x");
  EXPECT_EQ(ParseShebang("#!lua flags=bogus\n").status().message(),
            "Unexpected flag in script shebang: bogus");
  EXPECT_EQ(ParseShebang("#!lua flags=no-writes,\n").status().message(),
            "Unexpected flag in script shebang: ");
}

TEST_F(EngineTest, ShebangKeepsLineNumbers) {
  std::string body = "#!lua flags=no-writes\nerror('x')";
  EXPECT_EQ(Eval(engine, body), Value::Error("ERR user_script:2: x" + Where(body, 2)));
  auto loaded = engine.Load(body);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE((*loaded)->flags.no_writes);
}

}  // namespace
}  // namespace sluice::scripting
