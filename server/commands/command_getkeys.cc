// COMMAND GETKEYS and GETKEYSANDFLAGS, as Redis 7.0's getKeysSubcommandImpl: the command (or a
// container's subcommand, OBJECT ENCODING's key), its arity, then its keys in Redis's order,
// each with its key-spec flags.

#include "server/commands/command_getkeys.h"

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/string2ll.h"
#include "server/acl/key_access.h"
#include "server/acl/registry.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

struct FoundKey {
  std::string_view key;
  KeySpecFlags flags;
};

// The count as Redis's getkeys procs read it when its key specs could not: C's atoi, so "2abc"
// is 2, " 2" is 2 and 4294967297 is 1 (strtol's long cut to an int).
int KeyCountLikeAtoi(std::string_view count) {
  return static_cast<int>(std::strtol(std::string(count).c_str(), nullptr, 10));
}

// The keys of a movable-keys command whose count Redis's key specs cannot use: Redis 7.0 asks
// the command's getkeys proc, which reads the count with atoi and answers the counted keys,
// then the destination of ZUNIONSTORE and its kin, all without flags (its procs set none).
std::vector<FoundKey> KeysByGetKeysProc(const CommandSpec& spec, Args cmd) {
  const auto index = static_cast<size_t>(spec.key_count_index);
  if (index >= cmd.size()) return {};
  const int count = KeyCountLikeAtoi(cmd[index]);
  if (count < 1 || static_cast<size_t>(count) > cmd.size() - index - 1) return {};
  std::vector<FoundKey> keys;
  for (int i = 1; i <= count; ++i) keys.push_back({cmd[index + static_cast<size_t>(i)], 0});
  if (spec.first_key > 0) keys.push_back({cmd[static_cast<size_t>(spec.first_key)], 0});
  return keys;
}

// The keys of a command: the table's first/last/step, then those its key finder (SORT's
// STORE), its keywords (GEORADIUS's STORE) or its key count (ZUNIONSTORE's sources, EVAL's
// keys) name; the first one with the first key's flags, the others with the later keys'.
std::vector<FoundKey> KeysOfCommand(const CommandSpec& spec, const AclKeyAccess& access, Args cmd) {
  const KeySpecFlagsPair flags = KeySpecFlagsFor(access, cmd);
  std::vector<FoundKey> found;
  auto add = [&](std::string_view key) {
    found.push_back({key, found.empty() ? flags.first : flags.rest});
  };
  const KeyRange range = RangeKeys(spec, cmd.size());
  for (int i = range.first; i <= range.last; i += range.step) add(cmd[i]);
  const bool movable = HasFlag(spec.flags, CommandFlags::kMovableKeys);
  if (movable && spec.key_finder != nullptr) {
    for (std::string_view key : spec.key_finder->keys(cmd)) add(key);
  } else if (movable && !spec.keyword_keys.empty()) {
    for (std::string_view key : KeywordKeys(spec, cmd)) add(key);
  } else if (movable) {
    // Redis's key specs give up on a count that is not an integer, is negative or passes the
    // arguments; its getkeys proc answers then.
    int64_t count = 0;
    const auto index = static_cast<size_t>(spec.key_count_index);
    const bool specs_apply = index < cmd.size() && ParseInt64(cmd[index], &count) && count >= 0 &&
                             static_cast<uint64_t>(count) < cmd.size() - index;
    if (!specs_apply) return KeysByGetKeysProc(spec, cmd);
    const std::vector<std::string_view> counted = CountedKeys(spec, cmd);
    if (counted.empty()) found.clear();
    for (std::string_view key : counted) add(key);
  }
  return found;
}

// The keys, or Redis's error for a command it cannot take them from.
StatusOr<std::vector<FoundKey>> FindKeys(CommandContext& ctx, Args cmd) {
  const CommandSpec* spec = ctx.server.commands->Find(cmd[0]);
  if (spec == nullptr) return Err("Invalid command specified");
  // A container's subcommand is the command (Redis's lookupCommand): OBJECT ENCODING key.
  const Subcommand* sub = nullptr;
  if (!spec->subcommands.empty()) {
    sub = LookupSubcommand(spec->subcommands, cmd[1]);
    if (sub == nullptr) return Err("Invalid command specified");
  }
  const AclCommandIds& ids = ctx.server.acl->ids();
  const AclKeyAccess& access = ids.entry(ids.IdOf(*spec, sub)).keys;
  const bool has_keys =
      sub != nullptr ? access.sub_key != 0
                     : spec->first_key > 0 || HasFlag(spec->flags, CommandFlags::kMovableKeys);
  if (!has_keys) return Err("The command has no key arguments");
  if (!ArityMatches(sub != nullptr ? sub->arity : spec->arity, cmd.size())) {
    return Err("Invalid number of arguments specified for command");
  }
  std::vector<FoundKey> keys;
  if (sub != nullptr) {
    keys.push_back({cmd[access.sub_key], KeySpecFlagsFor(access, cmd).first});
  } else {
    keys = KeysOfCommand(*spec, access, cmd);
  }
  if (keys.empty() && !HasFlag(spec->flags, CommandFlags::kNoMandatoryKeys)) {
    return Err("Invalid arguments specified for command");
  }
  return keys;
}

}  // namespace

// COMMAND GETKEYS command [arg ...]: the keys alone.
void CommandGetKeysSub(CommandContext& ctx, Args args) {
  auto keys = FindKeys(ctx, args.subspan(2));
  if (ReplyIfError(ctx, keys.status())) return;
  ctx.reply.Array(static_cast<int64_t>(keys->size()));
  for (const FoundKey& each : *keys) ctx.reply.Bulk(each.key);
}

// COMMAND GETKEYSANDFLAGS command [arg ...]: [key, {flags}] for each key.
void CommandGetKeysAndFlagsSub(CommandContext& ctx, Args args) {
  auto keys = FindKeys(ctx, args.subspan(2));
  if (ReplyIfError(ctx, keys.status())) return;
  ctx.reply.Array(static_cast<int64_t>(keys->size()));
  for (const FoundKey& each : *keys) {
    ctx.reply.Array(2);
    ctx.reply.Bulk(each.key);
    const std::vector<std::string_view> names = KeySpecFlagNames(each.flags);
    ctx.reply.Set(static_cast<int64_t>(names.size()));
    for (std::string_view name : names) ctx.reply.Simple(name);
  }
}

}  // namespace sluice::server
