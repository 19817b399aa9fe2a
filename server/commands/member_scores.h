#pragma once

// The scores of some members of one sorted set, read under one lookup of its key: ZMSCORE's,
// GEODIST's, GEOHASH's and GEOPOS's.

#include <optional>
#include <string_view>
#include <vector>

#include "server/command_context.h"

namespace sluice::server {

// One score per member (nullopt for a missing member, or for all when the key is missing);
// WRONGTYPE for another type. False when an error was replied.
bool ReadMemberScores(CommandContext& ctx, std::string_view key, Args members,
                      std::vector<std::optional<double>>* scores);

}  // namespace sluice::server
