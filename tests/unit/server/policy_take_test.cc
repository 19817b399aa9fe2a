// RL.TAKE across several policies: all or nothing, the most restrictive reply, and state
// carried over when a policy changes (contract section 5).

#include "server/policy_take.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace sluice::server {
namespace {

constexpr int64_t kStartUs = 1700000000000LL * 1000;

PolicyDefinition Policy(std::string name, std::vector<std::string_view> words) {
  auto d = ParsePolicyDefinition(name, words);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return *d;
}

class PolicyTakeTest : public ::testing::Test {
 protected:
  // Takes `cost` from `policies` against `state_` at `now_us`, keeping the new state.
  LimiterOutcome Take(const std::vector<PolicyDefinition>& policies, int64_t cost,
                      int64_t now_us) {
    auto call = PolicyTakeCall::Make(policies, cost);
    EXPECT_TRUE(call.ok()) << call.status().message();
    auto outcome = (*call)->Decide(
        state_ ? std::optional<std::string_view>(*state_) : std::nullopt, now_us);
    EXPECT_TRUE(outcome.ok()) << outcome.status().message();
    if (outcome->write_state) state_ = outcome->state;
    return *outcome;
  }

  std::optional<std::string> state_;
};

TEST_F(PolicyTakeTest, SecondPolicyRefusingConsumesNothingFromTheFirst) {
  auto burst = Policy("burst", {"TOKENBUCKET", "10", "10", "1000"});
  auto minute = Policy("minute", {"FIXEDWINDOW", "2", "60000"});
  EXPECT_TRUE(Take({burst, minute}, 1, kStartUs).verdict.allowed);
  EXPECT_TRUE(Take({burst, minute}, 1, kStartUs).verdict.allowed);
  LimiterOutcome refused = Take({burst, minute}, 1, kStartUs);
  EXPECT_FALSE(refused.verdict.allowed);
  EXPECT_FALSE(refused.write_state);
  EXPECT_EQ(refused.verdict.limit, 2) << "the refusing policy's reply";
  EXPECT_EQ(refused.verdict.retry_after_ms, 60000);
  // The token bucket still holds 8: only the two allowed requests were taken from it.
  LimiterOutcome peek = Take({burst}, 0, kStartUs);
  EXPECT_EQ(peek.verdict.remaining, 8);
}

TEST_F(PolicyTakeTest, ThreePoliciesReplyTheLargestRetryAmongRefusals) {
  auto a = Policy("a", {"FIXEDWINDOW", "1", "1000"});
  auto b = Policy("b", {"FIXEDWINDOW", "1", "5000"});
  auto c = Policy("c", {"TOKENBUCKET", "100", "1", "1000"});
  EXPECT_TRUE(Take({a, b, c}, 1, kStartUs).verdict.allowed);
  LimiterOutcome refused = Take({a, b, c}, 1, kStartUs + 100 * 1000);
  EXPECT_FALSE(refused.verdict.allowed);
  EXPECT_EQ(refused.verdict.retry_after_ms, 4900) << "b's retry, larger than a's 900";
}

TEST_F(PolicyTakeTest, AllowedReplyIsThePolicyWithLeastRemaining) {
  auto wide = Policy("wide", {"FIXEDWINDOW", "100", "1000"});
  auto narrow = Policy("narrow", {"FIXEDWINDOW", "5", "1000"});
  LimiterOutcome o = Take({wide, narrow}, 1, kStartUs);
  EXPECT_TRUE(o.verdict.allowed);
  EXPECT_EQ(o.verdict.limit, 5);
  EXPECT_EQ(o.verdict.remaining, 4);
}

TEST_F(PolicyTakeTest, CostAboveOneLimitIsNeverAllowed) {
  auto small = Policy("small", {"FIXEDWINDOW", "3", "1000"});
  auto big = Policy("big", {"FIXEDWINDOW", "100", "1000"});
  LimiterOutcome o = Take({big, small}, 4, kStartUs);
  EXPECT_FALSE(o.verdict.allowed);
  EXPECT_EQ(o.verdict.retry_after_ms, -1);
  EXPECT_FALSE(state_.has_value()) << "a refused request never creates a key";
}

TEST_F(PolicyTakeTest, ChangedBucketPolicyKeepsTheConsumedFraction) {
  auto before = Policy("p", {"TOKENBUCKET", "10", "1", "1000000"});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Take({before}, 1, kStartUs).verdict.allowed);
  auto after = Policy("p", {"TOKENBUCKET", "100", "1", "1000000"});
  LimiterOutcome peek = Take({after}, 0, kStartUs);
  EXPECT_EQ(peek.verdict.limit, 100);
  EXPECT_EQ(peek.verdict.remaining, 50) << "half consumed before, half consumed after";
}

