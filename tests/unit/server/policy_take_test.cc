// RL.TAKE across several policies: all or nothing, the most restrictive reply, and state
// carried over when a policy changes (contract section 5).

#include "server/policy_take.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/checked.h"
#include "algorithms/sliding_log.h"

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
  // Defines (or redefines) the policy at `now_us`, as RL.POLICY SET does.
  void Define(const PolicyDefinition& policy, int64_t now_us) {
    ASSERT_TRUE(registry_.Set(policy, now_us).ok());
  }

  // Takes `cost` from `policies` against `state_` at `now_us`, keeping the new state. A
  // policy whose definition differs from the registry's is redefined at `now_us` first.
  LimiterOutcome Take(const std::vector<PolicyDefinition>& policies, int64_t cost,
                      int64_t now_us) {
    std::vector<std::string_view> names;
    for (const PolicyDefinition& p : policies) {
      const PolicyRegistry::Entry* known = registry_.Find(p.name);
      if (known == nullptr || !(known->definition == p)) Define(p, now_us);
      names.push_back(p.name);
    }
    auto call = PolicyTakeCall::Make(registry_, names, cost);
    EXPECT_TRUE(call.ok()) << call.status().message();
    auto outcome = (*call)->Decide(
        state_ ? std::optional<std::string_view>(*state_) : std::nullopt, now_us);
    EXPECT_TRUE(outcome.ok()) << outcome.status().message();
    if (outcome->write_state) state_ = outcome->state;
    return *outcome;
  }

  PolicyRegistry registry_;
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

// A refusal writes no state but says when the key's states are fresh, so that a key an EXPIRE
// shortened gets its expiry back from the next call (StageLimiterOutcome), as a refusal of
// RL.FIXEDWINDOW gives it back; until session 52 an RL.TAKE refusal left the shortened expiry
// and the key vanished with its states.
TEST_F(PolicyTakeTest, ARefusalCarriesTheKeysExpiry) {
  auto minute = Policy("minute", {"FIXEDWINDOW", "1", "60000"});
  LimiterOutcome allowed = Take({minute}, 1, kStartUs);
  ASSERT_TRUE(allowed.verdict.allowed);
  LimiterOutcome refused = Take({minute}, 1, kStartUs + 1000);
  EXPECT_FALSE(refused.verdict.allowed);
  EXPECT_FALSE(refused.write_state);
  EXPECT_EQ(refused.expire_at_ms, allowed.expire_at_ms);
  EXPECT_GT(refused.expire_at_ms, kStartUs / 1000 + 1000);
}

// A refusal counts nothing, but a sliding log that read many entries which left the window
// is stored without them (else every refusal reads them again). The other states stay as
// stored: a deleted policy's too (only a counting write drops it), and a state written under
// a definition since changed is not carried over by a refusal.
TEST_F(PolicyTakeTest, ARefusalStoresAPrunedLogAndKeepsTheOtherStatesAsStored) {
  auto log = Policy("log", {"SLIDINGLOG", "1000", "1000"});
  auto cap = Policy("cap", {"FIXEDWINDOW", "100", "100000"});
  auto gone = Policy("gone", {"FIXEDWINDOW", "10", "100000"});
  ASSERT_TRUE(Take({gone}, 1, kStartUs).verdict.allowed);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(Take({log, cap}, 1, kStartUs + i * 1000).verdict.allowed);
  }
  ASSERT_TRUE(registry_.Delete("gone"));
  auto entries_of = [](const std::string& bytes, std::string_view policy) -> int64_t {
    auto states = PolicyStates::Decode(bytes);
    EXPECT_TRUE(states.ok());
    for (const PolicyStates::Entry& e : states->entries) {
      if (e.policy != policy) continue;
      if (policy != "log") return 1;
      return static_cast<int64_t>(algorithms::SlidingLogState::Decode(e.state)->entries.size());
    }
    return 0;
  };
  // At 1,070 ms the window holds the entries from 71 ms on: 71 left it, 29 stay.
  const std::string stored = *state_;
  LimiterOutcome refused = Take({log, cap}, 1, kStartUs + 1070 * 1000);
  EXPECT_FALSE(refused.verdict.allowed);
  EXPECT_FALSE(refused.write_state);
  ASSERT_FALSE(refused.pruned_state.empty());
  EXPECT_EQ(entries_of(stored, "log"), 100);
  EXPECT_EQ(entries_of(refused.pruned_state, "log"), 29);
  EXPECT_EQ(entries_of(refused.pruned_state, "cap"), 1);
  EXPECT_EQ(entries_of(refused.pruned_state, "gone"), 1) << "kept until a counting write";
  // Under a changed definition the refusal leaves the log as it was written.
  auto shorter = Policy("log", {"SLIDINGLOG", "1000", "900"});
  LimiterOutcome after_change = Take({shorter, cap}, 1, kStartUs + 1071 * 1000);
  EXPECT_FALSE(after_change.verdict.allowed);
  EXPECT_TRUE(after_change.pruned_state.empty());
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

