#include "server/policy_store.h"

#include <spdlog/spdlog.h>

namespace sluice::server {
namespace {

constexpr std::string_view kPrefix = "policy:";

std::string StoreKey(std::string_view name) { return std::string(kPrefix) + std::string(name); }

}  // namespace

void StorePolicy(storage::Engine& engine, const PolicyDefinition& definition) {
  engine.PutSubEntry(storage::SubFamily::kSystem, StoreKey(definition.name),
                     definition.Canonical());
}

void EraseStoredPolicy(storage::Engine& engine, std::string_view name) {
  engine.DeleteSubEntry(storage::SubFamily::kSystem, StoreKey(name));
}

StatusOr<std::vector<PolicyDefinition>> LoadStoredPolicies(storage::Engine& engine) {
  std::vector<PolicyDefinition> definitions;
  auto it = engine.NewSubEntryIterator(storage::SubFamily::kSystem, kPrefix);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view name = it->key().substr(kPrefix.size());
    auto definition = ParseCanonicalPolicy(name, it->value());
    if (!definition.ok()) {
      spdlog::warn("Ignoring stored policy '{}': {}", name, definition.status().message());
      continue;
    }
    definitions.push_back(std::move(definition).value());
  }
  if (!it->status().ok()) return it->status();
  return definitions;
}

Status LoadPolicies(storage::Engine& engine,
                    const std::vector<std::vector<std::string>>& config_policies,
                    PolicyRegistry* registry) {
  auto stored = LoadStoredPolicies(engine);
  if (!stored.ok()) return stored.status();
  for (PolicyDefinition& definition : *stored) SLUICE_RETURN_IF_ERROR(registry->Set(definition));
  for (const std::vector<std::string>& line : config_policies) {
    std::vector<std::string_view> words(line.begin() + 1, line.end());
    auto definition = ParsePolicyDefinition(line[0], words);
    if (!definition.ok()) {
      return Err("policy '" + line[0] + "' in the config: " + definition.status().message());
    }
    const PolicyRegistry::Entry* existing = registry->Find(definition->name);
    if (existing != nullptr && !(existing->definition == *definition)) {
      spdlog::info("Policy '{}' from the config file ({}) replaces the stored one ({})",
                   definition->name, definition->Canonical(), existing->definition.Canonical());
    }
    SLUICE_RETURN_IF_ERROR(registry->Set(*definition));
    StorePolicy(engine, *definition);
  }
  return Status::Ok();
}

}  // namespace sluice::server
