#include "server/policy_registry.h"

#include <algorithm>

#include "algorithms/checked.h"
#include "common/ascii.h"
#include "server/limiter_call.h"

namespace sluice::server {
namespace {

// The longest a state under the definition `canonical` takes to become fresh (0 if it does
// not parse, which a stored definition always does).
int64_t FreshWithinMs(std::string_view name, std::string_view canonical) {
  auto definition = ParseCanonicalPolicy(name, canonical);
  if (!definition.ok()) return 0;
  std::vector<std::string_view> args(definition->args.begin(), definition->args.end());
  auto within = LimiterFreshWithinMs(definition->algorithm, args);
  return within.ok() ? *within : 0;
}

// A state written under the definition change j replaced is, at the change, at most as full as
// a fresh key that took everything under that definition, and once carried over, under the one
// that replaced it; so it is fresh by then, whatever came later (later changes carry it over
// again, and are counted in turn).
int64_t SettlesAtMs(const PolicyDefinition& current, const std::vector<PolicyChange>& changes) {
  const std::string current_text = current.Canonical();
  int64_t settles = 0;
  for (size_t j = 0; j < changes.size(); ++j) {
    std::string_view next = j + 1 < changes.size() ? changes[j + 1].replaced : current_text;
    int64_t longest = std::max(FreshWithinMs(current.name, changes[j].replaced),
                               FreshWithinMs(current.name, next));
    int64_t at_ms = algorithms::CeilDiv(changes[j].at_us, int64_t{1000});
    settles = std::max(settles, at_ms > INT64_MAX - longest ? INT64_MAX : at_ms + longest);
  }
  return settles;
}

}  // namespace

std::string PolicyDefinition::Canonical() const {
  std::string text(algorithms::AlgorithmName(algorithm));
  for (const std::string& arg : args) {
    text += ' ';
    text += arg;
  }
  return text;
}

Status ValidateNewPolicyName(std::string_view name) {
  if (EqualsIgnoreCase(name, "COST") || EqualsIgnoreCase(name, "BLOCK")) {
    return Err("policy name must not be COST or BLOCK");
  }
  return Status::Ok();
}

StatusOr<PolicyDefinition> ParsePolicyDefinition(std::string_view name,
                                                 std::span<const std::string_view> words) {
  if (name.empty()) return Err("policy name must not be empty");
  if (words.empty()) return Err("syntax error");
  auto algorithm = algorithms::ParseAlgorithmName(words[0]);
  if (!algorithm || *algorithm == algorithms::AlgorithmTag::kSmooth ||
      *algorithm == algorithms::AlgorithmTag::kPolicySet) {
    return Err("unknown algorithm '" + std::string(words[0]) +
               "': use FIXEDWINDOW, SLIDINGLOG, SLIDINGWINDOW, TOKENBUCKET, LEAKYBUCKET or GCRA");
  }
  std::span<const std::string_view> params = words.subspan(1);
  if (params.size() != LimiterParamCount(*algorithm)) {
    return Err("wrong number of arguments for algorithm " +
               std::string(algorithms::AlgorithmName(*algorithm)));
  }
  // Validate exactly as the RL.* command would.
  auto call = MakeLimiterCall(*algorithm, params, 1);
  if (!call.ok()) return call.status();
  PolicyDefinition definition{std::string(name), *algorithm, {}};
  for (std::string_view p : params) definition.args.emplace_back(p);
  return definition;
}

StatusOr<PolicyDefinition> ParseCanonicalPolicy(std::string_view name, std::string_view text) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return ParsePolicyDefinition(name, words);
}

Status PolicyRegistry::Set(PolicyDefinition definition, int64_t now_us) {
  auto it = policies_.find(definition.name);
  if (it != policies_.end()) {
    Entry& entry = it->second;
    std::string replaced = entry.definition.Canonical();
    entry.definition = std::move(definition);
    ++generation_;
    if (replaced != entry.definition.Canonical()) {
      // Changes settled by now go first, as the cron forgets them (ForgetSettledChanges): the
      // hold starts at the first change not yet settled, whether or not the cron ran since.
      if (ChangesSettled(entry, now_us / 1000)) entry.changes.clear();
      entry.changes.push_back({now_us, std::move(replaced)});
      if (entry.changes.size() > kMaxChanges) entry.changes.erase(entry.changes.begin());
      ChangesChanged(entry);
    }
    return Status::Ok();
  }
  if (policies_.size() >= kMaxPolicies) {
    return Err("too many policies (at most " + std::to_string(kMaxPolicies) + ")");
  }
  std::string name = definition.name;
  policies_.emplace(std::move(name), Entry{std::move(definition), {}, 0, {}});
  ++generation_;
  return Status::Ok();
}

void PolicyRegistry::RestoreChanges(std::string_view name, std::vector<PolicyChange> changes) {
  Entry* entry = FindMutable(name);
  if (entry == nullptr) return;
  entry->changes = std::move(changes);
  ChangesChanged(*entry);
}

bool PolicyRegistry::Delete(std::string_view name) {
  auto it = policies_.find(name);
  if (it == policies_.end()) return false;
  const bool had_changes = !it->second.changes.empty();
  policies_.erase(it);
  ++generation_;
  if (had_changes) UpdateHold();
  return true;
}

void PolicyRegistry::ChangesChanged(Entry& entry) {
  entry.settles_at_ms = entry.changes.empty() ? 0 : SettlesAtMs(entry.definition, entry.changes);
  UpdateHold();
}

void PolicyRegistry::UpdateHold() {
  if (batch_depth_ > 0) return;
  PolicyChangeHold::Windows windows;
  for (const auto& [name, entry] : policies_) {
    if (entry.changes.empty()) continue;
    const int64_t from_ms = algorithms::FloorDiv(entry.changes.front().at_us, int64_t{1000});
    windows.emplace(name, PolicyChangeHold::Window{from_ms, entry.settles_at_ms});
  }
  change_hold_.reset();
  if (!windows.empty()) change_hold_ = std::make_shared<const PolicyChangeHold>(std::move(windows));
}

std::optional<storage::ExpiryHold> PolicyRegistry::hold() const {
  if (change_hold_ == nullptr) return std::nullopt;
  return PolicyChangeHold::AsExpiryHold(change_hold_);
}

std::vector<std::string> PolicyRegistry::ForgetSettledChanges(int64_t now_ms) {
  std::vector<std::string> names;
  if (change_hold_ == nullptr) return names;
  for (auto& [name, entry] : policies_) {
    if (!ChangesSettled(entry, now_ms)) continue;
    entry.changes.clear();
    entry.settles_at_ms = 0;
    names.push_back(name);
  }
  if (!names.empty()) UpdateHold();
  return names;
}

const PolicyRegistry::Entry* PolicyRegistry::Find(std::string_view name) const {
  auto it = policies_.find(name);
  return it == policies_.end() ? nullptr : &it->second;
}

PolicyRegistry::Entry* PolicyRegistry::FindMutable(std::string_view name) {
  auto it = policies_.find(name);
  return it == policies_.end() ? nullptr : &it->second;
}

std::vector<std::string> PolicyRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(policies_.size());
  for (const auto& [name, entry] : policies_) names.push_back(name);
  return names;
}

}  // namespace sluice::server
