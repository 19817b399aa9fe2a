#pragma once

// Decision counters: totals for INFO and per named policy for RL.POLICY GET.

#include "server/limiter_call.h"
#include "server/policy_registry.h"

namespace sluice::server {

inline void Count(LimiterCounters& counters, LimiterEvent event) {
  switch (event) {
    case LimiterEvent::kAllowed: counters.allowed++; break;
    case LimiterEvent::kRefused: counters.refused++; break;
    case LimiterEvent::kBlocked: counters.blocked++; break;
    case LimiterEvent::kTimedOut: counters.timed_out++; break;
  }
}

// Counts `event` in the totals and in every policy the call takes from.
inline void RecordLimiterEvent(LimiterCounters& totals, PolicyRegistry& policies,
                               const LimiterCall& call, LimiterEvent event) {
  Count(totals, event);
  for (std::string_view name : call.PolicyNames()) {
    if (PolicyRegistry::Entry* entry = policies.FindMutable(name)) Count(entry->counters, event);
  }
}

}  // namespace sluice::server
