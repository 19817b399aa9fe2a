#pragma once

// RL.TAKE / RL.STATUS: one request against several named policies on one key, all or
// nothing. The key holds one state per policy (PolicyStates); the request counts only if
// every policy allows it, and the reply is the most restrictive policy's (contract section 5).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/limiter_call.h"
#include "server/policy_registry.h"

namespace sluice::server {

// The value of a key used with RL.TAKE: per policy, its state and the definition it was
// computed under (a changed policy is noticed and the state carried over on the next call).
struct PolicyStates {
  struct Entry {
    std::string policy;
    std::string definition;  // PolicyDefinition::Canonical() when the state was written
    int64_t expire_at_ms = 0;
    std::string state;       // the algorithm's encoded state
  };
  std::vector<Entry> entries;

  std::string Encode() const;
  // WRONGTYPE for another limiter's state.
  static StatusOr<PolicyStates> Decode(std::string_view bytes);
  Entry* Find(std::string_view policy);
  void Put(Entry entry);
  // Drops the states that are back to fresh; the key lives as long as its longest state.
  void DropExpired(int64_t now_ms);
  size_t Remove(std::string_view policy);
  int64_t ExpireAtMs() const;
};

class PolicyTakeCall final : public LimiterCall {
 public:
  static StatusOr<std::unique_ptr<PolicyTakeCall>> Make(std::vector<PolicyDefinition> policies,
                                                        int64_t cost);

  int64_t cost() const override { return cost_; }
  std::vector<std::string_view> PolicyNames() const override;
  StatusOr<LimiterOutcome> Decide(std::optional<std::string_view> stored,
                                  int64_t now_us) const override;
  std::unique_ptr<LimiterCall> WithCost(int64_t cost) const override;

 private:
  PolicyTakeCall(std::vector<PolicyDefinition> policies,
                 std::vector<std::unique_ptr<LimiterCall>> calls, int64_t cost)
      : policies_(std::move(policies)), calls_(std::move(calls)), cost_(cost) {}

  // The policy's stored state, carried over if the policy changed since it was written.
  StatusOr<std::optional<std::string>> CurrentState(PolicyStates& states,
                                                    const PolicyDefinition& policy,
                                                    int64_t now_us) const;

  std::vector<PolicyDefinition> policies_;
  std::vector<std::unique_ptr<LimiterCall>> calls_;  // one per policy
  int64_t cost_;
};

}  // namespace sluice::server
