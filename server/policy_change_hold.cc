#include "server/policy_change_hold.h"

#include <algorithm>
#include <utility>

#include "algorithms/codec.h"
#include "server/policy_states.h"

namespace sluice::server {

std::shared_ptr<const PolicyChangeHold> PolicyChangeHold::Everything() {
  auto hold = std::shared_ptr<PolicyChangeHold>(new PolicyChangeHold());
  hold->everything_ = true;
  return hold;
}

storage::ExpiryHold PolicyChangeHold::AsExpiryHold(std::shared_ptr<const PolicyChangeHold> hold) {
  storage::ExpiryHold out{INT64_MIN, INT64_MAX, nullptr};
  if (!hold->everything_) {
    out.from_ms = INT64_MAX;
    out.until_ms = INT64_MIN;
    for (const auto& [name, window] : hold->windows_) {
      out.from_ms = std::min(out.from_ms, window.from_ms);
      out.until_ms = std::max(out.until_ms, window.until_ms);
    }
  }
  out.payload_filter = std::move(hold);
  return out;
}

bool PolicyChangeHold::KeepsState(std::string_view policy, int64_t expire_at_ms,
                                  int64_t now_ms) const {
  if (everything_) return true;
  auto it = windows_.find(policy);
  return it != windows_.end() && expire_at_ms >= it->second.from_ms &&
         now_ms <= it->second.until_ms;
}

bool PolicyChangeHold::Keeps(std::string_view payload, int64_t now_ms) const {
  if (algorithms::PeekAlgorithm(payload) != algorithms::AlgorithmTag::kPolicySet) return false;
  if (everything_) return true;  // whatever the states say, even if this build cannot read them
  bool keeps = false;
  const Status read = PolicyStates::ForEachStored(payload, [&](const PolicyStates::EntryView& e) {
    keeps = keeps || KeepsState(e.policy, e.expire_at_ms, now_ms);
  });
  // Bytes that do not decode hold no state anyone can decide on: nothing to keep.
  return read.ok() && keeps;
}

}  // namespace sluice::server
