#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/config.h"

#include "common/glob_match.h"

namespace sluice::server {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::map<std::string, std::string> AsMap(const Pairs& pairs) {
  return {pairs.begin(), pairs.end()};
}

Status Set(Config* config, std::vector<std::string_view> args) { return ConfigSet(config, args); }

std::string Failed(std::string_view name, std::string_view detail) {
  return "CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(detail);
}

// ---- Glob matching (Redis's stringmatchlen) ---------------------------------------------------

TEST(GlobMatchTest, Basics) {
  EXPECT_FALSE(GlobMatch("*", "", false)) << "Redis's quirk: only \"\" matches \"\"";
  EXPECT_TRUE(GlobMatch("*", "anything", false));
  EXPECT_TRUE(GlobMatch("", "", false));
  EXPECT_FALSE(GlobMatch("", "a", false));
  EXPECT_TRUE(GlobMatch("port", "port", false));
  EXPECT_FALSE(GlobMatch("port", "ports", false));
  EXPECT_FALSE(GlobMatch("ports", "port", false));
  EXPECT_TRUE(GlobMatch("p?rt", "port", false));
  EXPECT_FALSE(GlobMatch("p?rt", "prt", false));
  EXPECT_TRUE(GlobMatch("*port", "metrics-port", false));
  EXPECT_TRUE(GlobMatch("tcp-*", "tcp-keepalive", false));
  EXPECT_TRUE(GlobMatch("*-*-*", "client-query-buffer-limit", false));
  EXPECT_FALSE(GlobMatch("*-*-*", "tcp-backlog", false));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc", false));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY", false));
  EXPECT_TRUE(GlobMatch("**a**", "bab", false));
}

TEST(GlobMatchTest, ClassesRangesNegationAndEscapes) {
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hello", false));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo", false));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo", false));
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo", false));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello", false));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo", false));
  EXPECT_TRUE(GlobMatch("h[b-a]llo", "hallo", false)) << "reversed ranges work, as Redis";
  EXPECT_FALSE(GlobMatch("h[a-b]llo", "hcllo", false));
  EXPECT_TRUE(GlobMatch("a\\*b", "a*b", false));
  EXPECT_FALSE(GlobMatch("a\\*b", "axb", false));
  EXPECT_TRUE(GlobMatch("a[\\]]b", "a]b", false));
  EXPECT_TRUE(GlobMatch("a\\", "a\\", false)) << "a trailing backslash is literal";
  EXPECT_FALSE(GlobMatch("a[]b", "ab", false)) << "an empty class matches nothing";
  EXPECT_TRUE(GlobMatch("a[bc", "ab", false)) << "an unterminated class ends with the pattern";
}

TEST(GlobMatchTest, NoCase) {
  EXPECT_TRUE(GlobMatch("PORT", "port", true));
  EXPECT_FALSE(GlobMatch("PORT", "port", false));
  EXPECT_TRUE(GlobMatch("[A-C]at", "bat", true));
  EXPECT_TRUE(GlobMatch("[a-c]AT", "BaT", true));
}

TEST(GlobMatchTest, PathologicalPatternIsFast) {
  // Exponential for a naive recursive matcher; linear-time here.
  const std::string text(5000, 'a');
  const std::string pattern = "a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
  EXPECT_FALSE(GlobMatch(pattern, text, false));
}

// ---- CONFIG GET ------------------------------------------------------------------------------

