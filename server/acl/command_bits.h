#pragma once

// Editing a user's command bitset as Redis's ACL does: a command's bit carries its
// subcommands' along, and a category sets every command (and subcommand) in it.

#include <cstdint>
#include <vector>

#include "server/acl/command_ids.h"

namespace sluice::server {

using AclCommandBits = std::vector<uint64_t>;

// Bits for every id plus the "future commands" bit (the last), all clear.
AclCommandBits EmptyCommandBits(const AclCommandIds& ids);
inline bool TestBit(const AclCommandBits& bits, size_t id) { return (bits[id / 64] >> (id % 64)) & 1u; }
void SetBit(AclCommandBits& bits, size_t id, bool on);
// +@all / -@all: every bit, the future-commands one included.
void SetAllBits(AclCommandBits& bits, const AclCommandIds& ids, bool on);
// +cmd / -cmd: the command and, for a container, all its subcommands.
void ChangeCommand(AclCommandBits& bits, const AclCommandIds& ids, size_t id, bool on);
// +@cat / -@cat (category index in kAclCategoryNames).
void ChangeCategory(AclCommandBits& bits, const AclCommandIds& ids, int category, bool on);
// How many commands (subcommands included) of the category are allowed, and how many not.
void CountCategory(const AclCommandBits& bits, const AclCommandIds& ids, int category,
                   size_t* on, size_t* off);
// Whether every command and subcommand is allowed.
bool AllCommandsAllowed(const AclCommandBits& bits, const AclCommandIds& ids);

}  // namespace sluice::server
