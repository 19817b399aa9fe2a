#pragma once

// Redis's ACL categories of a command: COMMAND INFO shows them, ACL rules (+@read) select by
// them. Derived from the command's flags and COMMAND DOCS group unless the table names them.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "server/command_table.h"

namespace sluice::server {

// Redis 7.0's categories, in its order (ACL CAT).
inline constexpr std::string_view kAclCategoryNames[] = {
    "keyspace", "read",   "write",    "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",    "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking", "dangerous", "connection", "transaction", "scripting"};

// The command's categories with their '@', in Redis's order.
std::vector<std::string_view> AclCategories(const CommandSpec& spec);

// The categories as bits (1 << index in kAclCategoryNames) that ACL rules select by: a
// container's own are @slow alone; a subcommand has its container's, plus @admin and
// @dangerous when it is administrative (CLIENT KILL, ACL SETUSER), less them for HELP.
uint32_t AclCategoryMask(const CommandSpec& spec, const Subcommand* sub);

// The index of a category name without '@' (any case), or nullopt.
std::optional<int> AclCategoryIndex(std::string_view name);

}  // namespace sluice::server
