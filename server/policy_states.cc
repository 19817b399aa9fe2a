#include "server/policy_states.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "algorithms/codec.h"
#include "server/policy_change_hold.h"
#include "server/policy_registry.h"

namespace sluice::server {

using algorithms::AlgorithmTag;

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

static_assert(PolicyStates::kMaxEntries == PolicyRegistry::kMaxPolicies);

StatusOr<PolicyStates> PolicyStates::Decode(std::string_view bytes) {
  PolicyStates states;
  SLUICE_RETURN_IF_ERROR(ForEachStored(bytes, [&](const EntryView& e) {
    states.entries.push_back(
        {std::string(e.policy), std::string(e.definition), e.expire_at_ms, std::string(e.state)});
  }));
  return states;
}

std::vector<const PolicyStates::Entry*> PolicyStates::FindAll(
    std::span<const std::string_view> policies) const {
  std::unordered_map<std::string_view, const Entry*> stored;
  stored.reserve(entries.size());
  for (const Entry& e : entries) stored.emplace(e.policy, &e);
  std::vector<const Entry*> found;
  found.reserve(policies.size());
  for (std::string_view policy : policies) {
    auto it = stored.find(policy);
    found.push_back(it == stored.end() ? nullptr : it->second);
  }
  return found;
}

void PolicyStates::PutAll(std::vector<Entry> updates) {
  // Which entry each update replaces, found before anything moves: the map's keys are views
  // into the updates.
  constexpr size_t kAppend = SIZE_MAX;
  std::unordered_map<std::string_view, size_t> update_of;
  update_of.reserve(updates.size());
  for (size_t j = 0; j < updates.size(); ++j) update_of.emplace(updates[j].policy, j);
  std::vector<size_t> replaces(updates.size(), kAppend);
  for (size_t i = 0; i < entries.size(); ++i) {
    auto it = update_of.find(entries[i].policy);
    if (it != update_of.end() && replaces[it->second] == kAppend) replaces[it->second] = i;
  }
  for (size_t j = 0; j < updates.size(); ++j) {
    if (replaces[j] == kAppend) {
      entries.push_back(std::move(updates[j]));
    } else {
      entries[replaces[j]] = std::move(updates[j]);
    }
  }
}

void PolicyStates::DropExpired(int64_t now_ms, const PolicyChangeHold* hold) {
  std::erase_if(entries, [&](const Entry& e) {
    return now_ms > e.expire_at_ms &&
           !(hold != nullptr && hold->KeepsState(e.policy, e.expire_at_ms, now_ms));
  });
}

size_t PolicyStates::Remove(std::string_view policy) {
  return std::erase_if(entries, [policy](const Entry& e) { return e.policy == policy; });
}

int64_t PolicyStates::ExpireAtMs() const {
  int64_t at = 0;
  for (const Entry& e : entries) at = std::max(at, e.expire_at_ms);
  return at;
}

}  // namespace sluice::server
