#include "server/policy_take.h"

#include <algorithm>

#include "server/name_lookup.h"

namespace sluice::server {
namespace {

using algorithms::Verdict;

std::string_view SameName(std::string_view name) { return name; }

// retry_after -1 on a refusal means "never": the most restrictive of all.
int64_t RefusalWeight(const Verdict& v) {
  return v.retry_after_ms < 0 ? INT64_MAX : v.retry_after_ms;
}

}  // namespace

// ---- PolicyTakeCall -----------------------------------------------------------------------

StatusOr<std::unique_ptr<PolicyTakeCall>> PolicyTakeCall::Make(
    const PolicyRegistry& registry, std::span<const std::string_view> names, int64_t cost) {
  std::vector<PolicyInForce> policies;
  const NameLookup first_of(names, SameName);  // a name given twice counts once
  for (const std::string_view& name : names) {
    const PolicyRegistry::Entry* entry = registry.Find(name);
    if (entry == nullptr) return Err("unknown policy '" + std::string(name) + "'");
    if (first_of.Find(name) == &name) policies.push_back(entry->InForce());
  }
  return Build(registry, std::move(policies), cost, registry.change_hold(), registry.generation());
}

StatusOr<std::unique_ptr<PolicyTakeCall>> PolicyTakeCall::Build(
    const PolicyRegistry& registry, std::vector<PolicyInForce> policies, int64_t cost,
    std::shared_ptr<const PolicyChangeHold> hold, uint64_t generation) {
  std::vector<std::unique_ptr<LimiterCall>> calls;
  for (const PolicyInForce& policy : policies) {
    const PolicyDefinition& d = policy.definition;
    std::vector<std::string_view> args(d.args.begin(), d.args.end());
    auto call = MakeLimiterCall(d.algorithm, args, cost);
    if (!call.ok()) return call.status();
    calls.push_back(std::move(call).value());
  }
  return std::unique_ptr<PolicyTakeCall>(
      new PolicyTakeCall(registry, std::move(policies), std::move(calls), cost, hold, generation));
}

std::vector<std::string_view> PolicyTakeCall::PolicyNames() const {
  std::vector<std::string_view> names;
  for (const PolicyInForce& p : policies_) names.push_back(p.definition.name);
  return names;
}

std::unique_ptr<LimiterCall> PolicyTakeCall::WithCost(int64_t cost) const {
  auto copy = Build(*registry_, policies_, cost, hold_, generation_);
  return copy.ok() ? std::move(copy).value() : nullptr;
}

StatusOr<std::unique_ptr<LimiterCall>> PolicyTakeCall::Refreshed(
    const PolicyRegistry& registry) const {
  if (registry.generation() == generation_) return std::unique_ptr<LimiterCall>();
  std::vector<std::string_view> names = PolicyNames();
  auto fresh = Make(registry, names, cost_);
  if (!fresh.ok()) return fresh.status();
  return std::unique_ptr<LimiterCall>(std::move(fresh).value());
}

namespace {

// `state`, written under `from`, carried over to `to` at `at_us` (nullopt: fresh then).
StatusOr<std::optional<RescaledState>> CarryOver(std::string_view name, std::string_view from,
                                                 std::string_view to, std::string_view state,
                                                 int64_t at_us) {
  auto old_policy = ParseCanonicalPolicy(name, from);
  auto new_policy = ParseCanonicalPolicy(name, to);
  // A changed algorithm starts fresh: no state means the same under another algorithm.
  if (!old_policy.ok() || !new_policy.ok() || old_policy->algorithm != new_policy->algorithm) {
    return std::optional<RescaledState>();
  }
  std::vector<std::string_view> old_args(old_policy->args.begin(), old_policy->args.end());
  std::vector<std::string_view> new_args(new_policy->args.begin(), new_policy->args.end());
  auto rescaled = RescaleLimiterState(new_policy->algorithm, old_args, new_args, state, at_us);
  if (!rescaled.ok()) return rescaled.status();
  if (!rescaled->keep) return std::optional<RescaledState>();
  return std::optional<RescaledState>(std::move(rescaled).value());
}

}  // namespace

StatusOr<std::optional<std::string>> PolicyTakeCall::CurrentState(const PolicyStates::Entry* entry,
                                                                  size_t policy_index,
                                                                  int64_t now_us) const {
  if (entry == nullptr) return std::optional<std::string>();
  const PolicyInForce& policy = policies_[policy_index];
  const std::string& current = definitions_[policy_index];
  std::string state = entry->state;
  int64_t expire_at_ms = entry->expire_at_ms;
  if (entry->definition != current) {
    // Replay from the latest change that replaced the definition the state was written under.
    // A definition the changes no longer know (forgotten, or from before an RL.POLICY DEL) is
    // carried over now.
    const std::vector<PolicyChange>& changes = policy.changes;
    size_t first = changes.size();
    while (first > 0 && changes[first - 1].replaced != entry->definition) --first;
    struct Step {
      std::string_view to;
      int64_t at_us;
    };
    std::vector<Step> steps;
    if (first == 0) {
      steps.push_back({current, now_us});
    } else {
      for (size_t j = first - 1; j < changes.size(); ++j) {
        steps.push_back({j + 1 < changes.size() ? std::string_view(changes[j + 1].replaced)
                                                : std::string_view(current),
                         changes[j].at_us});
      }
    }
    std::string_view from = entry->definition;
    for (const Step& step : steps) {
      // Fresh before the change: a fresh key is fresh under any definition.
      if (step.at_us / 1000 > expire_at_ms) return std::optional<std::string>();
      auto carried = CarryOver(policy.definition.name, from, step.to, state, step.at_us);
      if (!carried.ok()) return carried.status();
      if (!carried->has_value()) return std::optional<std::string>();
      state = std::move((*carried)->state);
      expire_at_ms = (*carried)->expire_at_ms;
      from = step.to;
    }
  }
  if (now_us / 1000 > expire_at_ms) return std::optional<std::string>();
  return std::optional<std::string>(std::move(state));
}

StatusOr<LimiterOutcome> PolicyTakeCall::Decide(std::optional<std::string_view> stored,
                                                int64_t now_us) const {
  PolicyStates states;
  if (stored) {
    auto decoded = PolicyStates::Decode(*stored);
    if (!decoded.ok()) return decoded.status();
    states = std::move(decoded).value();
  }

  const std::vector<std::string_view> names = PolicyNames();
  const std::vector<const PolicyStates::Entry*> stored_states = states.FindAll(names);
  std::vector<std::optional<std::string>> currents;  // each policy's state, carried over
  std::vector<LimiterOutcome> outcomes;
  currents.reserve(policies_.size());
  outcomes.reserve(policies_.size());
  for (size_t i = 0; i < policies_.size(); ++i) {
    auto current = CurrentState(stored_states[i], i, now_us);
    if (!current.ok()) return current.status();
    currents.push_back(std::move(current).value());
    auto outcome = calls_[i]->Decide(StateView(currents.back()), now_us);
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
  // The key is fresh again only when every policy's state is: those named here as they decide
  // under their definitions now, the others as stored.
  const int64_t now_ms = now_us / 1000;
  // A refusal counts nothing, and the key keeps its states as stored, but for those that shed
  // much (a sliding log's entries that left the window): they are stored pruned, so that the
  // next calls do not read it all again. Only a state already under its policy's definition
  // (a refusal does not carry a state over to a changed policy).
  std::vector<PolicyStates::Entry> pruned;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    int64_t reset_after_ms = outcomes[i].verdict.reset_after_ms;
    int64_t expire_at_ms = outcomes[i].expire_at_ms;
    if (!all_allowed && outcomes[i].write_state) {
      // Nothing is counted on a refusal: this policy's state stays as it is.
      auto peek = calls_[i]->WithCost(0)->Decide(StateView(currents[i]), now_us);
      if (!peek.ok()) return peek.status();
      reset_after_ms = peek->verdict.reset_after_ms;
      expire_at_ms = peek->expire_at_ms;
    }
    result.verdict.reset_after_ms = std::max(result.verdict.reset_after_ms, reset_after_ms);
    if (!all_allowed && !outcomes[i].pruned_state.empty() && stored_states[i] != nullptr &&
        stored_states[i]->definition == definitions_[i]) {
      pruned.push_back({policies_[i].definition.name, definitions_[i], expire_at_ms,
                        std::move(outcomes[i].pruned_state)});
    }
  }
  if (!pruned.empty()) {
    states.PutAll(std::move(pruned));
    result.pruned_state = states.Encode();
  }
  states.DropExpired(now_ms, hold_.get());
  // The states of policies deleted since go with the key's next write. Nothing reads them but
  // RL.RESET, and a key used with policies made and deleted by name over time (per tenant,
  // per plan) would otherwise grow with every one of them, up to what it can hold.
  // (The policies this call names exist: only the others are looked up.)
  const NameLookup named_here(std::span<const std::string_view>(names), SameName);
  auto named = [&](const PolicyStates::Entry& e) { return named_here.Find(e.policy) != nullptr; };
  std::erase_if(states.entries, [&](const PolicyStates::Entry& e) {
    return !named(e) && registry_->Find(e.policy) == nullptr;
  });
  for (const PolicyStates::Entry& e : states.entries) {
    if (named(e)) continue;
    result.verdict.reset_after_ms =
        std::max(result.verdict.reset_after_ms, e.expire_at_ms - now_ms);
  }
  if (all_allowed) {
    std::vector<PolicyStates::Entry> counted;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i].write_state) continue;
      counted.push_back({policies_[i].definition.name, definitions_[i], outcomes[i].expire_at_ms,
                         std::move(outcomes[i].state)});
    }
    result.write_state = !counted.empty();
    states.PutAll(std::move(counted));
  }
  // The key lives as long as its longest state. A refusal says so too, so that a key an
  // EXPIRE shortened gets its expiry back, as the other limiters' refusals give it back
  // (docs/notes.md, "PERSIST or EXPIRE on a limiter key").
  result.expire_at_ms = states.ExpireAtMs();
  if (result.write_state) result.state = states.Encode();
  return result;
}

}  // namespace sluice::server