constexpr int64_t kSecondUs = 1000 * 1000;

TEST_F(PolicyTakeTest, ChangeIsCarriedOverAtTheMomentItWasMade) {
  auto fast = Policy("p", {"TOKENBUCKET", "10", "1", "1000"});  // one token a second
  EXPECT_TRUE(Take({fast}, 10, kStartUs).verdict.allowed);
  // Five seconds later five tokens are back; then the policy slows to one per 10 s.
  auto slow = Policy("p", {"TOKENBUCKET", "10", "1", "10000"});
  Define(slow, kStartUs + 5 * kSecondUs);
  // Ten seconds after the change: 5 missing at the change, 1 refilled since. Carried over at
  // this call instead, the old rate would have refilled the bucket completely.
  LimiterOutcome peek = Take({slow}, 0, kStartUs + 15 * kSecondUs);
  EXPECT_EQ(peek.verdict.remaining, 6);
  EXPECT_FALSE(Take({slow}, 7, kStartUs + 15 * kSecondUs).verdict.allowed);
  EXPECT_TRUE(Take({slow}, 6, kStartUs + 15 * kSecondUs).verdict.allowed);
}

TEST_F(PolicyTakeTest, LengthenedPolicyKeepsTheStatePastItsOldExpiry) {
  auto fast = Policy("p", {"TOKENBUCKET", "4", "1", "1000"});
  EXPECT_TRUE(Take({fast}, 4, kStartUs).verdict.allowed);  // fresh again at +4 s as it was
  auto slow = Policy("p", {"TOKENBUCKET", "4", "1", "10000"});
  Define(slow, kStartUs);
  ASSERT_TRUE(registry_.hold().has_value());
  EXPECT_EQ(registry_.hold()->from_ms, kStartUs / 1000);
  EXPECT_EQ(registry_.hold()->until_ms, kStartUs / 1000 + 40000) << "the slow refill's 40 s";
  LimiterOutcome peek = Take({slow}, 0, kStartUs + 5 * kSecondUs);
  EXPECT_EQ(peek.verdict.remaining, 0) << "half a token after 5 s";
  EXPECT_EQ(peek.verdict.reset_after_ms, 35000);
  EXPECT_FALSE(Take({slow}, 1, kStartUs + 9 * kSecondUs).verdict.allowed);
  EXPECT_TRUE(Take({slow}, 1, kStartUs + 10 * kSecondUs).verdict.allowed);
}

TEST_F(PolicyTakeTest, EveryChangeSinceTheStateWasWrittenIsReplayed) {
  EXPECT_TRUE(
      Take({Policy("p", {"TOKENBUCKET", "10", "10", "1000"})}, 10, kStartUs).verdict.allowed);
  // At +0.5 s five are back; from then one a second: at +1.5 s six are back; from then one
  // per ten seconds: at +11.5 s seven are back.
  Define(Policy("p", {"TOKENBUCKET", "10", "1", "1000"}), kStartUs + kSecondUs / 2);
  auto slowest = Policy("p", {"TOKENBUCKET", "10", "1", "10000"});
  Define(slowest, kStartUs + 3 * kSecondUs / 2);
  EXPECT_EQ(Take({slowest}, 0, kStartUs + 23 * kSecondUs / 2).verdict.remaining, 7);
}

TEST_F(PolicyTakeTest, StateOfAnotherChangedPolicyIsKeptWhileHeld) {
  auto a = Policy("a", {"FIXEDWINDOW", "5", "1000"});
  auto b = Policy("b", {"FIXEDWINDOW", "5", "1000"});
  EXPECT_TRUE(Take({a}, 3, kStartUs).verdict.allowed);
  Define(Policy("a", {"FIXEDWINDOW", "5", "10000"}), kStartUs);  // a's window now 10 s
  // A take from b alone at +2 s rewrites the key: a's state, expired as it was written, stays.
  EXPECT_TRUE(Take({b}, 1, kStartUs + 2 * kSecondUs).verdict.allowed);
  auto states = PolicyStates::Decode(*state_);
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(states->entries.size(), 2u);
  EXPECT_EQ(Take({registry_.Find("a")->definition}, 0, kStartUs + 2 * kSecondUs).verdict.remaining,
            2);
}

