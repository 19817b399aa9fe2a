#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"

namespace sluice::server {
namespace {

using Words = std::vector<std::string>;

Config Parse(std::string_view text) {
  Config config;
  const Status status = ApplyConfigText(text, &config);
  EXPECT_TRUE(status.ok()) << "text: " << text << "\nerror: " << status.message();
  return config;
}

std::string ParseError(std::string_view text) {
  Config config;
  const Status status = ApplyConfigText(text, &config);
  EXPECT_FALSE(status.ok()) << "accepted: " << text;
  EXPECT_EQ(status.code(), Code::kErr);
  EXPECT_EQ(status.message().find('\n'), std::string::npos) << "one line: " << status.message();
  return status.message();
}

// ---- Defaults ---------------------------------------------------------------------------------

TEST(ConfigDefaultsTest, MatchTheInterfaceTable) {
  const Config c;
  EXPECT_EQ(c.port, 6379);
  EXPECT_EQ(c.bind, (Words{"127.0.0.1", "-::1"}));
  EXPECT_EQ(c.unixsocket, "");
  EXPECT_EQ(c.unixsocketperm, 0u);
  EXPECT_EQ(c.dir, "./sluice-data");
  EXPECT_EQ(c.requirepass, "");
  EXPECT_TRUE(c.protected_mode);
  EXPECT_EQ(c.appendfsync, AppendFsync::kEverysec);
  EXPECT_EQ(c.maxclients, 10000);
  EXPECT_EQ(c.timeout, 0);
  EXPECT_EQ(c.proto_max_bulk_len, 512ull * 1024 * 1024);
  EXPECT_EQ(c.client_query_buffer_limit, 1024ull * 1024 * 1024);
  EXPECT_EQ(c.lua_time_limit, 5000);
  EXPECT_EQ(c.loglevel, "notice");
  EXPECT_EQ(c.logfile, "");
  EXPECT_EQ(c.enable_debug_command, DebugCommandMode::kNo);
  EXPECT_TRUE(c.policies.empty());
  EXPECT_EQ(c.client_output_buffer_limit.hard_bytes, 64ull * 1024 * 1024);
  EXPECT_EQ(c.client_output_buffer_limit.soft_bytes, 16ull * 1024 * 1024);
  EXPECT_EQ(c.client_output_buffer_limit.soft_seconds, 60);
  EXPECT_EQ(c.tcp_keepalive, 300);
  EXPECT_EQ(c.tcp_backlog, 511);
  EXPECT_EQ(c.lua_memory_limit, 64ull * 1024 * 1024);
  EXPECT_EQ(c.metrics_port, 0);
  EXPECT_EQ(c.rocksdb_write_buffer_size, 32ull << 20);
  EXPECT_TRUE(c.rename_commands.empty());
}

TEST(ConfigTextTest, EmptyTextChangesNothing) {
  Config config;
  config.port = 1234;
  ASSERT_TRUE(ApplyConfigText("", &config).ok());
  ASSERT_TRUE(ApplyConfigText("\n\n   \n# only a comment\n", &config).ok());
  EXPECT_EQ(config.port, 1234);
}

// ---- Lexical rules ---------------------------------------------------------------------------

TEST(ConfigTextTest, CommentsBlankLinesIndentationAndCrlf) {
  const Config c = Parse(
      "# sluice.conf\r\n"
      "\r\n"
      "   port 7000   \r\n"
      "\t# indented comment\n"
      "\ttimeout\t30\n"
      "loglevel warning");  // no final newline
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.timeout, 30);
  EXPECT_EQ(c.loglevel, "warning");
}

TEST(ConfigTextTest, TrailingCommentIsNotAComment) {
  // As redis.conf: '#' only starts a comment at the beginning of a line.
  EXPECT_EQ(ParseError("port 7000 # the port"),
            "config line 1: wrong number of arguments for 'port' (expects 1 value, got 4)");
}

TEST(ConfigTextTest, DirectiveNamesAreCaseInsensitive) {
  const Config c = Parse("PORT 7001\nProtected-Mode no\nAPPENDFSYNC Always\n");
  EXPECT_EQ(c.port, 7001);
  EXPECT_FALSE(c.protected_mode);
  EXPECT_EQ(c.appendfsync, AppendFsync::kAlways);
}

TEST(ConfigTextTest, QuotedValues) {
  const Config c = Parse(
      "requirepass \"a b\"\n"
      "dir 'my dir'\n"
      "logfile \"tab\\there\\x41\\\"q\"\n");
  EXPECT_EQ(c.requirepass, "a b");
  EXPECT_EQ(c.dir, "my dir");
  EXPECT_EQ(c.logfile,
            "tab\there"
            "A\"q");
}

TEST(ConfigTextTest, EmptyQuotedValueClearsAString) {
  Config config;
  config.requirepass = "secret";
  ASSERT_TRUE(ApplyConfigText("requirepass \"\"", &config).ok());
  EXPECT_EQ(config.requirepass, "");
}

TEST(ConfigTextTest, UnbalancedQuotesNameTheLine) {
  EXPECT_EQ(ParseError("port 1\nrequirepass \"abc\n"),
            "config line 2: unbalanced quotes in 'requirepass \"abc'");
  EXPECT_EQ(ParseError("requirepass \"abc\"def"),
            "config line 1: unbalanced quotes in 'requirepass \"abc\"def'");
}

TEST(ConfigTextTest, UnknownDirective) {
  EXPECT_EQ(ParseError("\n\nfoo bar\n"), "config line 3: unknown directive 'foo'");
}

TEST(ConfigTextTest, ReadOnlyProbesAreNotDirectives) {
  // CONFIG GET answers these for clients that probe, but a config file can't set them.
  EXPECT_EQ(ParseError("save \"\""), "config line 1: unknown directive 'save'");
}

TEST(ConfigTextTest, LineNumbersCountEveryLine) {
  EXPECT_EQ(ParseError("# one\n\nport 1\n  \n# five\nport abc\n"),
            "config line 6: 'port' must be an integer between 0 and 65535, got 'abc'");
  EXPECT_EQ(ParseError("port 1\r\nport 2\r\nport abc\r\n"),
            "config line 3: 'port' must be an integer between 0 and 65535, got 'abc'");
}

TEST(ConfigTextTest, ErrorLeavesConfigUnchanged) {
  Config config;
  const Status status = ApplyConfigText("port 7000\npolicy a GCRA 1 2 3\ntimeout x\n", &config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(config.port, 6379);
  EXPECT_TRUE(config.policies.empty());
}

TEST(ConfigTextTest, ControlBytesInErrorsAreEscaped) {
  const std::string message = ParseError("port \"1\\n2\\x01\"");
  EXPECT_EQ(message,
            "config line 1: 'port' must be an integer between 0 and 65535, got '1\\n2\\x01'");
}

TEST(ConfigTextTest, LongValuesAreCutInErrors) {
  const std::string message = ParseError("port " + std::string(500, '9'));
  EXPECT_LT(message.size(), 250u);
  EXPECT_NE(message.find("...'"), std::string::npos) << message;
}

// ---- Repeats ---------------------------------------------------------------------------------

TEST(ConfigTextTest, LastOneWinsForSingleDirectives) {
  const Config c = Parse("port 1\nport 2\nbind 10.0.0.1\nbind 10.0.0.2 10.0.0.3\n");
  EXPECT_EQ(c.port, 2);
  EXPECT_EQ(c.bind, (Words{"10.0.0.2", "10.0.0.3"}));
}

TEST(ConfigTextTest, PoliciesAccumulateInOrder) {
  const Config c = Parse(
      "policy api TOKENBUCKET 100 10 1000\n"
      "policy login fixedwindow 5 60000\n"
      "POLICY burst \"GCRA\" 10 1 1000\n");
  ASSERT_EQ(c.policies.size(), 3u);
  EXPECT_EQ(c.policies[0], (Words{"api", "TOKENBUCKET", "100", "10", "1000"}));
  EXPECT_EQ(c.policies[1], (Words{"login", "fixedwindow", "5", "60000"}));
  EXPECT_EQ(c.policies[2], (Words{"burst", "GCRA", "10", "1", "1000"}));
}

TEST(ConfigTextTest, PolicyNeedsANameAndAnAlgorithm) {
  EXPECT_EQ(ParseError("policy api"),
            "config line 1: wrong number of arguments for 'policy' (expects at least 2 values, "
            "got 1)");
  EXPECT_EQ(ParseError("policy"),
            "config line 1: wrong number of arguments for 'policy' (expects at least 2 values, "
            "got 0)");
}

TEST(ConfigTextTest, PolicyAsOneQuotedArgumentIsSplit) {
  const Config c = Parse("policy \"api TOKENBUCKET 100 10 1000\"");
  ASSERT_EQ(c.policies.size(), 1u);
  EXPECT_EQ(c.policies[0], (Words{"api", "TOKENBUCKET", "100", "10", "1000"}));
}

TEST(ConfigTextTest, RenameCommandAccumulates) {
  const Config c = Parse("rename-command FLUSHALL \"\"\nrename-command config myconfig\n");
  ASSERT_EQ(c.rename_commands.size(), 2u);
  EXPECT_EQ(c.rename_commands[0], (std::pair<std::string, std::string>{"FLUSHALL", ""}));
  EXPECT_EQ(c.rename_commands[1], (std::pair<std::string, std::string>{"config", "myconfig"}));
  EXPECT_EQ(ParseError("rename-command flushall"),
            "config line 1: wrong number of arguments for 'rename-command' (expects 2 values, "
            "got 1)");
}

// ---- Every directive, good values ------------------------------------------------------------

struct GoodCase {
  std::string text;
  std::function<bool(const Config&)> check;
};

TEST(ConfigTextTest, EveryDirectiveAcceptsGoodValues) {
  const std::vector<GoodCase> cases = {
      {"port 0", [](const Config& c) { return c.port == 0; }},
      {"port 65535", [](const Config& c) { return c.port == 65535; }},
      {"bind 0.0.0.0", [](const Config& c) { return c.bind == Words{"0.0.0.0"}; }},
      {"bind 127.0.0.1 -::1 10.1.2.3",
       [](const Config& c) {
         return c.bind == Words{"127.0.0.1", "-::1", "10.1.2.3"};
       }},
      {"bind \"\"", [](const Config& c) { return c.bind.empty(); }},
      {"bind \"127.0.0.1 ::1\"",
       [](const Config& c) {
         return c.bind == Words{"127.0.0.1", "::1"};
       }},
      {"unixsocket /tmp/sluice.sock",
       [](const Config& c) { return c.unixsocket == "/tmp/sluice.sock"; }},
      {"unixsocketperm 700", [](const Config& c) { return c.unixsocketperm == 0700; }},
      {"unixsocketperm 0777", [](const Config& c) { return c.unixsocketperm == 0777; }},
      {"unixsocketperm 0", [](const Config& c) { return c.unixsocketperm == 0; }},
      {"dir /var/lib/sluice", [](const Config& c) { return c.dir == "/var/lib/sluice"; }},
      {"requirepass s3cret", [](const Config& c) { return c.requirepass == "s3cret"; }},
      {"protected-mode no", [](const Config& c) { return !c.protected_mode; }},
      {"protected-mode YES", [](const Config& c) { return c.protected_mode; }},
      {"appendfsync always", [](const Config& c) { return c.appendfsync == AppendFsync::kAlways; }},
      {"appendfsync EVERYSEC",
       [](const Config& c) { return c.appendfsync == AppendFsync::kEverysec; }},
      {"appendfsync no", [](const Config& c) { return c.appendfsync == AppendFsync::kNo; }},
      {"maxclients 1", [](const Config& c) { return c.maxclients == 1; }},
      {"maxclients 4294967295", [](const Config& c) { return c.maxclients == 4294967295; }},
      {"timeout 0", [](const Config& c) { return c.timeout == 0; }},
      {"timeout 2147483647", [](const Config& c) { return c.timeout == 2147483647; }},
      {"proto-max-bulk-len 1mb", [](const Config& c) { return c.proto_max_bulk_len == 1048576; }},
      {"proto-max-bulk-len 2G", [](const Config& c) { return c.proto_max_bulk_len == 2000000000; }},
      {"client-query-buffer-limit 2gb",
       [](const Config& c) { return c.client_query_buffer_limit == 2ull << 30; }},
      {"lua-time-limit 0", [](const Config& c) { return c.lua_time_limit == 0; }},
      {"lua-time-limit 250", [](const Config& c) { return c.lua_time_limit == 250; }},
      {"busy-reply-threshold 750", [](const Config& c) { return c.lua_time_limit == 750; }},
      {"loglevel debug", [](const Config& c) { return c.loglevel == "debug"; }},
      {"loglevel VERBOSE", [](const Config& c) { return c.loglevel == "verbose"; }},
      {"loglevel Warning", [](const Config& c) { return c.loglevel == "warning"; }},
      {"logfile /var/log/sluice.log",
       [](const Config& c) { return c.logfile == "/var/log/sluice.log"; }},
      {"logfile \"\"", [](const Config& c) { return c.logfile.empty(); }},
      {"enable-debug-command yes",
       [](const Config& c) { return c.enable_debug_command == DebugCommandMode::kYes; }},
      {"enable-debug-command LOCAL",
       [](const Config& c) { return c.enable_debug_command == DebugCommandMode::kLocal; }},
      {"enable-debug-command no",
       [](const Config& c) { return c.enable_debug_command == DebugCommandMode::kNo; }},
      {"client-output-buffer-limit normal 0 0 0",
       [](const Config& c) {
         return c.client_output_buffer_limit == OutputBufferLimit{0, 0, 0};
       }},
      {"client-output-buffer-limit NORMAL 32mb 8mb 30",
       [](const Config& c) {
         return c.client_output_buffer_limit == OutputBufferLimit{32ull << 20, 8ull << 20, 30};
       }},
      {"client-output-buffer-limit pubsub 1mb 0 0 normal 2mb 1mb 10",
       [](const Config& c) {
         return c.client_output_buffer_limit_pubsub == OutputBufferLimit{1ull << 20, 0, 0} &&
                c.client_output_buffer_limit == OutputBufferLimit{2ull << 20, 1ull << 20, 10};
       }},
      {"client-output-buffer-limit \"normal 1kb 1k 5\"",
       [](const Config& c) {
         return c.client_output_buffer_limit == OutputBufferLimit{1024, 1000, 5};
       }},
      {"tcp-keepalive 0", [](const Config& c) { return c.tcp_keepalive == 0; }},
      {"tcp-keepalive 60", [](const Config& c) { return c.tcp_keepalive == 60; }},
      {"tcp-backlog 1024", [](const Config& c) { return c.tcp_backlog == 1024; }},
      {"lua-memory-limit 0", [](const Config& c) { return c.lua_memory_limit == 0; }},
      {"lua-memory-limit 128mb",
       [](const Config& c) { return c.lua_memory_limit == 128ull << 20; }},
      {"metrics-port 9121", [](const Config& c) { return c.metrics_port == 9121; }},
      {"metrics-port 0", [](const Config& c) { return c.metrics_port == 0; }},
      {"databases 1", [](const Config& c) { return c.databases == 1; }},
      {"databases 128", [](const Config& c) { return c.databases == 128; }},
      {"rocksdb-write-buffer-size 1mb",
       [](const Config& c) { return c.rocksdb_write_buffer_size == 1ull << 20; }},
      {"rocksdb-write-buffer-size 1gb",
       [](const Config& c) { return c.rocksdb_write_buffer_size == 1ull << 30; }},
      {"record-cache-size 0", [](const Config& c) { return c.record_cache_size == 0; }},
      {"record-cache-size 2gb", [](const Config& c) { return c.record_cache_size == 2ull << 30; }},
  };
  for (const GoodCase& gc : cases) {
    Config config;
    const Status status = ApplyConfigText(gc.text, &config);
    ASSERT_TRUE(status.ok()) << gc.text << ": " << status.message();
    EXPECT_TRUE(gc.check(config)) << gc.text;
  }
}

// ---- Every directive, bad values -------------------------------------------------------------

struct BadCase {
  std::string text;
  std::string message;  // after "config line 1: "
};

TEST(ConfigTextTest, EveryDirectiveRefusesBadValues) {
  const std::string mem_text =
      "must be a memory value (bytes, or a number with k, kb, m, mb, g or gb)";
  const std::vector<BadCase> cases = {
      {"port abc", "'port' must be an integer between 0 and 65535, got 'abc'"},
      {"port -1", "'port' must be an integer between 0 and 65535, got '-1'"},
      {"port 65536", "'port' must be an integer between 0 and 65535, got '65536'"},
      {"port 06379", "'port' must be an integer between 0 and 65535, got '06379'"},
      {"port +80", "'port' must be an integer between 0 and 65535, got '+80'"},
      {"port 99999999999999999999",
       "'port' must be an integer between 0 and 65535, got "
       "'99999999999999999999'"},
      {"port", "wrong number of arguments for 'port' (expects 1 value, got 0)"},
      {"port 1 2", "wrong number of arguments for 'port' (expects 1 value, got 2)"},
      {"bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
       "wrong number of arguments for 'bind' (expects 1 to 16 values, got 17)"},
      {"bind", "wrong number of arguments for 'bind' (expects 1 to 16 values, got 0)"},
      {"unixsocketperm 800",
       "'unixsocketperm' must be an octal number between 0 and 777, got '800'"},
      {"unixsocketperm 1000",
       "'unixsocketperm' must be an octal number between 0 and 777, got '1000'"},
      {"unixsocketperm -1", "'unixsocketperm' must be an octal number between 0 and 777, got '-1'"},
      {"unixsocketperm \"\"", "'unixsocketperm' must be an octal number between 0 and 777, got ''"},
      {"dir \"\"", "'dir' must not be empty, got ''"},
      {"dir a b", "wrong number of arguments for 'dir' (expects 1 value, got 2)"},
      {"requirepass", "wrong number of arguments for 'requirepass' (expects 1 value, got 0)"},
      {"protected-mode maybe", "'protected-mode' must be 'yes' or 'no', got 'maybe'"},
      {"protected-mode 1", "'protected-mode' must be 'yes' or 'no', got '1'"},
      {"appendfsync sometimes",
       "'appendfsync' must be one of everysec, always, no, got 'sometimes'"},
      {"maxclients 0", "'maxclients' must be an integer between 1 and 4294967295, got '0'"},
      {"maxclients 4294967296",
       "'maxclients' must be an integer between 1 and 4294967295, got '4294967296'"},
      {"timeout -1", "'timeout' must be an integer between 0 and 2147483647, got '-1'"},
      {"timeout 2147483648",
       "'timeout' must be an integer between 0 and 2147483647, got '2147483648'"},
      {"timeout 10s", "'timeout' must be an integer between 0 and 2147483647, got '10s'"},
      {"proto-max-bulk-len 1048575", "'proto-max-bulk-len' " + mem_text +
                                         " between 1048576 and 9223372036854775807 bytes, got "
                                         "'1048575'"},
      {"proto-max-bulk-len 512xb", "'proto-max-bulk-len' " + mem_text +
                                       " between 1048576 and 9223372036854775807 bytes, got "
                                       "'512xb'"},
      {"proto-max-bulk-len -1mb", "'proto-max-bulk-len' " + mem_text +
                                      " between 1048576 and 9223372036854775807 bytes, got "
                                      "'-1mb'"},
      {"client-query-buffer-limit 9223372036854775808",
       "'client-query-buffer-limit' " + mem_text +
           " between 1048576 and 9223372036854775807 bytes, got '9223372036854775808'"},
      {"client-query-buffer-limit 1.5gb",
       "'client-query-buffer-limit' " + mem_text +
           " between 1048576 and 9223372036854775807 bytes, got '1.5gb'"},
      {"lua-time-limit -1",
       "'lua-time-limit' must be an integer between 0 and 9223372036854775807, got '-1'"},
      {"lua-time-limit 5s",
       "'lua-time-limit' must be an integer between 0 and 9223372036854775807, got '5s'"},
      {"loglevel loud", "'loglevel' must be one of debug, verbose, notice, warning, got 'loud'"},
      {"loglevel nothing",
       "'loglevel' must be one of debug, verbose, notice, warning, got 'nothing'"},
      {"enable-debug-command always",
       "'enable-debug-command' must be one of no, yes, local, got 'always'"},
      {"client-output-buffer-limit normal 64mb 16mb",
       "'client-output-buffer-limit' must be '<class> <hard> <soft> <soft_seconds>' with class "
       "normal, replica or pubsub (memory values, seconds >= 0), got 'normal 64mb 16mb'"},
      {"client-output-buffer-limit master 256mb 64mb 60",
       "'client-output-buffer-limit' must be '<class> <hard> <soft> <soft_seconds>' with class "
       "normal, replica or pubsub (memory values, seconds >= 0), got 'master 256mb 64mb 60'"},
      {"client-output-buffer-limit normal 64mb 16mb -1",
       "'client-output-buffer-limit' must be '<class> <hard> <soft> <soft_seconds>' with class "
       "normal, replica or pubsub (memory values, seconds >= 0), got 'normal 64mb 16mb -1'"},
      {"client-output-buffer-limit normal 64zb 16mb 60",
       "'client-output-buffer-limit' must be '<class> <hard> <soft> <soft_seconds>' with class "
       "normal, replica or pubsub (memory values, seconds >= 0), got 'normal 64zb 16mb 60'"},
      {"client-output-buffer-limit",
       "wrong number of arguments for 'client-output-buffer-limit' "
       "(expects at least 1 value, got 0)"},
      {"tcp-keepalive -5", "'tcp-keepalive' must be an integer between 0 and 2147483647, got '-5'"},
      {"tcp-backlog x", "'tcp-backlog' must be an integer between 0 and 2147483647, got 'x'"},
      {"lua-memory-limit 64 mb",
       "wrong number of arguments for 'lua-memory-limit' (expects 1 "
       "value, got 2)"},
      {"lua-memory-limit 64tb",
       "'lua-memory-limit' " + mem_text + " between 0 and 9223372036854775807 bytes, got '64tb'"},
      {"record-cache-size -1mb",
       "'record-cache-size' " + mem_text + " between 0 and 9223372036854775807 bytes, got '-1mb'"},
      {"metrics-port 70000", "'metrics-port' must be an integer between 0 and 65535, got '70000'"},
      {"databases 0", "'databases' must be an integer between 1 and 128, got '0'"},
      {"databases 129", "'databases' must be an integer between 1 and 128, got '129'"},
      {"rocksdb-write-buffer-size 1023kb",
       "'rocksdb-write-buffer-size' " + mem_text + " between 1048576 and 1073741824 bytes, got "
       "'1023kb'"},
  };
  for (const BadCase& bc : cases) {
    Config config;
    const Status status = ApplyConfigText(bc.text, &config);
    ASSERT_FALSE(status.ok()) << "accepted: " << bc.text;
    EXPECT_EQ(status.message(), "config line 1: " + bc.message) << bc.text;
  }
}

// ---- Memory units (Redis's memtoull) ---------------------------------------------------------

TEST(ParseMemoryTest, Units) {
  struct Case {
    std::string_view text;
    uint64_t bytes;
  };
  const Case cases[] = {
      {"0", 0},
      {"100", 100},
      {"100b", 100},
      {"100B", 100},
      {"1k", 1000},
      {"1K", 1000},
      {"1kb", 1024},
      {"1KB", 1024},
      {"1kB", 1024},
      {"1m", 1000000},
      {"1mb", 1048576},
      {"1Mb", 1048576},
      {"1g", 1000000000},
      {"1gb", 1073741824},
      {"1GB", 1073741824},
      {"007", 7},
      {"18446744073709551615", 18446744073709551615ull},
      {"17179869183gb", 17179869183ull << 30},
      // As Redis's memtoull: no digits is 0, too many saturate, the unit wraps.
      {"", 0},
      {"mb", 0},
      {"18446744073709551616", 18446744073709551615ull},
      {"99999999999999999999999kb", 18446744073709550592ull},
  };
  for (const Case& c : cases) {
    const std::optional<uint64_t> value = ParseMemory(c.text);
    ASSERT_TRUE(value.has_value()) << c.text;
    EXPECT_EQ(*value, c.bytes) << c.text;
  }
}

TEST(ParseMemoryTest, RefusesGarbageAndSigns) {
  for (std::string_view bad : {"-1", "+1", " 1", "1 ", "1.5mb", "1t", "1tb", "1kbb", "1bb", "0x10",
                               "1 mb"}) {
    EXPECT_FALSE(ParseMemory(bad).has_value()) << "'" << bad << "'";
  }
}

// ---- sdssplitargs ----------------------------------------------------------------------------

TEST(SplitArgsTest, FollowsSdssplitargs) {
  EXPECT_EQ(SplitArgs(""), Words{});
  EXPECT_EQ(SplitArgs("   \t "), Words{});
  EXPECT_EQ(SplitArgs("a b\tc"), (Words{"a", "b", "c"}));
  EXPECT_EQ(SplitArgs("  a   b  "), (Words{"a", "b"}));
  EXPECT_EQ(SplitArgs("\"a b\" 'c d'"), (Words{"a b", "c d"}));
  EXPECT_EQ(SplitArgs("\"\""), (Words{""}));
  EXPECT_EQ(SplitArgs("''"), (Words{""}));
  EXPECT_EQ(SplitArgs("\"\\n\\r\\t\\b\\a\\\\\\\"\""), (Words{"\n\r\t\b\a\\\""}));
  EXPECT_EQ(SplitArgs("\"\\x41\\x7a\\xZZ\""), (Words{"AzxZZ"}));
  EXPECT_EQ(SplitArgs("'it\\'s'"), (Words{"it's"}));
  EXPECT_EQ(SplitArgs("'no \\n escapes'"), (Words{"no \\n escapes"}));
  EXPECT_EQ(SplitArgs("ab\"c d\""), (Words{"abc d"})) << "a quote may open mid-word";
}

TEST(SplitArgsTest, HexEscapesAndNulBytes) {
  const std::optional<Words> words = SplitArgs("\"\\x41\\x00\\xff\" x");
  ASSERT_TRUE(words.has_value());
  ASSERT_EQ(words->size(), 2u);
  EXPECT_EQ((*words)[0], std::string("A\0\xff", 3));
  // An incomplete \x escape is the letter x, as Redis.
  EXPECT_EQ(SplitArgs("\"\\xZ1\""), (Words{"xZ1"}));
}

TEST(SplitArgsTest, RefusesUnbalancedQuotes) {
  EXPECT_FALSE(SplitArgs("\"abc").has_value());
  EXPECT_FALSE(SplitArgs("'abc").has_value());
  EXPECT_FALSE(SplitArgs("\"abc\"def").has_value()) << "closing quote must be followed by a blank";
  EXPECT_FALSE(SplitArgs("'abc'def").has_value());
  EXPECT_FALSE(SplitArgs("\"abc\\\"").has_value()) << "an escaped quote does not close";
}

}  // namespace
}  // namespace sluice::server
