#pragma once

// What a command's keys need of a user's key patterns, as Redis 7.0 decides it from each key
// spec's flags: read (%R~) for a key whose value the command reads or returns (ACCESS), write
// (%W~) for one it inserts into, deletes or updates, both, or neither (a command that only
// looks at a key's existence, type or size: EXISTS, TYPE, STRLEN, ...; any pattern that matches
// the key allows it).

#include <cstdint>

#include "server/command_table.h"
#include "server/key_spec_flags.h"

namespace sluice::server {

enum AclKeyNeed : uint8_t { kAclNeedNone = 0, kAclNeedRead = 1, kAclNeedWrite = 2 };

// A key spec's need of the user's key patterns (AclKeyNeed bits): read for ACCESS, write for
// INSERT, DELETE or UPDATE, as Redis's ACL decides it. Two bit tests: the ACL asks it of every
// command a user without all keys runs.
constexpr uint8_t AclKeyNeedOf(KeySpecFlags flags) {
  return static_cast<uint8_t>((KeyIsRead(flags) ? kAclNeedRead : 0) |
                              (KeyIsWritten(flags) ? kAclNeedWrite : 0));
}

struct AclKeyAccess {
  // Redis's getkeys procedures that decide a key's flags from the arguments.
  enum class Variable : uint8_t {
    kNo,
    kSet,       // SET: write, read and write with GET
    kBitfield,  // BITFIELD: read with only GET (and OVERFLOW), else read and write
  };
  // The key-spec flags of the first key the command names and of each later one (COPY's
  // destination, SINTERSTORE's sources); the ACL's needs follow from them (AclKeyNeedOf). A
  // Variable command's are what COMMAND INFO shows (what it may do, with variable_flags);
  // KeySpecFlagsFor decides a request's.
  KeySpecFlags first_flags = 0;
  KeySpecFlags rest_flags = 0;
  Variable variable = Variable::kNo;
  // A subcommand's key (OBJECT ENCODING key, MEMORY USAGE key): its argument index, 0 for none.
  uint8_t sub_key = 0;
};

// The command's (or subcommand's) key access: by how it is registered (read-only: read; a
// write: write, or both for a blocking write, a list move's source, a script, a limiter
// command), or as Redis's key specs say where they say otherwise. Computed once per command and
// subcommand when AclCommandIds numbers the table: read it there (its entry's `keys`).
AclKeyAccess AclKeyAccessOf(const CommandSpec& spec, const Subcommand* sub);

// SET's and BITFIELD's flags for this request (a Variable command's), as Redis's getkeys
// procedures decide them: SET's OW update, RW access update with GET; BITFIELD's RO access with
// only GET (and OVERFLOW), RW access update otherwise.
KeySpecFlags KeySpecFlagsFromArguments(AclKeyAccess::Variable variable, Args args);

// The key-spec flags of this request's keys: {first key's, later keys'}.
struct KeySpecFlagsPair {
  KeySpecFlags first;
  KeySpecFlags rest;
};
// Inline, with AclKeyNeedsFor: the ACL asks them of each command a user without all keys runs,
// and most commands' flags are stored (a test and two loads).
inline KeySpecFlagsPair KeySpecFlagsFor(const AclKeyAccess& access, Args args) {
  if (access.variable == AclKeyAccess::Variable::kNo) {
    return {access.first_flags, access.rest_flags};
  }
  const KeySpecFlags flags = KeySpecFlagsFromArguments(access.variable, args);
  return {flags, flags};
}

// What this request's keys need: {first key's, later keys'} (AclKeyNeed bits).
struct AclKeyNeeds {
  uint8_t first;
  uint8_t rest;
};
inline AclKeyNeeds AclKeyNeedsFor(const AclKeyAccess& access, Args args) {
  const KeySpecFlagsPair flags = KeySpecFlagsFor(access, args);
  return {AclKeyNeedOf(flags.first), AclKeyNeedOf(flags.rest)};
}

}  // namespace sluice::server
