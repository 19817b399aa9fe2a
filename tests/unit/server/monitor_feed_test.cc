// MONITOR's lines: Redis's format, quoting and redaction, and who receives them.

#include "server/monitor_feed.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/pubsub.h"

namespace sluice::server {
namespace {

using Args = std::vector<std::string_view>;

class LineSink : public PushSink {
 public:
  void DeliverMessage(const PubSubMessage&) override {}
  void DeliverMonitorLine(std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

TEST(MonitorLineTest, SecondsMicrosOriginAndQuotedArguments) {
  const Args args = {"SET", "k", "two words"};
  EXPECT_EQ(MonitorLine(1'700'000'000'000'042, 0, "127.0.0.1:5000", args),
            R"L(1700000000.000042 [0 127.0.0.1:5000] "SET" "k" "two words")L");
  EXPECT_EQ(MonitorLine(1'700'000'000'000'042, 12, "lua", args),
            R"L(1700000000.000042 [12 lua] "SET" "k" "two words")L");
}

TEST(MonitorLineTest, PasswordsAreRedacted) {
  EXPECT_EQ(MonitorLine(0, 0, "c", Args{"auth", "secret"}), R"L(0.000000 [0 c] "auth" "(redacted)")L");
  EXPECT_EQ(MonitorLine(0, 0, "c", Args{"AUTH", "user", "secret"}),
            R"L(0.000000 [0 c] "AUTH" "(redacted)" "(redacted)")L");
  EXPECT_EQ(MonitorLine(0, 0, "c", Args{"HELLO", "3", "SETNAME", "n", "Auth", "u", "p"}),
            R"L(0.000000 [0 c] "HELLO" "3" "SETNAME" "n" "Auth" "(redacted)" "(redacted)")L");
  EXPECT_EQ(MonitorLine(0, 0, "c", Args{"HELLO", "3", "SETNAME", "auth"}),
            R"L(0.000000 [0 c] "HELLO" "3" "SETNAME" "auth")L");
  EXPECT_EQ(MonitorLine(0, 0, "c", Args{"GET", "auth"}), R"L(0.000000 [0 c] "GET" "auth")L");
}

TEST(MonitorFeedTest, EveryMonitorGetsTheLineUntilRemoved) {
  LineSink first_sink, second_sink;
  Client first, second, from;
  first.push_sink = &first_sink;
  second.push_sink = &second_sink;
  from.addr = "10.0.0.1:7";
  MonitorFeed feed;
  EXPECT_TRUE(feed.empty());
  feed.Add(&first);
  feed.Add(&second);
  feed.Add(&first);  // twice is once
  feed.Feed(from, false, Args{"PING"}, 1'000'000);
  feed.Remove(&first);
  feed.Feed(from, true, Args{"GET", "k"}, 2'000'000);
  EXPECT_EQ(first_sink.lines, std::vector<std::string>{R"L(1.000000 [0 10.0.0.1:7] "PING")L"});
  EXPECT_EQ(second_sink.lines, (std::vector<std::string>{R"L(1.000000 [0 10.0.0.1:7] "PING")L",
                                                         R"L(2.000000 [0 lua] "GET" "k")L"}));
  feed.Remove(&second);
  EXPECT_TRUE(feed.empty());
}

TEST(MonitorFeedTest, AUnixSocketClientShowsAsTheSocketPath) {
  LineSink sink;
  Client monitor, from;
  monitor.push_sink = &sink;
  from.is_unix = true;
  from.addr = "/run/sluice.sock:0";
  MonitorFeed feed;
  feed.Add(&monitor);
  feed.Feed(from, false, Args{"PING"}, 0);
  EXPECT_EQ(sink.lines, std::vector<std::string>{R"L(0.000000 [0 unix:/run/sluice.sock] "PING")L"});
}

}  // namespace
}  // namespace sluice::server
