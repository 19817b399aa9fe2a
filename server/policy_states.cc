#include "server/policy_states.h"

#include <algorithm>

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
