// The slow log's rules, as Redis 7.0's slowlog.c: the threshold, the length bound, what an
// entry keeps of long commands, and which arguments it hides.

#include "server/slow_log.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

using Args = std::vector<std::string_view>;

SlowCall CallTaking(int64_t duration_us, std::string_view command = "get") {
  return SlowCall{command, duration_us, 1'700'000'000, "127.0.0.1:5000", "worker"};
}

std::vector<std::string> LoggedArgs(const SlowLog& log) { return log.entries().front().args; }

TEST(SlowLog, KeepsCallsAtOrAboveTheThresholdNewestFirst) {
  SlowLog log;
  log.MaybePush(Args{"get", "fast"}, CallTaking(9), 10, 128);
  log.MaybePush(Args{"get", "a"}, CallTaking(10), 10, 128);
  log.MaybePush(Args{"get", "b"}, CallTaking(250), 10, 128);
  ASSERT_EQ(log.size(), 2u);
  const SlowLogEntry& newest = log.entries().front();
  EXPECT_EQ(newest.id, 1);
  EXPECT_EQ(newest.duration_us, 250);
  EXPECT_EQ(newest.unix_seconds, 1'700'000'000);
  EXPECT_EQ(newest.args, (std::vector<std::string>{"get", "b"}));
  EXPECT_EQ(newest.peer, "127.0.0.1:5000");
  EXPECT_EQ(newest.client_name, "worker");
  EXPECT_EQ(log.entries().back().id, 0);
}

TEST(SlowLog, NegativeThresholdLogsNothingAndZeroLogsEverything) {
  SlowLog log;
  log.MaybePush(Args{"ping"}, CallTaking(1'000'000), -1, 128);
  EXPECT_EQ(log.size(), 0u);
  log.MaybePush(Args{"ping"}, CallTaking(0), 0, 128);
  EXPECT_EQ(log.size(), 1u);
}

TEST(SlowLog, DropsTheOldestBeyondMaxLenOnTheNextCall) {
  SlowLog log;
  for (int i = 0; i < 5; ++i) log.MaybePush(Args{"ping"}, CallTaking(5), 0, 128);
  log.MaybePush(Args{"ping"}, CallTaking(5), -1, 2);  // off: the log stays as it is
  EXPECT_EQ(log.size(), 5u);
  log.MaybePush(Args{"ping"}, CallTaking(1), 10, 2);  // not slow, but the bound applies
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log.entries().front().id, 4);
  EXPECT_EQ(log.entries().back().id, 3);
  log.MaybePush(Args{"ping"}, CallTaking(5), 0, 0);  // max_len 0 empties it, as Redis 7.0
  EXPECT_EQ(log.size(), 0u);
}

TEST(SlowLog, IdsGoOnAfterReset) {
  SlowLog log;
  log.MaybePush(Args{"ping"}, CallTaking(5), 0, 128);
  log.MaybePush(Args{"ping"}, CallTaking(5), 0, 128);
  log.Reset();
  EXPECT_EQ(log.size(), 0u);
  log.MaybePush(Args{"ping"}, CallTaking(5), 0, 128);
  EXPECT_EQ(log.entries().front().id, 2);
}

TEST(SlowLog, KeepsThirtyTwoArgumentsTheLastSayingHowManyMore) {
  std::vector<std::string> owned;
  for (int i = 0; i < 40; ++i) owned.push_back("k" + std::to_string(i));
  Args args{"del"};
  for (const std::string& each : owned) args.push_back(each);  // 41 arguments in all
  SlowLog log;
  log.MaybePush(args, CallTaking(5, "del"), 0, 128);
  const std::vector<std::string> logged = LoggedArgs(log);
  ASSERT_EQ(logged.size(), SlowLog::kMaxArgs);
  EXPECT_EQ(logged[30], "k29");
  EXPECT_EQ(logged[31], "... (10 more arguments)");

  Args exactly_32(args.begin(), args.begin() + 32);
  log.MaybePush(exactly_32, CallTaking(5, "del"), 0, 128);
  EXPECT_EQ(LoggedArgs(log).back(), "k30");
}

TEST(SlowLog, CutsLongArgumentsAt128Bytes) {
  const std::string long_value(200, 'v');
  const std::string just_fits(128, 'f');
  SlowLog log;
  log.MaybePush(Args{"set", just_fits, long_value}, CallTaking(5, "set"), 0, 128);
  const std::vector<std::string> logged = LoggedArgs(log);
  EXPECT_EQ(logged[1], just_fits);
  EXPECT_EQ(logged[2], std::string(128, 'v') + "... (72 more bytes)");
}

TEST(SlowLog, HidesPasswords) {
  SlowLog log;
  log.MaybePush(Args{"AUTH", "user", "secret"}, CallTaking(5, "auth"), 0, 128);
  EXPECT_EQ(LoggedArgs(log), (std::vector<std::string>{"AUTH", "(redacted)", "(redacted)"}));

  log.MaybePush(Args{"hello", "3", "SETNAME", "auth", "AUTH", "default", "pw"},
                CallTaking(5, "hello"), 0, 128);
  EXPECT_EQ(LoggedArgs(log), (std::vector<std::string>{"hello", "3", "SETNAME", "auth", "AUTH",
                                                       "(redacted)", "(redacted)"}));

  log.MaybePush(Args{"config", "set", "timeout", "5", "REQUIREPASS", "pw"}, CallTaking(5, "config"),
                0, 128);
  EXPECT_EQ(LoggedArgs(log), (std::vector<std::string>{"config", "set", "timeout", "5",
                                                       "REQUIREPASS", "(redacted)"}));
  // ACL SETUSER: the user and its rules, as Redis 7.0.
  log.MaybePush(Args{"ACL", "SETUSER", "u", "on", ">pw"}, CallTaking(5, "acl"), 0, 128);
  EXPECT_EQ(LoggedArgs(log), (std::vector<std::string>{"ACL", "SETUSER", "(redacted)",
                                                       "(redacted)", "(redacted)"}));
  EXPECT_FALSE(IsRedactedArgument("acl", Args{"acl", "getuser", "u"}, 2));
  // CONFIG GET requirepass names the parameter; there is nothing to hide.
  EXPECT_FALSE(IsRedactedArgument("config", Args{"config", "get", "requirepass"}, 2));
}

TEST(SlowLog, AScriptsCallsShowNoClient) {
  SlowLog log;
  SlowCall call = CallTaking(5, "set");
  call.from_script = true;
  log.MaybePush(Args{"set", "k", "v"}, call, 0, 128);
  EXPECT_EQ(log.entries().front().peer, "?:0");
  EXPECT_EQ(log.entries().front().client_name, "");
}

}  // namespace
}  // namespace sluice::server
