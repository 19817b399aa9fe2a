#pragma once

// The value of a key used with RL.TAKE: per policy, its state and the definition it was
// computed under (a changed policy is noticed and the state carried over on the next call).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/codec.h"
#include "common/status.h"

namespace sluice::server {

class PolicyChangeHold;

struct PolicyStates {
  struct Entry {
    std::string policy;
    std::string definition;  // PolicyDefinition::Canonical() when the state was written
    int64_t expire_at_ms = 0;
    std::string state;  // the algorithm's encoded state
  };
  std::vector<Entry> entries;

  // One stored state as views into the stored bytes.
  struct EntryView {
    std::string_view policy;
    std::string_view definition;
    int64_t expire_at_ms = 0;
    std::string_view state;
  };
  // A key holds at most one state per policy (PolicyRegistry::kMaxPolicies): RL.TAKE drops
  // the states of deleted policies when it writes the key.
  static constexpr uint64_t kMaxEntries = 10000;

  std::string Encode() const;
  // WRONGTYPE for another limiter's state.
  static StatusOr<PolicyStates> Decode(std::string_view bytes);
  // Decode without copies: visit(const EntryView&) for each stored state, in order; Decode's
  // error for bytes that are not policy states (only the error path allocates).
  template <typename Visit>
  static Status ForEachStored(std::string_view bytes, Visit visit);
  // The stored state of each of `policies` (nullptr: none; the first entry of a policy),
  // valid until the entries change. One pass over the entries: a call may name thousands of
  // policies on a key holding thousands of states.
  std::vector<const Entry*> FindAll(std::span<const std::string_view> policies) const;
  // Each update replaces its policy's (first) entry, or is appended, in order. The updates
  // name distinct policies.
  void PutAll(std::vector<Entry> updates);
  // Drops the states that are back to fresh, but those `hold` keeps (a changed policy may have
  // lengthened them; nullptr: no change pending); the key lives as long as its longest state.
  void DropExpired(int64_t now_ms, const PolicyChangeHold* hold);
  size_t Remove(std::string_view policy);
  int64_t ExpireAtMs() const;
};

template <typename Visit>
Status PolicyStates::ForEachStored(std::string_view bytes, Visit visit) {
  algorithms::StateReader reader(bytes);
  SLUICE_RETURN_IF_ERROR(reader.Header(algorithms::AlgorithmTag::kPolicySet));
  uint64_t count = 0;
  bool ok = reader.Unsigned(&count) && count <= kMaxEntries;
  for (uint64_t i = 0; ok && i < count; ++i) {
    EntryView e;
    ok = reader.Bytes(&e.policy) && reader.Bytes(&e.definition) && reader.Signed(&e.expire_at_ms) &&
         reader.Bytes(&e.state);
    if (ok) visit(e);
  }
  if (!ok || !reader.AtEnd()) return Err("corrupt policy limiter state");
  return Status::Ok();
}

}  // namespace sluice::server
