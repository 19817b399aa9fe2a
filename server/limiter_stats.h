#pragma once

// Decision counters: totals for INFO, per named policy for RL.POLICY GET, and per algorithm
// plus the most throttled keys for /metrics and the status page.

#include <string_view>

#include "server/limiter_call.h"
#include "server/policy_registry.h"
#include "server/server_context.h"

namespace sluice::server {

inline void Count(LimiterCounters& counters, LimiterEvent event) {
  switch (event) {
    case LimiterEvent::kAllowed: counters.allowed++; break;
    case LimiterEvent::kRefused: counters.refused++; break;
    case LimiterEvent::kBlocked: counters.blocked++; break;
    case LimiterEvent::kTimedOut: counters.timed_out++; break;
  }
}

// Counts `event` in the totals, under the call's algorithm when it names no policy, and in
// every policy the call takes from.
inline void RecordLimiterEvent(ServerContext& server, const LimiterCall& call,
                               LimiterEvent event) {
  Count(server.limiter_totals, event);
  if (auto tag = call.algorithm()) Count(server.ops.ForAlgorithm(*tag), event);
  for (std::string_view name : call.PolicyNames()) {
    if (PolicyRegistry::Entry* entry = server.policies.FindMutable(name)) {
      Count(entry->counters, event);
    }
  }
}

// A decision made at once on `key` (not a parked BLOCK request's later answer): counted, and
// a refused key fed to the most throttled keys.
inline void RecordDecision(ServerContext& server, std::string_view key, const LimiterCall& call,
                           bool allowed) {
  RecordLimiterEvent(server, call, allowed ? LimiterEvent::kAllowed : LimiterEvent::kRefused);
  if (!allowed) server.ops.throttled_keys.Add(key);
}

// The same for CL.THROTTLE and RL.SMOOTH, which are not LimiterCalls.
inline void RecordDecision(ServerContext& server, std::string_view key,
                           algorithms::AlgorithmTag algorithm, bool allowed) {
  LimiterEvent event = allowed ? LimiterEvent::kAllowed : LimiterEvent::kRefused;
  Count(server.limiter_totals, event);
  Count(server.ops.ForAlgorithm(algorithm), event);
  if (!allowed) server.ops.throttled_keys.Add(key);
}

}  // namespace sluice::server
