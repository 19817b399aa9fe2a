// COMMAND (COUNT, LIST, INFO, DOCS; GETKEYS and GETKEYSANDFLAGS in command_getkeys.cc) and
// CONFIG (GET, SET, RESETSTAT, REWRITE).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/glob_match.h"
#include "resp/error_messages.h"
#include "server/acl/categories.h"
#include "server/acl/key_access.h"
#include "server/acl/registry.h"
#include "server/acl/user.h"
#include "server/arg_cursor.h"
#include "server/command_docs.h"
#include "server/commands/command_getkeys.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/script_bridge.h"

namespace sluice::server {
namespace {

struct FlagName {
  CommandFlags flag;
  std::string_view name;
};

// In Redis 7.0's order.
constexpr FlagName kFlagNames[] = {
    {CommandFlags::kWrite, "write"},
    {CommandFlags::kReadOnly, "readonly"},
    {CommandFlags::kAdmin, "admin"},
    {CommandFlags::kPubSub, "pubsub"},
    {CommandFlags::kNoScript, "noscript"},
    {CommandFlags::kBlocking, "blocking"},
    {CommandFlags::kLoading, "loading"},
    {CommandFlags::kStale, "stale"},
    {CommandFlags::kSkipMonitor, "skip_monitor"},
    {CommandFlags::kSkipSlowLog, "skip_slowlog"},
    {CommandFlags::kFast, "fast"},
    {CommandFlags::kNoAuth, "no_auth"},
    {CommandFlags::kNoMandatoryKeys, "no_mandatory_keys"},
    {CommandFlags::kNotInMulti, "no_multi"},
    {CommandFlags::kMovableKeys, "movablekeys"},
    {CommandFlags::kAllowBusy, "allow_busy"},
};

// A command's or subcommand's tips: bulk strings, a set in RESP3, as Redis 7.0 sends them.
void ReplyTips(CommandContext& ctx, CommandTips tips) {
  ctx.reply.Set(static_cast<int64_t>(tips.list().size()));
  for (CommandTip tip : tips.list()) ctx.reply.Bulk(CommandTipName(tip));
}

// The flags of a key spec, as the ACL decides from them (server/acl/key_access.h).
void ReplyKeySpecFlags(CommandContext& ctx, KeySpecFlags flags) {
  ctx.reply.Bulk("flags");
  const std::vector<std::string_view> names = KeySpecFlagNames(flags);
  ctx.reply.Set(static_cast<int64_t>(names.size()));
  for (std::string_view name : names) ctx.reply.Simple(name);
}

// kShardChannels: where COMMAND INFO's first and last key point (args[1], to the end unless
// the command takes one channel and a message).
int ShardChannelsLast(const CommandSpec& spec) { return spec.arity == 3 ? 1 : -1; }

// find_keys as a range: from the key the search found to `last_key` (relative to it), every
// `key_step`th.
void ReplyKeyRange(CommandContext& ctx, int last_key, int key_step) {
  ctx.reply.Bulk("find_keys");
  ctx.reply.Map(2);
  ctx.reply.Bulk("type");
  ctx.reply.Bulk("range");
  ctx.reply.Bulk("spec");
  ctx.reply.Map(3);
  ctx.reply.Bulk("lastkey");
  ctx.reply.Int(last_key);
  ctx.reply.Bulk("keystep");
  ctx.reply.Int(key_step);
  ctx.reply.Bulk("limit");
  ctx.reply.Int(0);
}

// A key after a keyword (GEORADIUS's STORE key), written as Redis's OW update.
void ReplyKeywordKeySpec(CommandContext& ctx, const KeywordKey& key) {
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(2);
  ctx.reply.Simple("OW");
  ctx.reply.Simple("update");
  ctx.reply.Bulk("begin_search");
  ctx.reply.Map(2);
  ctx.reply.Bulk("type");
  ctx.reply.Bulk("keyword");
  ctx.reply.Bulk("spec");
  ctx.reply.Map(2);
  ctx.reply.Bulk("keyword");
  ctx.reply.Bulk(key.keyword);
  ctx.reply.Bulk("startfrom");
  ctx.reply.Int(key.start_from);
  ReplyKeyRange(ctx, /*last_key=*/0, /*key_step=*/1);
}

// begin_search at a fixed argument index.
void ReplyBeginSearchIndex(CommandContext& ctx, int index) {
  ctx.reply.Bulk("begin_search");
  ctx.reply.Map(2);
  ctx.reply.Bulk("type");
  ctx.reply.Bulk("index");
  ctx.reply.Bulk("spec");
  ctx.reply.Map(1);
  ctx.reply.Bulk("index");
  ctx.reply.Int(index);
}

// One key spec: Redis's notes if it has any, its flags, where the search begins, and a range
// (lastkey relative to the first key) or, when `keynum`, EVAL's shape: the count first, then
// the keys.
void ReplyKeySpec(CommandContext& ctx, KeySpecFlags flags, int begin_index, bool keynum,
                  int last_key, int key_step, std::string_view notes = {}) {
  ctx.reply.Map(notes.empty() ? 3 : 4);
  if (!notes.empty()) {
    ctx.reply.Bulk("notes");
    ctx.reply.Bulk(notes);
  }
  ReplyKeySpecFlags(ctx, flags);
  ReplyBeginSearchIndex(ctx, begin_index);
  if (keynum) {
    ctx.reply.Bulk("find_keys");
    ctx.reply.Map(2);
    ctx.reply.Bulk("type");
    ctx.reply.Bulk("keynum");
    ctx.reply.Bulk("spec");
    ctx.reply.Map(3);
    ctx.reply.Bulk("keynumidx");
    ctx.reply.Int(0);
    ctx.reply.Bulk("firstkey");
    ctx.reply.Int(1);
    ctx.reply.Bulk("keystep");
    ctx.reply.Int(1);
    return;
  }
  ReplyKeyRange(ctx, last_key, key_step);
}

struct KeySpecNotes {
  std::string_view command;
  std::string_view notes;
};

// The notes Redis 7.0.15 gives a command's one key spec: why its flags are what they are.
constexpr std::string_view kScriptKeysWrite =
    "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE";
constexpr std::string_view kScriptKeysRead =
    "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS";
constexpr KeySpecNotes kKeySpecNotes[] = {
    {"set", "RW and ACCESS due to the optional `GET` argument"},
    {"getex", "RW and UPDATE because it changes the TTL"},
    {"bitfield", "This command allows both access and modification of the key"},
    {"pfcount",
     "RW because it may change the internal representation of the key, and propagate to "
     "replicas"},
    {"eval", kScriptKeysWrite},
    {"fcall", kScriptKeysWrite},
    {"eval_ro", kScriptKeysRead},
    {"fcall_ro", kScriptKeysRead},
};

std::string_view KeySpecNotesOf(const CommandSpec& spec) {
  for (const KeySpecNotes& each : kKeySpecNotes) {
    if (each.command == spec.name) return each.notes;
  }
  return {};
}

// A key spec Redis marks "unknown" (SORT's BY/GET keys and STORE destination): its notes and
// flags, and no begin_search or find_keys of its own.
void ReplyUnknownKeySpec(CommandContext& ctx, const KeyFinder::UnknownKeySpec& spec) {
  ctx.reply.Map(4);
  ctx.reply.Bulk("notes");
  ctx.reply.Bulk(spec.notes);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(2);
  ctx.reply.Simple(spec.write ? "OW" : "RO");
  ctx.reply.Simple(spec.write ? "update" : "access");
  for (std::string_view part : {"begin_search", "find_keys"}) {
    ctx.reply.Bulk(part);
    ctx.reply.Map(2);
    ctx.reply.Bulk("type");
    ctx.reply.Bulk("unknown");
    ctx.reply.Bulk("spec");
    ctx.reply.Map(0);
  }
}

// SPUBLISH's and SSUBSCRIBE's one spec: Redis's not_key, the shard channels from args[1].
void ReplyShardChannelsKeySpec(CommandContext& ctx, const CommandSpec& spec) {
  ctx.reply.Set(1);
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(1);
  ctx.reply.Simple("not_key");
  ReplyBeginSearchIndex(ctx, 1);
  const int last = ShardChannelsLast(spec);
  ReplyKeyRange(ctx, last < 0 ? last : 0, /*key_step=*/1);
}

// The lastkey of a range spec of `spec`'s keys that begins at argument `begin`: relative to it,
// or the table's negative last_key (counted from the end) as it is.
int RangeLastKey(const CommandSpec& spec, int begin) {
  return spec.last_key < 0 ? spec.last_key : spec.last_key - begin;
}

// A command with a key finder (SORT): its range, which it only reads, then the unknown specs.
void ReplyFinderKeySpecs(CommandContext& ctx, const CommandSpec& spec) {
  const auto& unknown = spec.key_finder->unknown_specs;
  ctx.reply.Set(1 + static_cast<int64_t>(unknown.size()));
  ReplyKeySpec(ctx, kKeyReads, spec.first_key, /*keynum=*/false,
               RangeLastKey(spec, spec.first_key), spec.key_step);
  for (const KeyFinder::UnknownKeySpec& each : unknown) ReplyUnknownKeySpec(ctx, each);
}

// Redis 7's key specs, derived from first/last/step and the key count of kMovableKeys: enough
// for clients' key extraction. A set in RESP3, as Redis 7.0 sends it. A range whose first key
// plays another role than the later ones (COPY's source and destination, SINTERSTORE's
// destination and sources, LMOVE's) is two specs, one per role, with the flags the ACL keeps
// for each (server/acl/key_access.h). ZUNIONSTORE has its destination (a range), then the
// sources after their count, which it only reads. A command with a key finder (SORT) has
// Redis's own specs (ReplyFinderKeySpecs). GEORADIUS has its source (a range it reads), then a
// spec per keyword its STORE key may follow.
void ReplyKeySpecs(CommandContext& ctx, const CommandSpec& spec) {
  if (HasFlag(spec.flags, CommandFlags::kShardChannels)) {
    ReplyShardChannelsKeySpec(ctx, spec);
    return;
  }
  if (spec.key_finder != nullptr) {
    ReplyFinderKeySpecs(ctx, spec);
    return;
  }
  const auto& keywords = spec.keyword_keys;
  const bool after_count = HasFlag(spec.flags, CommandFlags::kMovableKeys) && keywords.empty();
  const bool range = spec.first_key > 0;
  // A command whose flags its arguments decide (SET ... GET) has what it may do stored.
  const AclKeyAccess& access = ctx.server.acl->ids().entry(spec.index).keys;
  const bool per_role =
      range && spec.last_key != spec.first_key && access.first_flags != access.rest_flags;
  ctx.reply.Set((range ? 1 : 0) + (per_role ? 1 : 0) + (after_count ? 1 : 0) +
                static_cast<int64_t>(keywords.size()));
  if (per_role) {
    const int rest = spec.first_key + spec.key_step;
    ReplyKeySpec(ctx, access.first_flags, spec.first_key, /*keynum=*/false, 0, 1);
    ReplyKeySpec(ctx, access.rest_flags, rest, /*keynum=*/false, RangeLastKey(spec, rest),
                 spec.key_step);
  } else if (range) {
    ReplyKeySpec(ctx, access.first_flags, spec.first_key, /*keynum=*/false,
                 RangeLastKey(spec, spec.first_key), spec.key_step, KeySpecNotesOf(spec));
  }
  for (const KeywordKey& key : keywords) ReplyKeywordKeySpec(ctx, key);
  if (after_count) {
    const KeySpecFlags counted = range ? access.rest_flags : access.first_flags;
    ReplyKeySpec(ctx, counted, spec.key_count_index, /*keynum=*/true, 0, 0,
                 range ? std::string_view() : KeySpecNotesOf(spec));
  }
}

// One COMMAND INFO entry: the command's, or (`sub`) one of its subcommands'. A subcommand here
// has the container's flags and categories (plus write, for a write subcommand such as
// FUNCTION LOAD), its own arity and tips, and its one key if it takes one (OBJECT ENCODING key).
void ReplyInfoEntry(CommandContext& ctx, const CommandSpec& container, const Subcommand* sub) {
  CommandSpec spec = container;
  if (sub != nullptr && sub->write) spec.flags = spec.flags | CommandFlags::kWrite;
  // EVAL, FCALL and EXEC are writes to sluice (a failed commit fails them whole), not in
  // Redis's table: what they write is decided by the commands they run.
  if (HasFlag(spec.flags, CommandFlags::kRunsScript) ||
      HasFlag(spec.flags, CommandFlags::kRunsTransaction)) {
    spec.flags = static_cast<CommandFlags>(static_cast<uint32_t>(spec.flags) &
                                           ~static_cast<uint32_t>(CommandFlags::kWrite));
  }
  ctx.reply.Array(10);
  ctx.reply.Bulk(FullName(spec, sub));
  ctx.reply.Int(sub == nullptr ? spec.arity : sub->arity);
  // A container that runs only through a subcommand (CONFIG, CLIENT: arity -2, unlike
  // COMMAND) shows no flags itself, as Redis 7.0's: its subcommands have them.
  const bool bare_container = sub == nullptr && !spec.subcommands.empty() && spec.arity == -2;
  auto shown = [&](const FlagName& f) { return !bare_container && HasFlag(spec.flags, f.flag); };
  ctx.reply.Set(std::count_if(std::begin(kFlagNames), std::end(kFlagNames), shown));
  for (const FlagName& f : kFlagNames) {
    if (shown(f)) ctx.reply.Simple(f.name);
  }
  // A subcommand's one key (OBJECT ENCODING key), where the ACL finds it.
  const AclCommandIds& ids = ctx.server.acl->ids();
  const AclKeyAccess* sub_access =
      sub == nullptr ? nullptr : &ids.entry(ids.IdOf(container, sub)).keys;
  const int sub_key = sub_access == nullptr ? 0 : sub_access->sub_key;
  if (HasFlag(spec.flags, CommandFlags::kShardChannels)) {
    ctx.reply.Int(1);
    ctx.reply.Int(ShardChannelsLast(spec));
    ctx.reply.Int(1);
  } else if (sub != nullptr) {
    ctx.reply.Int(sub_key);
    ctx.reply.Int(sub_key);
    ctx.reply.Int(sub_key != 0 ? 1 : 0);
  } else {
    ctx.reply.Int(spec.first_key);
    ctx.reply.Int(spec.last_key);
    ctx.reply.Int(spec.key_step);
  }
  const std::vector<std::string> categories =
      AclCategoryNames(ids.entry(ids.IdOf(container, sub)).categories);
  ctx.reply.Set(static_cast<int64_t>(categories.size()));
  for (const std::string& category : categories) ctx.reply.Simple(category);
  ReplyTips(ctx, sub == nullptr ? spec.tips : sub->tips);
  if (sub != nullptr) {
    ctx.reply.Set(sub_key != 0 ? 1 : 0);  // key specs
    if (sub_key != 0) ReplyKeySpec(ctx, sub_access->first_flags, sub_key, /*keynum=*/false, 0, 1);
    ctx.reply.Set(0);  // subcommands
    return;
  }
  ReplyKeySpecs(ctx, spec);
  // Redis 7.0: an array of subcommands, but an empty set when there are none.
  if (spec.subcommands.empty()) {
    ctx.reply.Set(0);
    return;
  }
  ctx.reply.Array(static_cast<int64_t>(spec.subcommands.size()));
  for (const Subcommand& each : spec.subcommands) ReplyInfoEntry(ctx, container, &each);
}

void ReplyCommandInfo(CommandContext& ctx, const CommandSpec* spec, const Subcommand* sub) {
  if (spec == nullptr) {
    ctx.reply.Null();  // Redis's addReplyNull: $-1 in RESP2
    return;
  }
  ReplyInfoEntry(ctx, *spec, sub);
}

// A documented argument as Redis 7.0 shows it: name, type, then key_spec_index, token, flags
// and nested arguments, each only when it has one.
void ReplyDocArgs(CommandContext& ctx, const std::vector<DocArg>& args) {
  ctx.reply.Array(static_cast<int64_t>(args.size()));
  for (const DocArg& arg : args) {
    const int flags = int{arg.optional} + int{arg.multiple} + int{arg.multiple_token};
    ctx.reply.Map(2 + int{arg.key_spec_index >= 0} + int{arg.token.has_value()} + int{flags > 0} +
                  int{!arg.arguments.empty()});
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(arg.name);
    ctx.reply.Bulk("type");
    ctx.reply.Bulk(DocArgTypeName(arg.type));
    if (arg.key_spec_index >= 0) {
      ctx.reply.Bulk("key_spec_index");
      ctx.reply.Int(arg.key_spec_index);
    }
    if (arg.token) {
      ctx.reply.Bulk("token");
      ctx.reply.Bulk(*arg.token);
    }
    if (flags > 0) {
      ctx.reply.Bulk("flags");
      ctx.reply.Set(flags);
      if (arg.optional) ctx.reply.Simple("optional");
      if (arg.multiple) ctx.reply.Simple("multiple");
      if (arg.multiple_token) ctx.reply.Simple("multiple_token");
    }
    if (!arg.arguments.empty()) {
      ctx.reply.Bulk("arguments");
      ReplyDocArgs(ctx, arg.arguments);
    }
  }
}

// One command's or subcommand's docs, in Redis 7.0's order: summary, since, group (no
// complexity or history), arguments if it has any, and a container's subcommands.
void ReplyDocsBody(CommandContext& ctx, const CommandSpec& spec, const Subcommand* sub) {
  const CommandDoc* doc = FindCommandDoc(FullName(spec, sub));
  const bool has_args = doc != nullptr && !doc->arguments.empty();
  const bool container = sub == nullptr && !spec.subcommands.empty();
  ctx.reply.Map(3 + int{has_args} + int{container});
  ctx.reply.Bulk("summary");
  ctx.reply.Bulk(doc != nullptr ? doc->summary : "");
  ctx.reply.Bulk("since");
  ctx.reply.Bulk(doc != nullptr ? doc->since : "1.0.0");
  ctx.reply.Bulk("group");
  ctx.reply.Bulk(spec.group);
  if (has_args) {
    ctx.reply.Bulk("arguments");
    ReplyDocArgs(ctx, doc->arguments);
  }
  if (container) {
    ctx.reply.Bulk("subcommands");
    ctx.reply.Map(static_cast<int64_t>(spec.subcommands.size()));
    for (const Subcommand& each : spec.subcommands) {
      ctx.reply.Bulk(FullName(spec, &each));
      ReplyDocsBody(ctx, spec, &each);
    }
  }
}

void ReplyCommandDocs(CommandContext& ctx, const CommandSpec& spec, const Subcommand* sub) {
  ctx.reply.Bulk(FullName(spec, sub));
  ReplyDocsBody(ctx, spec, sub);
}

void ReplyAllInfo(CommandContext& ctx) {
  const auto& all = ctx.server.commands->All();
  ctx.reply.Array(static_cast<int64_t>(all.size()));
  for (const CommandSpec* spec : all) ReplyCommandInfo(ctx, spec, nullptr);
}

void CountSub(CommandContext& ctx, Args) {
  ctx.reply.Int(static_cast<int64_t>(ctx.server.commands->size()));
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern].
void CommandListSub(CommandContext& ctx, Args args) {
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  std::string_view filter_arg;
  for (size_t i = 2; i < args.size(); ++i) {
    const size_t more = args.size() - 1 - i;
    if (!EqualsIgnoreCase(args[i], "filterby") || more != 2) {
      ReplyError(ctx, SyntaxError());
      return;
    }
    std::string_view type = args[i + 1];
    if (EqualsIgnoreCase(type, "module")) {
      filter = Filter::kModule;
    } else if (EqualsIgnoreCase(type, "aclcat")) {
      filter = Filter::kAclCat;
    } else if (EqualsIgnoreCase(type, "pattern")) {
      filter = Filter::kPattern;
    } else {
      ReplyError(ctx, SyntaxError());
      return;
    }
    filter_arg = args[i + 2];
    i += 2;
  }
  const AclCommandIds& ids = ctx.server.acl->ids();
  std::optional<int> category;
  if (filter == Filter::kAclCat) category = AclCategoryIndex(filter_arg);
  auto keep = [&](const CommandSpec& spec, const Subcommand* sub, std::string_view name) {
    switch (filter) {
      case Filter::kNone:
        return true;
      case Filter::kModule:
        return false;  // no modules
      case Filter::kAclCat:
        return category && (ids.entry(ids.IdOf(spec, sub)).categories & (1u << *category)) != 0;
      case Filter::kPattern:
        return GlobMatch(filter_arg, name, /*nocase=*/true);
    }
    return false;
  };
  // Each command, then its subcommands ("config|get"), as Redis 7.0 lists them.
  std::vector<std::string> names;
  for (const CommandSpec* spec : ctx.server.commands->All()) {
    for (size_t i = 0; i <= spec->subcommands.size(); ++i) {
      const Subcommand* sub = i == 0 ? nullptr : &spec->subcommands[i - 1];
      std::string name = FullName(*spec, sub);
      if (keep(*spec, sub, name)) names.push_back(std::move(name));
    }
  }
  ReplyBulks(ctx, names);
}

void CommandInfoSub(CommandContext& ctx, Args args) {
  if (args.size() == 2) {
    ReplyAllInfo(ctx);
    return;
  }
  ctx.reply.Array(static_cast<int64_t>(args.size() - 2));
  for (size_t i = 2; i < args.size(); ++i) {
    auto [spec, sub] = ctx.server.commands->FindByFullName(args[i]);
    ReplyCommandInfo(ctx, spec, sub);
  }
}

void DocsSub(CommandContext& ctx, Args args) {
  // Commands, or subcommands by their full names ("client|kill"), as Redis looks them up.
  std::vector<std::pair<const CommandSpec*, const Subcommand*>> wanted;
  if (args.size() == 2) {
    for (const CommandSpec* spec : ctx.server.commands->All()) wanted.emplace_back(spec, nullptr);
  } else {
    for (size_t i = 2; i < args.size(); ++i) {
      auto found = ctx.server.commands->FindByFullName(args[i]);
      if (found.first != nullptr) wanted.push_back(found);
    }
  }
  ctx.reply.Map(static_cast<int64_t>(wanted.size()));
  for (auto [spec, sub] : wanted) ReplyCommandDocs(ctx, *spec, sub);
}

void CommandHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "(no subcommand)",
      "    Return details about all commands.",
      "COUNT",
      "    Return the total number of commands in this server.",
      "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
      "    Return a list of all commands in this server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple commands.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple commands.",
      "GETKEYS <full-command>",
      "    Return the keys from a full command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full command."};
  ReplyHelp(ctx, "COMMAND", kLines);
}

