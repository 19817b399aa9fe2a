#include "server/acl/check.h"

#include <algorithm>

#include "common/glob_match.h"

namespace sluice::server {
namespace {

// `need`: AclKeyNeed bits; a pattern must grant all of them (none: any matching pattern).
bool KeyAllowed(const AclUser& user, std::string_view key, uint8_t need) {
  const bool read = (need & kAclNeedRead) != 0;
  const bool write = (need & kAclNeedWrite) != 0;
  return std::any_of(user.key_patterns.begin(), user.key_patterns.end(),
                     [&](const AclKeyPattern& p) {
                       return (!read || p.read) && (!write || p.write) &&
                              GlobMatch(p.pattern, key);
                     });
}

// A pattern subscription (PSUBSCRIBE) must be one of the user's patterns to the letter: a
// pattern that only matches one could reach channels the user may not hear.
bool ChannelAllowed(const AclUser& user, std::string_view channel, bool literal) {
  return std::any_of(user.channel_patterns.begin(), user.channel_patterns.end(),
                     [&](const std::string& p) {
                       return literal ? p == channel : GlobMatch(p, channel);
                     });
}

// The channels a command names (its kChannelPublish or kChannelSubscribe flag says which
// arguments), each against the user's channel patterns.
AclVerdict CheckChannels(const AclUser& user, const CommandSpec& spec, Args args) {
  const bool literal = HasFlag(spec.flags, CommandFlags::kChannelPattern);
  const size_t end =
      HasFlag(spec.flags, CommandFlags::kChannelPublish) ? std::min<size_t>(2, args.size())
                                                         : args.size();
  for (size_t i = 1; i < end; ++i) {
    if (!ChannelAllowed(user, args[i], literal)) return {AclVerdict::Denied::kChannel, i};
  }
  return {};
}

// CountedKeys returns views of the arguments themselves: the one `key` points into.
size_t ArgIndex(Args args, std::string_view key) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].data() == key.data()) return i;
  }
  return 0;
}

// Every key the command names, in Redis's order, against what it needs of it (its key specs'
// flags: server/acl/key_access.h).
AclVerdict CheckKeys(const AclUser& user, const AclKeyAccess& access, const CommandSpec& spec,
                     Args args) {
  if (user.all_keys) return {};
  const AclKeyNeeds needs = AclKeyNeedsFor(access, args);
  bool first = true;
  auto allowed = [&](std::string_view key) {
    const uint8_t need = first ? needs.first : needs.rest;
    first = false;
    return KeyAllowed(user, key, need);
  };
  if (access.sub_key != 0 && access.sub_key < args.size() && !allowed(args[access.sub_key])) {
    return {AclVerdict::Denied::kKey, access.sub_key};
  }
  const KeyRange range = RangeKeys(spec, args.size());
  for (int i = range.first; i <= range.last; i += range.step) {
    if (!allowed(args[i])) return {AclVerdict::Denied::kKey, static_cast<size_t>(i)};
  }
  for (std::string_view key : CountedKeys(spec, args)) {
    if (!allowed(key)) return {AclVerdict::Denied::kKey, ArgIndex(args, key)};
  }
  return {};
}

}  // namespace

AclVerdict CheckAclCommand(const AclUser& user, const AclCommandIds& ids, const CommandSpec& spec,
                           const Subcommand* sub) {
  // What may run before AUTH (AUTH, HELLO, QUIT, RESET) is never refused, as in Redis (and
  // so ACL DRYRUN answers OK for it too).
  if (!HasFlag(spec.flags, CommandFlags::kNoAuth) && !user.Allowed(ids.IdOf(spec, sub))) {
    return {AclVerdict::Denied::kCommand, 0};
  }
  return {};
}

AclVerdict CheckAcl(const AclUser& user, const AclCommandIds& ids, const CommandSpec& spec,
                    const Subcommand* sub, Args args) {
  if (AclVerdict command = CheckAclCommand(user, ids, spec, sub); !command.ok()) return command;
  const AclKeyAccess& access = ids.entry(ids.IdOf(spec, sub)).keys;
  if (AclVerdict keys = CheckKeys(user, access, spec, args); !keys.ok()) return keys;
  if (!user.all_channels &&
      HasFlag(spec.flags, CommandFlags::kChannelPublish | CommandFlags::kChannelSubscribe)) {
    return CheckChannels(user, spec, args);
  }
  return {};
}

std::string_view AclDeniedReason(const AclVerdict& verdict) {
  switch (verdict.denied) {
    case AclVerdict::Denied::kKey: return "key";
    case AclVerdict::Denied::kChannel: return "channel";
    default: return "command";
  }
}

std::string AclDeniedMessage(const AclVerdict& verdict, const CommandSpec& spec,
                             const Subcommand* sub) {
  switch (verdict.denied) {
    case AclVerdict::Denied::kCommand:
      return "this user has no permissions to run the '" + FullName(spec, sub) + "' command";
    case AclVerdict::Denied::kKey:
      return "this user has no permissions to access one of the keys used as arguments";
    case AclVerdict::Denied::kChannel:
      return "this user has no permissions to access one of the channels used as arguments";
    case AclVerdict::Denied::kNone:
      break;
  }
  return "no permission";
}

std::string AclDeniedInExecMessage(const AclVerdict& verdict) {
  std::string message =
      "ACLs rules changed between the moment the transaction was accumulated and the EXEC "
      "call. This command is no longer allowed for the following reason: ";
  switch (verdict.denied) {
    case AclVerdict::Denied::kCommand:
      return message + "no permission to execute the command or subcommand";
    case AclVerdict::Denied::kKey:
      return message + "no permission to touch the specified keys";
    case AclVerdict::Denied::kChannel:
      return message + "no permission to access one of the channels used as arguments";
    case AclVerdict::Denied::kNone:
      break;
  }
  return message + "no permission";
}

std::string AclDeniedScriptMessage(const AclVerdict& verdict) {
  switch (verdict.denied) {
    case AclVerdict::Denied::kCommand:
      return "The user executing the script can't run this command or subcommand";
    case AclVerdict::Denied::kKey:
      return "The user executing the script can't access at least one of the keys mentioned "
             "in the command arguments";
    case AclVerdict::Denied::kChannel:
      return "The user executing the script can't publish to the channel mentioned in the "
             "command";
    case AclVerdict::Denied::kNone:
      break;
  }
  return "The user executing the script is lacking the permissions for the command";
}

std::string AclDeniedDryRunMessage(const AclVerdict& verdict, const CommandSpec& spec,
                                   const Subcommand* sub, Args args) {
  switch (verdict.denied) {
    case AclVerdict::Denied::kCommand:
      return "This user has no permissions to run the '" + FullName(spec, sub) + "' command";
    case AclVerdict::Denied::kKey:
      return "This user has no permissions to access the '" + std::string(args[verdict.arg]) +
             "' key";
    case AclVerdict::Denied::kChannel:
      return "This user has no permissions to access the '" + std::string(args[verdict.arg]) +
             "' channel";
    case AclVerdict::Denied::kNone:
      break;
  }
  return "OK";
}

}  // namespace sluice::server
