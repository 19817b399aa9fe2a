#pragma once

// The /metrics page: the server's counters and gauges in Prometheus's text format.

#include <string>

#include "server/metrics/key_census.h"
#include "server/server_context.h"

namespace sluice::server {

// Per-policy series beyond this many (in name order) are left out of /metrics, which keeps a
// scrape small with up to 10,000 policies; sluice_policies still counts them all.
inline constexpr size_t kMaxPolicySeries = 1000;

std::string BuildMetricsText(ServerContext& server, const KeyCensus::Figures& keys);

}  // namespace sluice::server
