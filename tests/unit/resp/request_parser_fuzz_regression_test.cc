// Inputs found by tests/fuzz (resp_parser_fuzz), kept as regression tests: each is fed whole
// and split at every byte, as the fuzz target does, and the outcome is pinned.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "parser_harness.h"
#include "resp/request_parser.h"

namespace sluice::resp {
namespace {

using harness::Feed;

// resp_parser_fuzz-crash-a0c77753: an unauthenticated client sends inline requests with more
// than 10 arguments. Redis limits only multibulk requests before AUTH (an inline line is bounded
// by its 64 KB), so they are parsed; the target's own check was too strict, and was fixed.
TEST(ParserFuzzRegressionTest, UnauthenticatedInlineWithManyArguments) {
  const std::string stream(
      "\x0a\x32\x20\x00\x16\x5b\x32\x20\xc6\x20\x20\x20\xe0\xdf\x9e\xce\xdb\x20\x20\x20\x30\x20\x20"
      "\xc6\x27\x20\x20\xe0\xdf\x9e\xce\xdb\x20\x20\x20\x30\x20\x20\x20\xe0\xdf\x20\xdf\x9e\xce\xdb"
      "\x20\x20\x20\x30\x20\x20\xc6\x27\x20\x20\xe0\xdf\x9e\xce\xdb\x20\x20\x20"
      "\x30\x20\x20\x20\xe0\xdf\x20\x20\xc6\x9e\xce\xdb\xc8\xff\x20\xc6\x9e\xce\xdb\xc8\xff\xde\x0d"
      "\x0a\x76\x0d\x47\x1d\x0a",
      93);
  const bool kUnauth = false;
  harness::Outcome whole = Feed(stream, {}, {}, kUnauth);
  EXPECT_TRUE(whole.error.empty()) << whole.error;
  ASSERT_FALSE(whole.commands.empty());
  size_t most_args = 0;
  for (const auto& command : whole.commands) most_args = std::max(most_args, command.size());
  EXPECT_GT(most_args, 10u);
  for (size_t cut = 1; cut < stream.size(); ++cut) {
    EXPECT_EQ(Feed(stream, {cut}, {}, kUnauth), whole) << "split at " << cut;
  }
}

}  // namespace
}  // namespace sluice::resp
