#pragma once

// RL.TAKE / RL.STATUS: one request against several named policies on one key, all or
// nothing. The key holds one state per policy (PolicyStates); the request counts only if
// every policy allows it, and the reply is the most restrictive policy's (contract section 5).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/limiter_call.h"
#include "server/policy_change_hold.h"
#include "server/policy_registry.h"
#include "server/policy_states.h"

namespace sluice::server {

class PolicyTakeCall final : public LimiterCall {
 public:
  // A request against the named policies as `registry` has them now (an unknown name is an
  // error; a name given twice counts once).
  static StatusOr<std::unique_ptr<PolicyTakeCall>> Make(const PolicyRegistry& registry,
                                                        std::span<const std::string_view> names,
                                                        int64_t cost);

  int64_t cost() const override { return cost_; }
  std::vector<std::string_view> PolicyNames() const override;
  StatusOr<LimiterOutcome> Decide(std::optional<std::string_view> stored,
                                  int64_t now_us) const override;
  std::unique_ptr<LimiterCall> WithCost(int64_t cost) const override;
  StatusOr<std::unique_ptr<LimiterCall>> Refreshed(const PolicyRegistry& registry) const override;

 private:
  PolicyTakeCall(const PolicyRegistry& registry, std::vector<PolicyInForce> policies,
                 std::vector<std::unique_ptr<LimiterCall>> calls, int64_t cost,
                 std::shared_ptr<const PolicyChangeHold> hold, uint64_t generation)
      : registry_(&registry),
        policies_(std::move(policies)),
        calls_(std::move(calls)),
        cost_(cost),
        hold_(std::move(hold)),
        generation_(generation) {
    for (const PolicyInForce& p : policies_) definitions_.push_back(p.definition.Canonical());
  }
  static StatusOr<std::unique_ptr<PolicyTakeCall>> Build(
      const PolicyRegistry& registry, std::vector<PolicyInForce> policies, int64_t cost,
      std::shared_ptr<const PolicyChangeHold> hold, uint64_t generation);

  // The policy's stored state (nullopt: fresh), carried over through every change of the
  // policy since it was written, each at the moment it was made.
  StatusOr<std::optional<std::string>> CurrentState(const PolicyStates::Entry* entry,
                                                    size_t policy_index, int64_t now_us) const;

  const PolicyRegistry* registry_;  // the server's: which policies exist when it decides
  std::vector<PolicyInForce> policies_;
  std::vector<std::unique_ptr<LimiterCall>> calls_;  // one per policy
  std::vector<std::string> definitions_;  // one per policy: its Canonical(), kept with its state
  int64_t cost_;
  std::shared_ptr<const PolicyChangeHold> hold_;  // the registry's when made
  uint64_t generation_;                      // the registry's when made
};

}  // namespace sluice::server
