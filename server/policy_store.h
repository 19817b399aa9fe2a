#pragma once

// Durable named policies: each definition is kept in the storage engine's system family
// (outside the key space, untouched by FLUSHALL) as "policy:<name>" -> canonical text.

#include <vector>

#include "common/status.h"
#include "server/policy_registry.h"
#include "storage/engine.h"

namespace sluice::server {

// Stages the definition; it is durable with the command's group commit.
void StorePolicy(storage::Engine& engine, const PolicyDefinition& definition);
void EraseStoredPolicy(storage::Engine& engine, std::string_view name);
// Every stored definition (at start).
StatusOr<std::vector<PolicyDefinition>> LoadStoredPolicies(storage::Engine& engine);

// At start: the stored policies, then the config file's `policy` lines, which win over a
// stored policy of the same name (the conflict is logged) and are stored in turn.
Status LoadPolicies(storage::Engine& engine,
                    const std::vector<std::vector<std::string>>& config_policies,
                    PolicyRegistry* registry);

}  // namespace sluice::server
