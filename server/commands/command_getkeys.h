#pragma once

// COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS: the keys of a full command, found as the
// dispatcher and the ACL find them, with the key-spec flags the ACL decides from
// (server/acl/key_access.h).

#include "server/command_context.h"

namespace sluice::server {

void CommandGetKeysSub(CommandContext& ctx, Args args);
void CommandGetKeysAndFlagsSub(CommandContext& ctx, Args args);

}  // namespace sluice::server
