#pragma once

// Whether a user may run a command with these arguments, as Redis 7.0's ACLCheckAllUserCommandPerm:
// the command (or subcommand) bit, then every key it names against the key patterns (read,
// write, both or neither, as its key specs say: server/acl/key_access.h), then the channels
// its kChannelPublish or kChannelSubscribe flag names ((S)PUBLISH, (P|S)SUBSCRIBE).

#include <cstddef>
#include <string>

#include "server/acl/command_ids.h"
#include "server/acl/user.h"
#include "server/command_table.h"

namespace sluice::server {

struct AclVerdict {
  enum class Denied { kNone, kCommand, kKey, kChannel } denied = Denied::kNone;
  size_t arg = 0;  // the refused key or channel's index in args
  bool ok() const { return denied == Denied::kNone; }
};

AclVerdict CheckAcl(const AclUser& user, const AclCommandIds& ids, const CommandSpec& spec,
                    const Subcommand* sub, Args args);
// The command alone, without its keys and channels.
AclVerdict CheckAclCommand(const AclUser& user, const AclCommandIds& ids, const CommandSpec& spec,
                           const Subcommand* sub);

// ACL LOG's reason: "command", "key" or "channel".
std::string_view AclDeniedReason(const AclVerdict& verdict);
// The NOPERM reply's text (without the prefix): "this user has no permissions to run the
// 'config|get' command".
std::string AclDeniedMessage(const AclVerdict& verdict, const CommandSpec& spec,
                             const Subcommand* sub);
// The NOPERM text for a command EXEC runs that its rules, changed since it was queued, refuse.
std::string AclDeniedInExecMessage(const AclVerdict& verdict);
// A script's redis.call error text for the same refusal.
std::string AclDeniedScriptMessage(const AclVerdict& verdict);
// ACL DRYRUN's text: "This user has no permissions to access the 'x' key".
std::string AclDeniedDryRunMessage(const AclVerdict& verdict, const CommandSpec& spec,
                                   const Subcommand* sub, Args args);

}  // namespace sluice::server
