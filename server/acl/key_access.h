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

struct AclKeyAccess {
  // Redis's getkeys procedures that decide a key's flags from the arguments.
  enum class Variable : uint8_t {
    kNo,
    kSet,       // SET: write, read and write with GET
    kBitfield,  // BITFIELD: read with only GET (and OVERFLOW), else read and write
  };
  uint8_t first = kAclNeedNone;  // the first key the command names (AclKeyNeed bits)
  uint8_t rest = kAclNeedNone;   // each later one (COPY's destination, SINTERSTORE's sources)
  Variable variable = Variable::kNo;
  // A subcommand's key (OBJECT ENCODING key, MEMORY USAGE key): its argument index, 0 for none.
  uint8_t sub_key = 0;
  // The key-spec flags `first` and `rest` follow from (COMMAND GETKEYSANDFLAGS shows them).
  KeySpecFlags first_flags = 0;
  KeySpecFlags rest_flags = 0;
};

// The command's (or subcommand's) key access: by how it is registered (read-only: read; a
// write: write, or both for a blocking write, a list move's source, a script, a limiter
// command), or as Redis's key specs say where they say otherwise. Computed once per command
// (AclCommandIds).
AclKeyAccess AclKeyAccessOf(const CommandSpec& spec, const Subcommand* sub);

// What this request's keys need: {first key's, later keys'} (AclKeyNeed bits).
struct AclKeyNeeds {
  uint8_t first;
  uint8_t rest;
};
AclKeyNeeds AclKeyNeedsFor(const AclKeyAccess& access, Args args);

// The key-spec flags of this request's keys: {first key's, later keys'}, SET's and BITFIELD's
// decided by their arguments as Redis's getkeys procedures decide them.
struct KeySpecFlagsPair {
  KeySpecFlags first;
  KeySpecFlags rest;
};
KeySpecFlagsPair KeySpecFlagsFor(const AclKeyAccess& access, Args args);

}  // namespace sluice::server
