#pragma once

// /status.json: what the status page polls every second (totals only; the page turns them
// into rates).

#include <string>

#include "server/metrics/key_census.h"
#include "server/server_context.h"

namespace sluice::server {

// The chart can show only a few series; the page gets the most active this many policies.
inline constexpr size_t kMaxStatusPolicies = 100;
inline constexpr size_t kStatusTopKeys = 20;

std::string BuildStatusJson(ServerContext& server, const KeyCensus::Figures& keys);

}  // namespace sluice::server
