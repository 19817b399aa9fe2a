#pragma once

// What the set commands share (sets.cc, set_algebra.cc): the order of their replies, and the
// encoding Redis 7.0 would give a set (OBJECT ENCODING, objects.cc).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "server/command_context.h"

namespace sluice::server {

// Redis 7.0 keeps a set of at most set-max-intset-entries (512) members that all read as 64-bit
// integers (string2ll) as an intset; any other set as a hash table.
inline constexpr size_t kIntsetEntries = 512;
bool FitsIntset(std::span<const std::string> members);

// Orders `members` (in member order) as Redis would reply them where it can be told: an intset
// numerically, as Redis walks it; any other set stays in member (bytewise) order, where Redis's
// is its hash table's.
void OrderLikeRedis(std::vector<std::string>& members);

// SMEMBERS, SINTER, SUNION, SDIFF, SPOP with a count: a RESP3 set (an array in RESP2), in
// OrderLikeRedis's order.
void ReplyMemberSet(CommandContext& ctx, std::vector<std::string>& members);

}  // namespace sluice::server