TEST_F(PolicyTakeTest, ChangedWindowPolicyKeepsCountedUnits) {
  auto before = Policy("w", {"FIXEDWINDOW", "10", "60000"});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Take({before}, 1, kStartUs).verdict.allowed);
  auto after = Policy("w", {"FIXEDWINDOW", "5", "60000"});
  LimiterOutcome o = Take({after}, 1, kStartUs);
  EXPECT_TRUE(o.verdict.allowed);
  EXPECT_EQ(o.verdict.remaining, 0) << "4 counted + 1 under the new limit of 5";
  EXPECT_FALSE(Take({after}, 1, kStartUs).verdict.allowed);
}

TEST_F(PolicyTakeTest, StatesOfOtherPoliciesUnderTheKeyAreKept) {
  auto a = Policy("a", {"FIXEDWINDOW", "2", "1000"});
  auto b = Policy("b", {"FIXEDWINDOW", "2", "1000"});
  EXPECT_TRUE(Take({a}, 1, kStartUs).verdict.allowed);
  EXPECT_TRUE(Take({b}, 2, kStartUs).verdict.allowed);
  EXPECT_EQ(Take({a}, 0, kStartUs).verdict.remaining, 1);
  auto states = PolicyStates::Decode(*state_);
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(states->entries.size(), 2u);
}

TEST_F(PolicyTakeTest, ExpiredPolicyStatesAreDropped) {
  auto a = Policy("a", {"FIXEDWINDOW", "1", "1000"});
  EXPECT_TRUE(Take({a}, 1, kStartUs).verdict.allowed);
  EXPECT_FALSE(Take({a}, 1, kStartUs + 999 * 1000).verdict.allowed);
  EXPECT_TRUE(Take({a}, 1, kStartUs + 1001 * 1000).verdict.allowed);
}

TEST(PolicyStatesTest, EncodingRoundTripsAndRejectsOtherStates) {
  PolicyStates states;
  states.Put({"p1", "FIXEDWINDOW 1 1000", 123, std::string("\x01\x01\x02", 3)});
  states.Put({"p2", "GCRA 1 1 1000", 456, "xyz"});
  auto decoded = PolicyStates::Decode(states.Encode());
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->entries.size(), 2u);
  EXPECT_EQ(decoded->entries[1].policy, "p2");
  EXPECT_EQ(decoded->entries[1].expire_at_ms, 456);
  EXPECT_EQ(decoded->ExpireAtMs(), 456);

  auto call = MakeLimiterCall(algorithms::AlgorithmTag::kFixedWindow,
                              std::vector<std::string_view>{"1", "1000"}, 1);
  ASSERT_TRUE(call.ok());
  auto plain = (*call)->Decide(std::nullopt, kStartUs);
  ASSERT_TRUE(plain.ok());
  auto wrong = PolicyStates::Decode(plain->state);
  EXPECT_EQ(wrong.status().code(), Code::kWrongType);
}

TEST(PolicyDefinitionTest, BadDefinitionsAreRefusedWithClearErrors) {
  std::vector<std::string_view> unknown = {"FOO", "1"};
  EXPECT_NE(ParsePolicyDefinition("p", unknown).status().message().find("unknown algorithm"),
            std::string::npos);
  std::vector<std::string_view> smooth = {"SMOOTH", "1"};
  EXPECT_FALSE(ParsePolicyDefinition("p", smooth).ok());
  std::vector<std::string_view> bad_number = {"TOKENBUCKET", "0", "1", "1"};
  EXPECT_EQ(ParsePolicyDefinition("p", bad_number).status().message(),
            "capacity must be a positive integer");
  std::vector<std::string_view> missing = {"TOKENBUCKET", "1", "1"};
  EXPECT_FALSE(ParsePolicyDefinition("p", missing).ok());
  auto ok = ParseCanonicalPolicy("p", "GCRA 5 10 1000");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->Canonical(), "GCRA 5 10 1000");
}

}  // namespace
}  // namespace sluice::server
