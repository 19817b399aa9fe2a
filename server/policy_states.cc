#include "server/policy_states.h"

#include <algorithm>
#include <cstdint>

#include "algorithms/codec.h"
#include "server/name_lookup.h"
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

namespace {

std::string_view PolicyOf(const PolicyStates::Entry& e) { return e.policy; }

}  // namespace

std::vector<const PolicyStates::Entry*> PolicyStates::FindAll(
    std::span<const std::string_view> policies) const {
  const NameLookup stored(std::span<const Entry>(entries), PolicyOf);
  std::vector<const Entry*> found;
  found.reserve(policies.size());
  for (std::string_view policy : policies) found.push_back(stored.Find(policy));
  return found;
}

void PolicyStates::PutAll(std::vector<Entry> updates) {
  // Which entry each update replaces, found before anything moves: the lookup's names are
  // views into the updates.
  constexpr size_t kAppend = SIZE_MAX;
  const NameLookup update_of(std::span<Entry>(updates), PolicyOf);
  std::vector<size_t> replaces(updates.size(), kAppend);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry* update = update_of.Find(entries[i].policy);
    if (update == nullptr) continue;
    size_t& replaced = replaces[static_cast<size_t>(update - updates.data())];
    if (replaced == kAppend) replaced = i;
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
