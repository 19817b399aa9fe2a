#pragma once

// The value of a key used with RL.TAKE: per policy, its state and the definition it was
// computed under (a changed policy is noticed and the state carried over on the next call).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

  std::string Encode() const;
  // WRONGTYPE for another limiter's state.
  static StatusOr<PolicyStates> Decode(std::string_view bytes);
  Entry* Find(std::string_view policy);
  void Put(Entry entry);
  // Drops the states that are back to fresh, but those `hold` keeps (a changed policy may have
  // lengthened them; nullptr: no change pending); the key lives as long as its longest state.
  void DropExpired(int64_t now_ms, const PolicyChangeHold* hold);
  size_t Remove(std::string_view policy);
  int64_t ExpireAtMs() const;
};

}  // namespace sluice::server
