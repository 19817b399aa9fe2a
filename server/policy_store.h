#pragma once

// Durable named policies: system records (system_records.h), "policy:<name>" -> its canonical
// text, then one line per unsettled change: "\n<at_us> <replaced canonical text>".

#include <vector>

#include "common/status.h"
#include "server/policy_registry.h"
#include "storage/engine.h"

namespace sluice::server {

// Stages the policy as the registry has it; it is durable with the command's group commit.
void StorePolicy(storage::Engine& engine, const PolicyRegistry::Entry& entry);
void EraseStoredPolicy(storage::Engine& engine, std::string_view name);
// Every stored policy (at start).
StatusOr<std::vector<PolicyInForce>> LoadStoredPolicies(storage::Engine& engine);

// The registry becomes the stored policies (each one's definition and changes; the counters of
// those it keeps stay). At start, and after a refused batch that had changed policies.
Status RestoreStoredPolicies(storage::Engine& engine, int64_t now_us, PolicyRegistry* registry);
// At start: the stored policies, then the config file's `policy` lines, which win over a
// stored policy of the same name (the conflict is logged, and is a change at `now_us`) and
// are stored in turn.
Status LoadPolicies(storage::Engine& engine,
                    const std::vector<std::vector<std::string>>& config_policies, int64_t now_us,
                    PolicyRegistry* registry);

}  // namespace sluice::server