TEST(ConfigGetTest, EveryParameterWithRedisFormats) {
  const std::map<std::string, std::string> all = AsMap(ConfigGet(Config{}, "*"));
  const std::map<std::string, std::string> expected = {
      {"port", "6379"},
      {"bind", "127.0.0.1 -::1"},
      {"unixsocket", ""},
      {"unixsocketperm", "0"},
      {"dir", "./sluice-data"},
      {"requirepass", ""},
      {"protected-mode", "yes"},
      {"appendfsync", "everysec"},
      {"maxclients", "10000"},
      {"timeout", "0"},
      {"proto-max-bulk-len", "536870912"},
      {"client-query-buffer-limit", "1073741824"},
      {"lua-time-limit", "5000"},
      {"busy-reply-threshold", "5000"},  // its alias, listed too, as Redis 7.0
      {"loglevel", "notice"},
      {"logfile", ""},
      {"enable-debug-command", "no"},
      {"aclfile", ""},
      {"client-output-buffer-limit",
       "normal 67108864 16777216 60 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
      {"tcp-keepalive", "300"},
      {"tcp-backlog", "511"},
      {"lua-memory-limit", "67108864"},
      {"metrics-port", "0"},
      {"databases", "16"},
      {"rocksdb-write-buffer-size", "33554432"},
      {"record-cache-size", "134217728"},
      {"slowlog-log-slower-than", "10000"},
      {"slowlog-max-len", "128"},
      {"jemalloc-bg-thread", "yes"},
      {"latency-monitor-threshold", "0"},
      {"latency-tracking", "yes"},
      {"latency-tracking-info-percentiles", "50 99 99.9"},
      {"notify-keyspace-events", ""},
      {"hll-sparse-max-bytes", "3000"},
      {"tracking-table-max-keys", "1000000"},
      {"save", ""},
      {"appendonly", "yes"},
      {"maxmemory", "0"},
      {"maxmemory-policy", "noeviction"},
  };
  EXPECT_EQ(all, expected);
}

TEST(ConfigGetTest, ReflectsChangedValues) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("bind 0.0.0.0 ::\n"
                              "unixsocketperm 755\n"
                              "protected-mode no\n"
                              "appendfsync always\n"
                              "proto-max-bulk-len 1gb\n"
                              "enable-debug-command local\n"
                              "aclfile \"/etc/sluice/users.acl\"\n"
                              "client-output-buffer-limit normal 1mb 2k 7\n"
                              "client-output-buffer-limit replica 1 2 3\n"
                              "loglevel WARNING\n",
                              &config)
                  .ok());
  const std::map<std::string, std::string> all = AsMap(ConfigGet(config, "*"));
  EXPECT_EQ(all.at("bind"), "0.0.0.0 ::");
  EXPECT_EQ(all.at("unixsocketperm"), "755");
  EXPECT_EQ(all.at("protected-mode"), "no");
  EXPECT_EQ(all.at("appendfsync"), "always");
  EXPECT_EQ(all.at("proto-max-bulk-len"), "1073741824");
  EXPECT_EQ(all.at("enable-debug-command"), "local");
  EXPECT_EQ(all.at("aclfile"), "/etc/sluice/users.acl");
  EXPECT_EQ(all.at("client-output-buffer-limit"),
            "normal 1048576 2000 7 slave 1 2 3 pubsub 33554432 8388608 60");
  EXPECT_EQ(all.at("loglevel"), "warning");
}

TEST(ConfigGetTest, PoliciesAndRenamesAreNotParameters) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("policy a GCRA 1 2 3\nrename-command keys \"\"\n", &config).ok());
  const std::map<std::string, std::string> all = AsMap(ConfigGet(config, "*"));
  EXPECT_EQ(all.count("policy"), 0u);
  EXPECT_EQ(all.count("rename-command"), 0u);
  EXPECT_TRUE(ConfigGet(config, "policy").empty());
}

