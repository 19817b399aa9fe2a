#include "server/policy_take.h"

#include <algorithm>

#include "algorithms/codec.h"

namespace sluice::server {
namespace {

using algorithms::AlgorithmTag;
using algorithms::Verdict;

// retry_after -1 on a refusal means "never": the most restrictive of all.
int64_t RefusalWeight(const Verdict& v) {
  return v.retry_after_ms < 0 ? INT64_MAX : v.retry_after_ms;
}

}  // namespace

// ---- PolicyStates -------------------------------------------------------------------------

std::string PolicyStates::Encode() const {
  algorithms::StateWriter writer(AlgorithmTag::kPolicySet);
  writer.Unsigned(entries.size());
  for (const Entry& e : entries) {
    writer.Bytes(e.policy);
    writer.Bytes(e.definition);
    writer.Signed(e.expire_at_ms);
    writer.Bytes(e.state);
  }
  return std::move(writer).Finish();
}

StatusOr<PolicyStates> PolicyStates::Decode(std::string_view bytes) {
  algorithms::StateReader reader(bytes);
  SLUICE_RETURN_IF_ERROR(reader.Header(AlgorithmTag::kPolicySet));
  uint64_t count = 0;
  PolicyStates states;
  bool ok = reader.Unsigned(&count) && count <= PolicyRegistry::kMaxPolicies;
  for (uint64_t i = 0; ok && i < count; ++i) {
    Entry e;
    std::string_view policy, definition, state;
    ok = reader.Bytes(&policy) && reader.Bytes(&definition) && reader.Signed(&e.expire_at_ms) &&
         reader.Bytes(&state);
    e.policy = policy;
    e.definition = definition;
    e.state = state;
    states.entries.push_back(std::move(e));
  }
  if (!ok || !reader.AtEnd()) return Err("corrupt policy limiter state");
  return states;
}

PolicyStates::Entry* PolicyStates::Find(std::string_view policy) {
  for (Entry& e : entries) {
    if (e.policy == policy) return &e;
  }
  return nullptr;
}

void PolicyStates::Put(Entry entry) {
  if (Entry* existing = Find(entry.policy)) {
    *existing = std::move(entry);
  } else {
    entries.push_back(std::move(entry));
  }
}

void PolicyStates::DropExpired(int64_t now_ms) {
  std::erase_if(entries, [now_ms](const Entry& e) { return now_ms > e.expire_at_ms; });
}

size_t PolicyStates::Remove(std::string_view policy) {
  return std::erase_if(entries, [policy](const Entry& e) { return e.policy == policy; });
}

int64_t PolicyStates::ExpireAtMs() const {
  int64_t at = 0;
  for (const Entry& e : entries) at = std::max(at, e.expire_at_ms);
  return at;
}

// ---- PolicyTakeCall -----------------------------------------------------------------------

StatusOr<std::unique_ptr<PolicyTakeCall>> PolicyTakeCall::Make(
    std::vector<PolicyDefinition> policies, int64_t cost) {
  std::vector<std::unique_ptr<LimiterCall>> calls;
  for (const PolicyDefinition& policy : policies) {
    std::vector<std::string_view> args(policy.args.begin(), policy.args.end());
    auto call = MakeLimiterCall(policy.algorithm, args, cost);
    if (!call.ok()) return call.status();
    calls.push_back(std::move(call).value());
  }
  return std::unique_ptr<PolicyTakeCall>(
      new PolicyTakeCall(std::move(policies), std::move(calls), cost));
}

std::vector<std::string_view> PolicyTakeCall::PolicyNames() const {
  std::vector<std::string_view> names;
  for (const PolicyDefinition& p : policies_) names.push_back(p.name);
  return names;
}

std::unique_ptr<LimiterCall> PolicyTakeCall::WithCost(int64_t cost) const {
  auto copy = Make(policies_, cost);
  return copy.ok() ? std::move(copy).value() : nullptr;
}

StatusOr<std::optional<std::string>> PolicyTakeCall::CurrentState(PolicyStates& states,
                                                                  const PolicyDefinition& policy,
                                                                  int64_t now_us) const {
  PolicyStates::Entry* entry = states.Find(policy.name);
  if (entry == nullptr) return std::optional<std::string>();
  std::string canonical = policy.Canonical();
  if (entry->definition == canonical) return std::optional<std::string>(entry->state);
  // The policy changed since this state was written: carry the state over (same algorithm),
  // or start fresh when the algorithm itself changed.
  auto old_policy = ParseCanonicalPolicy(policy.name, entry->definition);
  if (!old_policy.ok() || old_policy->algorithm != policy.algorithm) {
    return std::optional<std::string>();
  }
  std::vector<std::string_view> old_args(old_policy->args.begin(), old_policy->args.end());
  std::vector<std::string_view> new_args(policy.args.begin(), policy.args.end());
  auto rescaled = RescaleLimiterState(policy.algorithm, old_args, new_args, entry->state, now_us);
  if (!rescaled.ok()) return rescaled.status();
  if (!rescaled->keep) return std::optional<std::string>();
  return std::optional<std::string>(std::move(rescaled->state));
}

StatusOr<LimiterOutcome> PolicyTakeCall::Decide(std::optional<std::string_view> stored,
                                                int64_t now_us) const {
  PolicyStates states;
  if (stored) {
    auto decoded = PolicyStates::Decode(*stored);
    if (!decoded.ok()) return decoded.status();
    states = std::move(decoded).value();
  }
  states.DropExpired(now_us / 1000);

  std::vector<LimiterOutcome> outcomes;
  outcomes.reserve(policies_.size());
  for (size_t i = 0; i < policies_.size(); ++i) {
    auto current = CurrentState(states, policies_[i], now_us);
    if (!current.ok()) return current.status();
    auto outcome = calls_[i]->Decide(
        *current ? std::optional<std::string_view>(**current) : std::nullopt, now_us);
    if (!outcome.ok()) return outcome.status();
    outcomes.push_back(std::move(outcome).value());
  }

  bool all_allowed = std::all_of(outcomes.begin(), outcomes.end(),
                                 [](const LimiterOutcome& o) { return o.verdict.allowed; });
  // Allowed: the policy with the least remaining (first on a tie). Refused: the refusing
  // policy with the largest retry_after ("never" largest of all).
  size_t chosen = 0;
  for (size_t i = 1; i < outcomes.size(); ++i) {
    const Verdict& best = outcomes[chosen].verdict;
    const Verdict& v = outcomes[i].verdict;
    if (all_allowed) {
      if (v.remaining < best.remaining) chosen = i;
    } else if (!v.allowed && (best.allowed || RefusalWeight(v) > RefusalWeight(best))) {
      chosen = i;
    }
  }

  LimiterOutcome result;
  result.verdict = outcomes[chosen].verdict;
  // The key is fresh again only when every policy's state is.
  const int64_t now_ms = now_us / 1000;
  for (const LimiterOutcome& o : outcomes) {
    // On a refusal nothing is counted: a policy that would have allowed describes a state
    // that is never written, so its reset_after is not the key's.
    if (!all_allowed && o.write_state) continue;
    result.verdict.reset_after_ms =
        std::max(result.verdict.reset_after_ms, o.verdict.reset_after_ms);
  }
  if (all_allowed) {
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i].write_state) continue;
      states.Put({policies_[i].name, policies_[i].Canonical(), outcomes[i].expire_at_ms,
                  std::move(outcomes[i].state)});
      result.write_state = true;
    }
  }
  if (result.write_state) {
    result.expire_at_ms = states.ExpireAtMs();
    result.state = states.Encode();
  }
  result.verdict.reset_after_ms =
      std::max(result.verdict.reset_after_ms, states.ExpireAtMs() - now_ms);
  return result;
}

}  // namespace sluice::server