TEST_F(PolicyTakeTest, RefreshedFollowsTheRegistry) {
  auto p = Policy("p", {"FIXEDWINDOW", "5", "1000"});
  Define(p, kStartUs);
  std::vector<std::string_view> names = {"p"};
  auto call = PolicyTakeCall::Make(registry_, names, 1);
  ASSERT_TRUE(call.ok());
  auto same = (*call)->Refreshed(registry_);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, nullptr) << "nothing changed";
  Define(Policy("p", {"FIXEDWINDOW", "1", "1000"}), kStartUs);
  auto changed = (*call)->Refreshed(registry_);
  ASSERT_TRUE(changed.ok());
  ASSERT_NE(*changed, nullptr);
  EXPECT_EQ((*changed)->Decide(std::nullopt, kStartUs)->verdict.limit, 1);
  registry_.Delete("p");
  EXPECT_EQ((*call)->Refreshed(registry_).status().message(), "unknown policy 'p'");
}

TEST(PolicyRegistryTest, ChangesSettleAndAreForgotten) {
  PolicyRegistry registry;
  auto define = [&](std::vector<std::string_view> words, int64_t now_us) {
    auto d = ParsePolicyDefinition("p", words);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(registry.Set(*d, now_us).ok());
  };
  define({"FIXEDWINDOW", "5", "1000"}, kStartUs);
  EXPECT_FALSE(registry.hold().has_value()) << "a first definition changes nothing";
  define({"FIXEDWINDOW", "5", "1000"}, kStartUs);
  EXPECT_FALSE(registry.hold().has_value()) << "nor does the same one again";
  define({"FIXEDWINDOW", "5", "60000"}, kStartUs + kSecondUs);
  define({"SLIDINGWINDOW", "5", "2000"}, kStartUs + 2 * kSecondUs);
  const int64_t start_ms = kStartUs / 1000;
  ASSERT_TRUE(registry.hold().has_value());
  EXPECT_EQ(registry.hold()->from_ms, start_ms + 1000);
  EXPECT_EQ(registry.hold()->until_ms, start_ms + 2000 + 60000) << "the 60 s window";
  const PolicyChangeHold& held = *registry.change_hold();
  EXPECT_TRUE(held.KeepsState("p", start_ms + 1000, start_ms + 62000));
  EXPECT_FALSE(held.KeepsState("p", start_ms + 999, start_ms + 5000)) << "expired before";
  EXPECT_FALSE(held.KeepsState("p", start_ms + 1000, start_ms + 62001)) << "settled";
  EXPECT_FALSE(held.KeepsState("q", start_ms + 1000, start_ms + 5000)) << "another policy";
  ASSERT_EQ(registry.Find("p")->changes.size(), 2u);
  EXPECT_EQ(registry.Find("p")->changes[1].replaced, "FIXEDWINDOW 5 60000");
  EXPECT_TRUE(registry.ForgetSettledChanges(start_ms + 62000).empty());
  EXPECT_EQ(registry.ForgetSettledChanges(start_ms + 62001), std::vector<std::string>{"p"});
  EXPECT_TRUE(registry.Find("p")->changes.empty());
  EXPECT_FALSE(registry.hold().has_value());
}

// Restoring thousands of changed policies built the hold after each (O(policies) a build):
// a batch builds it once, when the outermost batch ends, from all of them.
TEST(PolicyRegistryTest, ABatchBuildsTheHoldOnceAtItsEnd) {
  PolicyRegistry registry;
  auto change = [&](std::string name, int64_t now_us) {
    for (std::string_view window : {"1000", "60000"}) {
      auto d =
          ParsePolicyDefinition(name, std::vector<std::string_view>{"FIXEDWINDOW", "5", window});
      ASSERT_TRUE(d.ok());
      ASSERT_TRUE(registry.Set(*d, now_us).ok());
    }
  };
  {
    PolicyRegistry::Batch batch(registry);
    change("p", kStartUs);
    {
      PolicyRegistry::Batch inner(registry);
      change("q", kStartUs + kSecondUs);
    }
    EXPECT_EQ(registry.change_hold(), nullptr) << "built as the outermost batch ends";
  }
  const int64_t start_ms = kStartUs / 1000;
  ASSERT_NE(registry.change_hold(), nullptr);
  EXPECT_TRUE(registry.change_hold()->KeepsState("p", start_ms, start_ms + 30000));
  EXPECT_TRUE(registry.change_hold()->KeepsState("q", start_ms + 1000, start_ms + 30000));
  EXPECT_FALSE(registry.change_hold()->KeepsState("q", start_ms, start_ms + 30000))
      << "q's state expired before its change";
  // Outside a batch each change builds it at once, as before.
  ASSERT_TRUE(registry.Delete("q"));
  EXPECT_FALSE(registry.change_hold()->KeepsState("q", start_ms + 1000, start_ms + 30000));
}

