// MakeLimiterCall remembers the last parameters each algorithm accepted: a call must still
// decide with exactly the parameters it was given, whatever came before it.

#include "server/limiter_call.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {
namespace {

using algorithms::AlgorithmTag;

// The limit a fresh key reports under `words`, or the error's message.
std::string FreshLimit(AlgorithmTag tag, const std::vector<std::string>& words) {
  std::vector<std::string_view> args(words.begin(), words.end());
  auto call = MakeLimiterCall(tag, args, 1);
  if (!call.ok()) return "error: " + std::string(call.status().message());
  auto outcome = (*call)->Decide(std::nullopt, 1'000'000);
  if (!outcome.ok()) return "error: " + std::string(outcome.status().message());
  return std::to_string(outcome->verdict.limit);
}

TEST(LimiterCallTest, AlternatingParametersEachDecideWithTheirOwn) {
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, {"10", "1000"}), "10");
    EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, {"20", "1000"}), "20");
    EXPECT_EQ(FreshLimit(AlgorithmTag::kTokenBucket, {"7", "1", "1000"}), "7");
    EXPECT_EQ(FreshLimit(AlgorithmTag::kTokenBucket, {"8", "3", "1000"}), "8");
  }
}

TEST(LimiterCallTest, SameBytesSplitDifferentlyAreDifferentParameters) {
  EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, {"1", "23"}), "1");
  EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, {"12", "3"}), "12");
  EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, {"1", "23"}), "1");
}

TEST(LimiterCallTest, RejectedParametersAfterAcceptedOnesAreStillRejected) {
  EXPECT_EQ(FreshLimit(AlgorithmTag::kGcra, {"5", "10", "1000"}), "6");
  EXPECT_TRUE(FreshLimit(AlgorithmTag::kGcra, {"5", "0", "1000"}).starts_with("error: "));
  EXPECT_TRUE(FreshLimit(AlgorithmTag::kGcra, {"5", "10"}).starts_with("error: "));
  EXPECT_EQ(FreshLimit(AlgorithmTag::kGcra, {"5", "10", "1000"}), "6");
}

TEST(LimiterCallTest, ReusedArgumentBuffersAreReadAgain) {
  // Requests are parsed into a reused input buffer: the same memory holds other digits next.
  std::vector<std::string> words = {"30", "1000"};
  EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, words), "30");
  words[0][0] = '4';
  EXPECT_EQ(FreshLimit(AlgorithmTag::kFixedWindow, words), "40");
}

}  // namespace
}  // namespace sluice::server
