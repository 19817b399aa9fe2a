// The paced load generator's reply scanner: where each RESP2 reply ends, at every split.

#include "bench/paced/reply_scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sluice::bench {
namespace {

struct Case {
  std::string_view name;
  std::string_view bytes;
  bool error;
};

constexpr Case kReplies[] = {
    {"simple", "+OK\r\n", false},
    {"error", "-ERR unknown command 'FOO'\r\n", true},
    {"integer", ":-42\r\n", false},
    {"bulk", "$5\r\nhello\r\n", false},
    {"empty bulk", "$0\r\n\r\n", false},
    {"bulk holding CRLF", "$4\r\n\r\n\r\n\r\n", false},
    {"nil bulk", "$-1\r\n", false},
    {"nil array", "*-1\r\n", false},
    {"empty array", "*0\r\n", false},
    {"limiter reply", "*5\r\n:1\r\n:10\r\n:9\r\n:-1\r\n:200\r\n", false},
    {"nested", "*3\r\n*2\r\n$1\r\na\r\n*0\r\n$-1\r\n*1\r\n*1\r\n+x\r\n", false},
    {"error in array", "*2\r\n-ERR inner\r\n:1\r\n", false},  // only a top-level error counts
};

TEST(ReplyScanner, FindsTheEndOfEachReply) {
  for (const Case& c : kReplies) {
    ScanResult r = ScanReply(c.bytes);
    EXPECT_EQ(r.status, ScanStatus::kComplete) << c.name;
    EXPECT_EQ(r.length, c.bytes.size()) << c.name;
    EXPECT_EQ(r.error, c.error) << c.name;
  }
}

TEST(ReplyScanner, EveryProperPrefixNeedsMore) {
  for (const Case& c : kReplies) {
    for (size_t n = 0; n < c.bytes.size(); ++n) {
      EXPECT_EQ(ScanReply(c.bytes.substr(0, n)).status, ScanStatus::kNeedMore)
          << c.name << " cut at " << n;
    }
  }
}

TEST(ReplyScanner, StopsAtTheFirstOfSeveralReplies) {
  // Pipelined replies arrive back to back; each scan takes exactly one.
  std::string stream;
  for (const Case& c : kReplies) stream += c.bytes;
  std::string_view rest = stream;
  for (const Case& c : kReplies) {
    ScanResult r = ScanReply(rest);
    ASSERT_EQ(r.status, ScanStatus::kComplete) << c.name;
    EXPECT_EQ(r.length, c.bytes.size()) << c.name;
    EXPECT_EQ(r.error, c.error) << c.name;
    rest.remove_prefix(r.length);
  }
  EXPECT_TRUE(rest.empty());
}

TEST(ReplyScanner, RejectsWhatIsNotRespTwo) {
  for (std::string_view bad : {"?x\r\n", "\r\n", "$abc\r\n", "$-2\r\n", "*-5\r\n", "$3\r\nabcd\r\n",
                               "*1\r\n%1\r\n", "$\r\n"}) {
    EXPECT_EQ(ScanReply(bad).status, ScanStatus::kBad) << bad;
  }
}

}  // namespace
}  // namespace sluice::bench