constexpr Subcommand kCommandSubcommands[] = {
    {"count", 2, CountSub},
    WithTips({"list", -2, CommandListSub}, kInAnyOrder),
    WithTips({"info", -2, CommandInfoSub}, kInAnyOrder),
    WithTips({"docs", -2, DocsSub}, kInAnyOrder),
    {"getkeys", -4, CommandGetKeysSub},
    {"getkeysandflags", -4, CommandGetKeysAndFlagsSub},
    {"help", 2, CommandHelpSub},
};

void CommandCommand(CommandContext& ctx, Args args) {
  if (args.size() == 1) {
    ReplyAllInfo(ctx);
    return;
  }
  DispatchSubcommand(ctx, args, kCommandSubcommands);
}

void ConfigGetSub(CommandContext& ctx, Args args) {
  auto pairs = ConfigGet(*ctx.server.config, args.subspan(2));
  ctx.reply.Map(static_cast<int64_t>(pairs.size()));
  for (const auto& [name, value] : pairs) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

void ConfigSetSub(CommandContext& ctx, Args args) {
  Config previous = *ctx.server.config;
  if (ReplyIfError(ctx, ConfigSet(ctx.server.config, args.subspan(2)))) return;
  if (Status applied = ctx.server.actions->OnConfigChanged(previous); !applied.ok()) {
    *ctx.server.config = previous;
    ReplyError(ctx, applied);
    return;
  }
  for (size_t i = 2; i + 1 < args.size(); i += 2) {
    if (EqualsIgnoreCase(args[i], "requirepass")) continue;  // never log passwords
    spdlog::info("CONFIG SET {} {}", args[i], args[i + 1]);
  }
  ctx.reply.Ok();
}

void ConfigResetStatSub(CommandContext& ctx, Args) {
  // Every count INFO, /metrics and the status page report starts over, as Redis's stats,
  // commandstats and errorstats do: the limiters' decisions (totals, per algorithm, per
  // policy), their times and the most throttled keys too.
  ctx.server.stats = ServerStats{};
  ctx.server.ops.Reset();
  ctx.server.rates = InstantaneousRates{};  // and the instantaneous_* samples
  ctx.server.limiter_totals = LimiterCounters{};
  ctx.server.policies.ResetCounters();
  ctx.server.persistence.log_rewrites = 0;  // INFO's aof_rewrites, as Redis's stat
  if (ctx.server.scripts) ctx.server.scripts->engine().ResetEvictedScripts();
  ctx.engine().ResetRecordCacheCounters();
  ctx.reply.Ok();
}

void ConfigHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file."};
  ReplyHelp(ctx, "CONFIG", kLines);
}