TEST(ConfigGetTest, ExactNamePatternAndCase) {
  const Config config;
  EXPECT_EQ(ConfigGet(config, "port"), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(ConfigGet(config, "PORT"), (Pairs{{"PORT", "6379"}})) << "echoed as asked, as Redis";
  EXPECT_EQ(ConfigGet(config, "no-such-parameter"), Pairs{});
  EXPECT_EQ(AsMap(ConfigGet(config, "*PORT")),
            (std::map<std::string, std::string>{{"port", "6379"}, {"metrics-port", "0"}}));
  EXPECT_EQ(AsMap(ConfigGet(config, "tcp-*")),
            (std::map<std::string, std::string>{{"tcp-keepalive", "300"}, {"tcp-backlog", "511"}}));
  EXPECT_EQ(
      AsMap(ConfigGet(config, "maxmemory*")),
      (std::map<std::string, std::string>{{"maxmemory", "0"}, {"maxmemory-policy", "noeviction"}}));
  EXPECT_EQ(ConfigGet(config, "p?rt"), (Pairs{{"port", "6379"}}));
  EXPECT_EQ(ConfigGet(config, "[lm]ua-time-limit"), (Pairs{{"lua-time-limit", "5000"}}));
}

// As Redis 7.0.15: a pattern matches the alias's name too, and "*" lists both names.
TEST(ConfigGetTest, AliasByNameAndPattern) {
  Config config;
  config.lua_time_limit = 42;
  EXPECT_EQ(ConfigGet(config, "busy-reply-threshold"), (Pairs{{"busy-reply-threshold", "42"}}));
  EXPECT_EQ(ConfigGet(config, "BUSY-REPLY-THRESHOLD"), (Pairs{{"BUSY-REPLY-THRESHOLD", "42"}}));
  EXPECT_EQ(ConfigGet(config, "busy-*"), (Pairs{{"busy-reply-threshold", "42"}}));
  EXPECT_EQ(AsMap(ConfigGet(config, "*")).count("busy-reply-threshold"), 1u);
  EXPECT_EQ(AsMap(ConfigGet(config, "*")).count("lua-time-limit"), 1u);
}

TEST(ConfigGetTest, SeveralPatternsEachParameterOnce) {
  const Config config;
  const std::vector<std::string_view> patterns = {"port", "*port", "timeout", "port"};
  const Pairs got = ConfigGet(config, patterns);
  EXPECT_EQ(got, (Pairs{{"port", "6379"}, {"metrics-port", "0"}, {"timeout", "0"}}));
}

// ---- CONFIG SET ------------------------------------------------------------------------------

TEST(ConfigSetTest, RuntimeDirectives) {
  Config config;
  ASSERT_TRUE(Set(&config, {"requirepass", "new pass"}).ok());
  ASSERT_TRUE(Set(&config, {"protected-mode", "NO"}).ok());
  ASSERT_TRUE(Set(&config, {"appendfsync", "Always"}).ok());
  ASSERT_TRUE(Set(&config, {"maxclients", "50"}).ok());
  ASSERT_TRUE(Set(&config, {"timeout", "30"}).ok());
  ASSERT_TRUE(Set(&config, {"proto-max-bulk-len", "2mb"}).ok());
  ASSERT_TRUE(Set(&config, {"client-query-buffer-limit", "3mb"}).ok());
  ASSERT_TRUE(Set(&config, {"lua-time-limit", "100"}).ok());
  ASSERT_TRUE(Set(&config, {"loglevel", "DEBUG"}).ok());
  ASSERT_TRUE(Set(&config, {"client-output-buffer-limit", "normal 10mb 5mb 15"}).ok());
  ASSERT_TRUE(Set(&config, {"tcp-keepalive", "0"}).ok());
  ASSERT_TRUE(Set(&config, {"lua-memory-limit", "1gb"}).ok());
  ASSERT_TRUE(Set(&config, {"record-cache-size", "512mb"}).ok());
  EXPECT_EQ(config.requirepass, "new pass");
  EXPECT_FALSE(config.protected_mode);
  EXPECT_EQ(config.appendfsync, AppendFsync::kAlways);
  EXPECT_EQ(config.maxclients, 50);
  EXPECT_EQ(config.timeout, 30);
  EXPECT_EQ(config.proto_max_bulk_len, 2u << 20);
  EXPECT_EQ(config.client_query_buffer_limit, 3u << 20);
  EXPECT_EQ(config.lua_time_limit, 100);
  EXPECT_EQ(config.loglevel, "debug");
  EXPECT_EQ(config.record_cache_size, 512u << 20);
  EXPECT_EQ(config.client_output_buffer_limit.hard_bytes, 10u << 20);
  EXPECT_EQ(config.client_output_buffer_limit.soft_bytes, 5u << 20);
  EXPECT_EQ(config.client_output_buffer_limit.soft_seconds, 15);
  EXPECT_EQ(config.tcp_keepalive, 0);
  EXPECT_EQ(config.lua_memory_limit, 1u << 30);
  // Read back as CONFIG GET prints it.
  const std::map<std::string, std::string> all = AsMap(ConfigGet(config, "*"));
  EXPECT_EQ(all.at("proto-max-bulk-len"), "2097152");
  EXPECT_EQ(all.at("loglevel"), "debug");
  EXPECT_EQ(all.at("appendfsync"), "always");
}

TEST(ConfigSetTest, NamesAreCaseInsensitiveAndAliasWorks) {
  Config config;
  ASSERT_TRUE(Set(&config, {"TIMEOUT", "9"}).ok());
  EXPECT_EQ(config.timeout, 9);
  ASSERT_TRUE(Set(&config, {"busy-reply-threshold", "77"}).ok());
  EXPECT_EQ(config.lua_time_limit, 77);
}

TEST(ConfigSetTest, EmptyPasswordRemovesIt) {
  Config config;
  config.requirepass = "x";
  ASSERT_TRUE(Set(&config, {"requirepass", ""}).ok());
  EXPECT_EQ(config.requirepass, "");
}

TEST(ConfigSetTest, Unknown) {
  Config config;
  const Status status = Set(&config, {"foo", "1"});
  EXPECT_EQ(status.code(), Code::kErr);
  EXPECT_EQ(status.message(), "Unknown option or number of arguments for CONFIG SET - 'foo'");
  // Directives that are not CONFIG parameters are unknown to CONFIG SET.
  EXPECT_EQ(Set(&config, {"policy", "a GCRA 1 2 3"}).message(),
            "Unknown option or number of arguments for CONFIG SET - 'policy'");
}

TEST(ConfigSetTest, Immutable) {
  Config config;
  for (std::string_view name :
       {"port", "bind", "unixsocket", "unixsocketperm", "logfile", "enable-debug-command",
        "tcp-backlog", "metrics-port", "databases", "rocksdb-write-buffer-size", "aclfile"}) {
    const Status status = Set(&config, {name, "1"});
    EXPECT_EQ(status.code(), Code::kErr) << name;
    EXPECT_EQ(status.message(), Failed(name, "can't set immutable config")) << name;
  }
  EXPECT_EQ(Set(&config, {"PORT", "1"}).message(), Failed("PORT", "can't set immutable config"))
      << "names the argument as given, as Redis";
  EXPECT_EQ(config.port, 6379);
  EXPECT_EQ(Set(&config, {"dir", "/tmp"}).message(), Failed("dir", "can't set protected config"))
      << "Redis's wording for its protected directives";
}

TEST(ConfigSetTest, RedisParametersSluiceOnlyAnswersForTakeTheirOneValue) {
  Config config;
  for (auto [name, value] : {std::pair{"save", ""},
                             {"appendonly", "YES"},
                             {"maxmemory", "0"},
                             {"maxmemory", "0mb"},
                             {"maxmemory-policy", "noeviction"}}) {
    EXPECT_TRUE(Set(&config, {name, value}).ok()) << name << " " << value;
  }
  EXPECT_EQ(Set(&config, {"maxmemory-policy", "allkeys-lru"}).message(),
            Failed("maxmemory-policy", "sluice evicts nothing: its only policy is noeviction"));
  EXPECT_EQ(
      Set(&config, {"maxmemory", "1gb"}).message(),
      Failed("maxmemory", "sluice has no memory limit (keys live on disk; it evicts nothing)"));
  EXPECT_EQ(Set(&config, {"appendonly", "no"}).message(),
            Failed("appendonly", "sluice always logs every write"));
  EXPECT_EQ(Set(&config, {"save", "3600 1"}).message(),
            Failed("save", "sluice takes no snapshots: every write is in its log"));
  const std::map<std::string, std::string> all = AsMap(ConfigGet(config, "maxmemory*"));
  EXPECT_EQ(all, (std::map<std::string, std::string>{{"maxmemory", "0"},
                                                     {"maxmemory-policy", "noeviction"}}));
}

TEST(ConfigSetTest, BadValuesUseRedisTexts) {
  struct Case {
    std::string_view name;
    std::string_view value;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"timeout", "abc", "argument couldn't be parsed into an integer"},
      {"timeout", "-1", "argument must be between 0 and 2147483647 inclusive"},
      {"timeout", "01", "argument couldn't be parsed into an integer"},
      {"maxclients", "0", "argument must be between 1 and 4294967295 inclusive"},
      {"tcp-keepalive", "1.5", "argument couldn't be parsed into an integer"},
      {"lua-time-limit", "-5", "argument must be between 0 and 9223372036854775807 inclusive"},
      {"proto-max-bulk-len", "1kb",
       "argument must be between 1048576 and 9223372036854775807 "
       "inclusive"},
      {"proto-max-bulk-len", "lots", "argument must be a memory value"},
      {"client-query-buffer-limit", "-1", "argument must be a memory value"},
      {"lua-memory-limit", "9223372036854775808",
       "argument must be between 0 and 9223372036854775807 inclusive"},
      {"protected-mode", "maybe", "argument must be 'yes' or 'no'"},
      {"appendfsync", "never", "argument(s) must be one of the following: everysec, always, no"},
      {"loglevel", "loud",
       "argument(s) must be one of the following: debug, verbose, notice, warning"},
      {"client-output-buffer-limit", "normal 1mb 1mb",
       "Wrong number of arguments in buffer limit configuration."},
      {"client-output-buffer-limit", "master 1mb 1mb 60",
       "Invalid client class specified in buffer limit configuration."},
      {"client-output-buffer-limit", "normal 1mb 1xb 60",
       "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
      {"client-output-buffer-limit", "normal 1mb 1mb -1",
       "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
      {"latency-monitor-threshold", "-1",
       "argument must be between 0 and 9223372036854775807 inclusive"},
      {"latency-tracking-info-percentiles", "50 abc",
       "Invalid latency-tracking-info-percentiles parameters"},
      {"latency-tracking-info-percentiles", "nan",
       "Invalid latency-tracking-info-percentiles parameters"},
      {"latency-tracking-info-percentiles", "100.5",
       "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
  };
  for (const Case& c : cases) {
    Config config;
    const Config before = config;
    const Status status = Set(&config, {c.name, c.value});
    EXPECT_EQ(status.code(), Code::kErr) << c.name << " " << c.value;
    EXPECT_EQ(status.message(), Failed(c.name, c.detail)) << c.name << " " << c.value;
    EXPECT_EQ(AsMap(ConfigGet(config, "*")), AsMap(ConfigGet(before, "*")))
        << "nothing changed: " << c.name;
  }
}

// Printed as Redis prints them: "%f" without trailing zeros; "" sets none.
TEST(ConfigSetTest, LatencyPercentilesRoundTrip) {
  Config config;
  ASSERT_TRUE(Set(&config, {"latency-tracking-info-percentiles", "99.99 0 50.5 100"}).ok());
  EXPECT_EQ(AsMap(ConfigGet(config, "latency-tracking-info-percentiles")).begin()->second,
            "99.99 0 50.5 100");
  EXPECT_EQ(config.latency_tracking_info_percentiles, (std::vector<double>{99.99, 0, 50.5, 100}));
  ASSERT_TRUE(Set(&config, {"latency-tracking-info-percentiles", ""}).ok());
  EXPECT_TRUE(config.latency_tracking_info_percentiles.empty());
  EXPECT_EQ(AsMap(ConfigGet(config, "latency-tracking-info-percentiles")).begin()->second, "");
}

TEST(ConfigSetTest, SeveralPairsAreAllOrNothing) {
  Config config;
  ASSERT_TRUE(Set(&config, {"timeout", "10", "maxclients", "20", "loglevel", "verbose"}).ok());
  EXPECT_EQ(config.timeout, 10);
  EXPECT_EQ(config.maxclients, 20);
  EXPECT_EQ(config.loglevel, "verbose");

  // The last value is bad: none of the earlier ones apply.
  const Status status = Set(&config, {"timeout", "11", "maxclients", "21", "tcp-keepalive", "x"});
  EXPECT_EQ(status.message(),
            Failed("tcp-keepalive", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(config.timeout, 10);
  EXPECT_EQ(config.maxclients, 20);
  EXPECT_EQ(config.tcp_keepalive, 300);
}

TEST(ConfigSetTest, NameErrorsComeBeforeValueErrors) {
  Config config;
  // A bad value first, an unknown name later: Redis checks every name before any value.
  EXPECT_EQ(Set(&config, {"timeout", "x", "foo", "1"}).message(),
            "Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(Set(&config, {"timeout", "x", "port", "1"}).message(),
            Failed("port", "can't set immutable config"));
  // Among name errors, the first one wins.
  EXPECT_EQ(Set(&config, {"port", "1", "foo", "1"}).message(),
            Failed("port", "can't set immutable config"));
  EXPECT_EQ(Set(&config, {"foo", "1", "port", "1"}).message(),
            "Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(config.timeout, 0);
}

TEST(ConfigSetTest, DuplicateParameter) {
  Config config;
  EXPECT_EQ(Set(&config, {"timeout", "1", "timeout", "2"}).message(),
            Failed("timeout", "duplicate parameter"));
  EXPECT_EQ(config.timeout, 0);
  // By name, as Redis 7.0.15: a name with its alias is accepted, and the last one wins.
  EXPECT_TRUE(Set(&config, {"lua-time-limit", "1", "busy-reply-threshold", "2"}).ok());
  EXPECT_EQ(config.lua_time_limit, 2);
}

TEST(ConfigSetTest, OddOrEmptyArgumentsAreASyntaxError) {
  Config config;
  const Status odd = Set(&config, {"timeout", "1", "maxclients"});
  EXPECT_EQ(odd.code(), Code::kSyntax);
  EXPECT_EQ(odd.message(), "syntax error");
  EXPECT_EQ(config.timeout, 0);
  EXPECT_EQ(Set(&config, {}).code(), Code::kSyntax);
}

TEST(ConfigSetTest, OutputBufferLimitValueSplitOnEachSpace) {
  Config config;
  ASSERT_TRUE(Set(&config, {"client-output-buffer-limit", "normal 1mb 2mb 3"}).ok());
  EXPECT_EQ(config.client_output_buffer_limit.hard_bytes, 1u << 20);
  EXPECT_EQ(config.client_output_buffer_limit.soft_bytes, 2u << 20);
  EXPECT_EQ(config.client_output_buffer_limit.soft_seconds, 3);
  // Redis accepts an empty value as "no change".
  ASSERT_TRUE(Set(&config, {"client-output-buffer-limit", ""}).ok());
  EXPECT_EQ(config.client_output_buffer_limit.hard_bytes, 1u << 20);
  // Two spaces make an empty word (Redis's sdssplitlen): five words, refused.
  EXPECT_FALSE(Set(&config, {"client-output-buffer-limit", "normal  4mb 4mb 3"}).ok());
  EXPECT_EQ(config.client_output_buffer_limit.hard_bytes, 1u << 20);
}

TEST(ConfigSetTest, SingleValuesKeepTheirSpaces) {
  Config config;
  ASSERT_TRUE(Set(&config, {"requirepass", "  two words  "}).ok());
  EXPECT_EQ(config.requirepass, "  two words  ");
  EXPECT_EQ(Set(&config, {"timeout", "1 2"}).message(),
            Failed("timeout", "argument couldn't be parsed into an integer"));
}

}  // namespace
}  // namespace sluice::server