// A key is held for its states of changed policies only, and the hold reads them from the
// stored payload, as the compaction filter sees it.
TEST(PolicyChangeHoldTest, KeepsKeysByTheirStatesOfChangedPolicies) {
  const PolicyChangeHold hold(PolicyChangeHold::Windows{{"changed", {1000, 5000}}});
  auto payload = [](std::string policy, int64_t expire_at_ms) {
    PolicyStates states;
    states.entries.push_back({std::move(policy), "FIXEDWINDOW 5 1000", expire_at_ms, "s"});
    return states.Encode();
  };
  EXPECT_TRUE(hold.Keeps(payload("changed", 1000), 4000));
  EXPECT_FALSE(hold.Keeps(payload("changed", 999), 4000)) << "fresh before the change";
  EXPECT_FALSE(hold.Keeps(payload("changed", 1000), 5001)) << "settled";
  EXPECT_FALSE(hold.Keeps(payload("other", 3000), 4000)) << "no change of its policy";
  PolicyStates both = *PolicyStates::Decode(payload("other", 3000));
  both.entries.push_back({"changed", "FIXEDWINDOW 5 1000", 2000, "s"});
  EXPECT_TRUE(hold.Keeps(both.Encode(), 4000)) << "one held state holds the key";
  both.DropExpired(4000, &hold);
  ASSERT_EQ(both.entries.size(), 1u) << "but only the held state survives a rewrite";
  EXPECT_EQ(both.entries[0].policy, "changed");
  EXPECT_FALSE(hold.Keeps("\x04\x01tokenbucket", 4000)) << "a direct limiter's state";
  EXPECT_FALSE(hold.Keeps("", 4000));
  EXPECT_TRUE(PolicyChangeHold::Everything()->Keeps(payload("any", 0), 4000));
  EXPECT_TRUE(PolicyChangeHold::Everything()->Keeps("\x08\x09states of a later format", 4000))
      << "before the policies are read, even states this build cannot decode are kept";
  EXPECT_FALSE(hold.Keeps("\x08\x09states of a later format", 4000));
  EXPECT_FALSE(hold.Keeps(payload("changed", 1000) + "trailing bytes", 4000))
      << "a held state followed by garbage: the whole record is unreadable";
}

// Each changed policy is held in its own window, not in the union of all of them.
TEST(PolicyChangeHoldTest, EachPolicyHasItsOwnWindow) {
  const PolicyChangeHold hold(PolicyChangeHold::Windows{{"p", {3000, 5000}}, {"q", {1000, 9000}}});
  EXPECT_FALSE(hold.KeepsState("p", 2000, 4000)) << "before p's change, though after q's";
  EXPECT_TRUE(hold.KeepsState("q", 2000, 4000));
  EXPECT_FALSE(hold.KeepsState("p", 3000, 6000)) << "p settled, though q has not";
  EXPECT_TRUE(hold.KeepsState("q", 3000, 6000));
  const storage::ExpiryHold envelope =
      PolicyChangeHold::AsExpiryHold(std::make_shared<const PolicyChangeHold>(
          PolicyChangeHold::Windows{{"p", {3000, 5000}}, {"q", {1000, 9000}}}));
  EXPECT_EQ(envelope.from_ms, 1000);
  EXPECT_EQ(envelope.until_ms, 9000);
}