// The users and policies as they are now, for the rewritten file. With an ACL file the users
// are its own (ACL SAVE): the config file gets none, as in Redis.
RewriteSources CurrentRewriteSources(const ServerContext& server) {
  RewriteSources sources;
  if (server.config->aclfile.empty()) {
    for (const std::string& name : server.acl->Names()) {
      sources.users.push_back(name + " " +
                              DescribeAclUser(*server.acl->Find(name), server.acl->ids()));
    }
  }
  for (const auto& [name, entry] : server.policies.all()) {
    sources.policies.emplace(name, entry.definition.Canonical());
  }
  return sources;
}

void ConfigRewriteSub(CommandContext& ctx, Args) {
  if (ctx.server.config_file.empty()) {
    ReplyError(ctx, Err("The server is running without a config file"));
    return;
  }
  Status written = RewriteConfigFile(ctx.server.config_file, *ctx.server.config,
                                     CurrentRewriteSources(ctx.server));
  if (!written.ok()) {
    spdlog::warn("CONFIG REWRITE failed: {}", written.message());
    ReplyError(ctx, Err("Rewriting config file: " + written.message()));
    return;
  }
  spdlog::info("CONFIG REWRITE executed with success.");
  ctx.reply.Ok();
}

constexpr Subcommand kConfigSubcommands[] = {
    {"get", -3, ConfigGetSub},
    WithTips({"set", -4, ConfigSetSub}, kOnAllNodes),
    {"resetstat", 2, ConfigResetStatSub},
    {"rewrite", 2, ConfigRewriteSub},
    {"help", 2, ConfigHelpSub},
};

void ConfigCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kConfigSubcommands);
}

}  // namespace

void RegisterIntrospectionCommands(CommandTable& table) {
  using F = CommandFlags;
  static constexpr std::string_view kCommandCategories[] = {"@slow", "@connection"};
  table.Register(WithAclCategories(WithTips({"command", -1, F::kLoading | F::kStale, 0, 0, 0,
                                             CommandCommand, "server", kCommandSubcommands},
                                            kInAnyOrder),
                                   kCommandCategories));
  table.Register({"config", -2, F::kAdmin | F::kNoScript | F::kLoading | F::kStale, 0, 0, 0,
                  ConfigCommand, "server", kConfigSubcommands});
}

}  // namespace sluice::server
