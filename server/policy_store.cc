#include "server/policy_store.h"

#include <spdlog/spdlog.h>

#include <set>

#include "common/string2ll.h"
#include "server/system_records.h"

namespace sluice::server {
namespace {

SystemRecords StoredPolicies(storage::Engine& engine) { return {engine, "policy:"}; }

std::string EncodePolicy(const PolicyRegistry::Entry& entry) {
  std::string text = entry.definition.Canonical();
  for (const PolicyChange& change : entry.changes) {
    text += '\n';
    text += std::to_string(change.at_us);
    text += ' ';
    text += change.replaced;
  }
  return text;
}

StatusOr<PolicyInForce> DecodePolicy(std::string_view name, std::string_view text) {
  size_t line_end = text.find('\n');
  auto definition = ParseCanonicalPolicy(name, text.substr(0, line_end));
  if (!definition.ok()) return definition.status();
  PolicyInForce policy{std::move(definition).value(), {}};
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 1;
    line_end = text.find('\n', start);
    std::string_view line = text.substr(start, line_end - start);
    const size_t space = line.find(' ');
    int64_t at_us = 0;
    if (space == std::string_view::npos || !ParseInt64(line.substr(0, space), &at_us)) {
      return Err("corrupt change line");
    }
    auto replaced = ParseCanonicalPolicy(name, line.substr(space + 1));
    if (!replaced.ok()) return replaced.status();
    policy.changes.push_back({at_us, replaced->Canonical()});
  }
  return policy;
}

}  // namespace

void StorePolicy(storage::Engine& engine, const PolicyRegistry::Entry& entry) {
  StoredPolicies(engine).Put(entry.definition.name, EncodePolicy(entry));
}

void EraseStoredPolicy(storage::Engine& engine, std::string_view name) {
  StoredPolicies(engine).Erase(name);
}

StatusOr<std::vector<PolicyInForce>> LoadStoredPolicies(storage::Engine& engine) {
  auto stored = StoredPolicies(engine).ReadAll();
  if (!stored.ok()) return stored.status();
  std::vector<PolicyInForce> policies;
  for (const auto& [name, text] : *stored) {
    auto policy = DecodePolicy(name, text);
    if (!policy.ok()) {
      spdlog::warn("Ignoring stored policy '{}': {}", name, policy.status().message());
      continue;
    }
    policies.push_back(std::move(policy).value());
  }
  return policies;
}

Status RestoreStoredPolicies(storage::Engine& engine, int64_t now_us, PolicyRegistry* registry) {
  auto stored = LoadStoredPolicies(engine);
  if (!stored.ok()) return stored.status();
  PolicyRegistry::Batch batch(*registry);
  std::set<std::string, std::less<>> names;
  for (PolicyInForce& policy : *stored) {
    names.insert(policy.definition.name);
    SLUICE_RETURN_IF_ERROR(registry->Set(policy.definition, now_us));
    registry->RestoreChanges(policy.definition.name, std::move(policy.changes));
  }
  for (const std::string& name : registry->Names()) {
    if (names.count(name) == 0) registry->Delete(name);
  }
  return Status::Ok();
}

Status LoadPolicies(storage::Engine& engine,
                    const std::vector<std::vector<std::string>>& config_policies, int64_t now_us,
                    PolicyRegistry* registry) {
  PolicyRegistry::Batch batch(*registry);
  SLUICE_RETURN_IF_ERROR(RestoreStoredPolicies(engine, now_us, registry));
  for (const std::vector<std::string>& line : config_policies) {
    auto in_config = [&](const Status& refused) {
      return Err("policy '" + line[0] + "' in the config: " + refused.message());
    };
    if (Status named = ValidateNewPolicyName(line[0]); !named.ok()) return in_config(named);
    std::vector<std::string_view> words(line.begin() + 1, line.end());
    auto definition = ParsePolicyDefinition(line[0], words);
    if (!definition.ok()) return in_config(definition.status());
    const PolicyRegistry::Entry* existing = registry->Find(definition->name);
    if (existing != nullptr && !(existing->definition == *definition)) {
      spdlog::info("Policy '{}' from the config file ({}) replaces the stored one ({})",
                   definition->name, definition->Canonical(), existing->definition.Canonical());
    }
    SLUICE_RETURN_IF_ERROR(registry->Set(*definition, now_us));
    StorePolicy(engine, *registry->Find(definition->name));
  }
  return Status::Ok();
}

}  // namespace sluice::server