TEST(LimiterFreshWithinTest, NoDecisionOrCarryOverExpiresLater) {
  struct Case {
    algorithms::AlgorithmTag tag;
    std::vector<std::string_view> params;
    int64_t expected_ms;
    std::vector<std::string_view> changed;  // carried over to these
  };
  using algorithms::AlgorithmTag;
  const std::vector<Case> cases = {
      {AlgorithmTag::kFixedWindow, {"5", "1000"}, 1000, {"2", "3000"}},
      {AlgorithmTag::kSlidingLog, {"5", "1000"}, 1000, {"9", "2500"}},
      {AlgorithmTag::kSlidingWindow, {"5", "1000"}, 2000, {"3", "4000"}},
      {AlgorithmTag::kTokenBucket, {"10", "3", "1000"}, 3334, {"4", "1", "7000"}},
      {AlgorithmTag::kLeakyBucket, {"10", "3", "1000"}, 3334, {"20", "1", "300"}},
      {AlgorithmTag::kGcra, {"4", "2", "1000"}, 2500, {"9", "1", "2000"}},
  };
  for (const Case& c : cases) {
    auto within = LimiterFreshWithinMs(c.tag, c.params);
    ASSERT_TRUE(within.ok()) << within.status().message();
    EXPECT_EQ(*within, c.expected_ms) << algorithms::AlgorithmName(c.tag);
    auto changed_within = LimiterFreshWithinMs(c.tag, c.changed);
    ASSERT_TRUE(changed_within.ok());
    // Random takes at random times: the key never expires further away than that.
    std::optional<std::string> state;
    uint64_t seed = 12345;
    int64_t now_us = kStartUs;
    for (int i = 0; i < 500; ++i) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      now_us += static_cast<int64_t>((seed >> 33) % 400) * 1000 + (seed >> 20) % 1000;
      const int64_t cost = static_cast<int64_t>((seed >> 40) % 4);
      auto call = MakeLimiterCall(c.tag, c.params, cost);
      ASSERT_TRUE(call.ok());
      auto outcome =
          (*call)->Decide(state ? std::optional<std::string_view>(*state) : std::nullopt, now_us);
      ASSERT_TRUE(outcome.ok());
      if (!outcome->write_state) continue;
      state = outcome->state;
      const int64_t now_ms = algorithms::CeilDiv(now_us, int64_t{1000});
      EXPECT_LE(outcome->expire_at_ms - now_ms, *within)
          << algorithms::AlgorithmName(c.tag) << " at step " << i;
      auto carried = RescaleLimiterState(c.tag, c.params, c.changed, *state, now_us);
      ASSERT_TRUE(carried.ok());
      if (carried->keep) {
        EXPECT_LE(carried->expire_at_ms - now_ms, *changed_within)
            << algorithms::AlgorithmName(c.tag) << " carried over at step " << i;
      }
    }
  }
}

TEST(PolicyStatesTest, EncodingRoundTripsAndRejectsOtherStates) {
  PolicyStates states;
  states.entries.push_back({"p1", "FIXEDWINDOW 1 1000", 123, std::string("\x01\x01\x02", 3)});
  states.entries.push_back({"p2", "GCRA 1 1 1000", 456, "xyz"});
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

// One policy at a time, by scanning: what FindAll and PutAll must agree with.
PolicyStates::Entry* FindOne(PolicyStates& states, std::string_view policy) {
  for (PolicyStates::Entry& e : states.entries) {
    if (e.policy == policy) return &e;
  }
  return nullptr;
}

void PutOne(PolicyStates& states, PolicyStates::Entry entry) {
  if (PolicyStates::Entry* existing = FindOne(states, entry.policy)) {
    *existing = std::move(entry);
  } else {
    states.entries.push_back(std::move(entry));
  }
}

// FindAll and PutAll (one pass each, for calls naming many policies) find and write what a
// scan per policy does: short names (kept inside their strings) and long ones, replacing in
// place and appending in order, with the entries growing past their capacity meanwhile.
TEST(PolicyStatesTest, FindAllAndPutAllDoWhatOnePolicyAtATimeDoes) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    auto name = [&] {
      std::string n = "p" + std::to_string(rng() % 40);
      if (rng() % 2 == 0) n += std::string(30, 'x');  // too long to be kept in place
      return n;
    };
    PolicyStates one_by_one;
    for (int i = static_cast<int>(rng() % 20); i > 0; --i) {
      PutOne(one_by_one, {name(), "def", static_cast<int64_t>(rng() % 1000), "s"});
    }
    PolicyStates all_at_once = one_by_one;
    std::vector<PolicyStates::Entry> updates;
    std::vector<std::string> names;
    for (int i = static_cast<int>(rng() % 30); i > 0; --i) {
      std::string n = name();
      if (std::find(names.begin(), names.end(), n) != names.end()) continue;
      names.push_back(n);
      updates.push_back({n, "new", static_cast<int64_t>(rng() % 1000), std::to_string(i)});
    }
    const std::vector<std::string_view> views(names.begin(), names.end());
    const std::vector<const PolicyStates::Entry*> found = all_at_once.FindAll(views);
    ASSERT_EQ(found.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const PolicyStates::Entry* expected = FindOne(one_by_one, names[i]);
      EXPECT_EQ(found[i] == nullptr, expected == nullptr);
      if (found[i] != nullptr && expected != nullptr) {
        EXPECT_EQ(found[i]->expire_at_ms, expected->expire_at_ms);
      }
    }
    for (const PolicyStates::Entry& update : updates) PutOne(one_by_one, update);
    all_at_once.PutAll(std::move(updates));
    EXPECT_EQ(all_at_once.Encode(), one_by_one.Encode()) << "round " << round;
  }
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
