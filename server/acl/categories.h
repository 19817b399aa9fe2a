#pragma once

// Redis's ACL categories of a command or subcommand: ACL rules (+@read) select by them,
// COMMAND INFO and COMMAND LIST FILTERBY ACLCAT show them. Derived from the command's flags
// and COMMAND DOCS group unless the table names them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/command_table.h"

namespace sluice::server {

// Redis 7.0's categories, in its order (ACL CAT).
inline constexpr std::string_view kAclCategoryNames[] = {
    "keyspace", "read",   "write",    "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",    "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking", "dangerous", "connection", "transaction", "scripting"};

// The categories as bits (1 << index in kAclCategoryNames): a container's own are @slow
// alone; a subcommand has the ones the table names for it or else its container's, plus
// @write when it writes (FUNCTION LOAD) and @admin @dangerous when it is administrative
// (CLIENT KILL, ACL SETUSER), less those two for HELP.
uint32_t AclCategoryMask(const CommandSpec& spec, const Subcommand* sub);

// The categories of `mask` with their '@', in Redis's order.
std::vector<std::string> AclCategoryNames(uint32_t mask);

// The index of a category name without '@' (any case), or nullopt.
std::optional<int> AclCategoryIndex(std::string_view name);

}  // namespace sluice::server
