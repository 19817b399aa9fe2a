#pragma once

// The command table: one entry per command, registered by each family's RegisterXCommands.
// The dispatcher does every generic check (lookup, arity, auth, flag gates) from the entry
// before a handler runs, so handlers only parse and execute.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/string_hash.h"
#include "server/command_tips.h"

namespace sluice::server {

struct CommandContext;
using Args = std::span<const std::string_view>;  // args[0] is the command name, as Redis's argv
using CommandHandler = void (*)(CommandContext& ctx, Args args);

enum class CommandFlags : uint32_t {
  kNone = 0,
  kWrite = 1u << 0,      // may modify the key space
  kReadOnly = 1u << 1,   // reads data only
  kFast = 1u << 2,       // O(1) or O(log n)
  kNoScript = 1u << 3,   // refused inside scripts
  kNoAuth = 1u << 4,     // allowed before authentication
  kAdmin = 1u << 5,      // server administration
  kAllowBusy = 1u << 6,  // allowed while a script is busy
  kNoMulti = 1u << 7,    // not queued inside MULTI (executed at once)
  kLoading = 1u << 8,
  kStale = 1u << 9,
  kBlocking = 1u << 10,     // may wait (BLOCK)
  kProtected = 1u << 11,    // DEBUG: only with enable-debug-command (yes, or local for loopback)
  kNotInMulti = 1u << 12,   // refused inside MULTI (Redis's no-multi: SAVE, SHUTDOWN)
  // The keys (some of them) follow a count in args[key_count_index] (EVAL and its kin, the
  // sorted-set algebra: ZUNIONSTORE, ZUNION ...).
  kMovableKeys = 1u << 13,
  kSkipSlowLog = 1u << 14,  // not in SLOWLOG (EXEC: the commands it ran are, one by one)
  kPubSub = 1u << 15,       // pub/sub (COMMAND INFO's flag and ACL category)
  // MONITOR shows it before it runs, not after (EVAL and its kin: before the commands of their
  // script), as Redis's skip_monitor commands, which feed MONITOR themselves.
  kSkipMonitor = 1u << 16,
  // COMMAND GETKEYS answers an empty array rather than an error for no keys (EVAL's key
  // count may be 0), Redis's no_mandatory_keys.
  kNoMandatoryKeys = 1u << 17,
  // May write though not a write command (PFCOUNT stores its cache), Redis's may_replicate:
  // refused in read-only scripts as writes are. COMMAND INFO does not show it, as Redis 7.0.
  kMayReplicate = 1u << 18,
  // The arguments from args[1] (only args[1] for arity 3) are shard channels, not keys
  // (SPUBLISH, SSUBSCRIBE): COMMAND INFO shows them as Redis's not_key key spec, where the
  // table's own key fields, which everything else reads, name no keys.
  kShardChannels = 1u << 19,
  // The flags below are sluice's facts about a command that Redis decides by comparing its
  // handler (processCommand, ACLCheckAllUserCommandPerm...). A flag costs the hot path one
  // bit test where a list of names cost compares, and goes with the command's registration,
  // where a list could miss a new command. COMMAND INFO shows none of them.
  //
  // Refused while the disk cannot be written, as writes are, though not a write (PING, as
  // Redis's processCommand).
  kRefusedOnDiskError = 1u << 20,
  // Runs a transaction's queued commands (EXEC): a refusal discards the transaction; a disk
  // error and CLIENT PAUSE WRITE judge it by what it queued.
  kRunsTransaction = 1u << 21,
  // Runs a script or function (EVAL, EVALSHA, FCALL and their _RO forms): its commands are
  // judged one by one as they run (disk errors, the keys tracking remembers), and its keys
  // need read and write (Redis's key specs: RW ACCESS UPDATE) unless it is read-only.
  kRunsScript = 1u << 22,
  // Pops from its first key and pushes onto its second (LMOVE, RPOPLPUSH and their blocking
  // forms): Redis signals the push's key first, and the ACL asks read and write of the
  // source, write of the destination (its key specs: RW ACCESS DELETE, RW INSERT).
  kListMove = 1u << 23,
  // The channels the ACL checks against a user's channel patterns, as Redis 7.2's channel
  // flags: args[1] is published to (PUBLISH, SPUBLISH); args[1...] are subscribed to
  // (SUBSCRIBE, SSUBSCRIBE), as patterns with kChannelPattern (PSUBSCRIBE), which must then
  // be one of the user's patterns to the letter.
  kChannelPublish = 1u << 24,
  kChannelSubscribe = 1u << 25,
  kChannelPattern = 1u << 26,
};

constexpr CommandFlags operator|(CommandFlags a, CommandFlags b) {
  return static_cast<CommandFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool HasFlag(CommandFlags set, CommandFlags flag) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(flag)) != 0;
}

// A container command's subcommand (CLIENT ID, CONFIG GET...). `arity` counts the command
// and the subcommand, as Redis's fullname arity ("client|id" is 2).
struct Subcommand {
  std::string_view name;  // lower case
  int arity;
  CommandHandler handler;
  bool admin = false;  // administrative where its command is not (CLIENT KILL): MONITOR hides it
  // Writes where its command does not (FUNCTION LOAD): as kWrite for this subcommand alone.
  bool write = false;
  CommandTips tips = {};  // its own, not its command's (COMMAND INFO; WithTips sets them)
  // Redis's ACL categories where they are not its command's (PUBSUB NUMSUB's @pubsub).
  std::span<const std::string_view> acl_categories = {};
};

// `sub` with Redis's tips (OBJECT ENCODING's nondeterministic_output).
constexpr Subcommand WithTips(Subcommand sub, CommandTips tips) {
  sub.tips = tips;
  return sub;
}

// `sub` with Redis's ACL categories in place of its command's (acl/categories.h).
constexpr Subcommand WithAclCategories(Subcommand sub,
                                       std::span<const std::string_view> categories) {
  sub.acl_categories = categories;
  return sub;
}

// How a kMovableKeys command whose keys no count describes finds them (SORT's STORE
// destination): Redis's getkeys_proc, and the key specs COMMAND INFO shows for them, which Redis
// marks "unknown" (no begin_search or find_keys of their own).
struct KeyFinder {
  struct UnknownKeySpec {
    bool write;              // "OW update" (a destination), else "RO access"
    std::string_view notes;  // Redis's text
  };
  // The keys besides first_key..last_key, which it treats as read-only (SORT's source).
  std::vector<std::string_view> (*keys)(Args args);
  std::span<const UnknownKeySpec> unknown_specs;
};

// A key named by the argument after a keyword (GEORADIUS's STORE and STOREDIST), as Redis 7's
// keyword key specs find it: the first argument from args[start_from] on, before the last one,
// that is `keyword` in any case.
struct KeywordKey {
  std::string_view keyword;  // upper case, as COMMAND INFO shows it
  int start_from;
};

struct CommandSpec {
  std::string_view name;  // lower case
  int arity;              // Redis's convention: N exact, -N at least N (name included)
  CommandFlags flags;
  int first_key;          // 0: no keys
  int last_key;           // -1: last argument
  int key_step;
  CommandHandler handler;
  std::string_view group = "generic";  // COMMAND DOCS group (the rest: server/command_docs.h)
  // A container command's subcommands: the dispatcher checks the name and arity of the one
  // args[1] names before the command runs or is queued in MULTI, as Redis does.
  std::span<const Subcommand> subcommands = {};
  // kMovableKeys: where the key count is (EVAL's args[2], ZUNION's args[1]); the keys follow
  // it. Any keys first_key to last_key name come before them (ZUNIONSTORE's destination).
  int key_count_index = 2;
  // kMovableKeys: the keys found by the command itself instead of after a count (SORT).
  const KeyFinder* key_finder = nullptr;
  // Redis's ACL categories where they do not follow from the flags and group (SORT's).
  std::span<const std::string_view> acl_categories = {};
  // kMovableKeys with keys after keywords instead of a count (GEORADIUS's STORE key), besides
  // the range first_key to last_key (its source).
  std::span<const KeywordKey> keyword_keys = {};
  // Redis's tips (COMMAND INFO): DBSIZE's request_policy:all_shards, response_policy:agg_sum.
  CommandTips tips = {};
  // Set by CommandTable::Register: the command's slot in per-command counters (OpsStats).
  size_t index = 0;
};

// `spec` with its keys after the count in args[index] (kMovableKeys: LMPOP's args[1]).
inline CommandSpec WithKeyCountAt(CommandSpec spec, int index) {
  spec.key_count_index = index;
  return spec;
}

// `spec` with keys after keywords (kMovableKeys: GEORADIUS's STORE and STOREDIST).
inline CommandSpec WithKeywordKeys(CommandSpec spec, std::span<const KeywordKey> keys) {
  spec.keyword_keys = keys;
  return spec;
}

// `spec` with Redis's tips (KEYS' request_policy:all_shards, nondeterministic_output_order).
inline CommandSpec WithTips(CommandSpec spec, CommandTips tips) {
  spec.tips = tips;
  return spec;
}

// `spec` with Redis's ACL categories where its flags and group do not give them (acl/categories.h).
inline CommandSpec WithAclCategories(CommandSpec spec,
                                     std::span<const std::string_view> categories) {
  spec.acl_categories = categories;
  return spec;
}

// Redis's arity convention: N exactly, -N at least N.
inline bool ArityMatches(int arity, size_t argc) {
  return arity > 0 ? argc == static_cast<size_t>(arity) : argc >= static_cast<size_t>(-arity);
}

// Whether args[1] names one of the container's subcommands to check (a container alone, such
// as COMMAND, is the command itself).
inline bool HasSubcommand(const CommandSpec& spec, Args args) {
  return !spec.subcommands.empty() && args.size() >= 2;
}

// Redis 7's name of a command ("get") or of a container's subcommand ("config|get").
std::string FullName(const CommandSpec& spec, const Subcommand* sub);

// The subcommand called `name` (any case), or nullptr.
const Subcommand* LookupSubcommand(std::span<const Subcommand> subcommands, std::string_view name);

// The subcommand a request names, looked up with its command as Redis's lookupCommand does:
// `given` when `spec` (nullptr: an unknown command) is a container and args[1] is there,
// `sub` nullptr when that names none of its subcommands.
struct RequestSubcommand {
  bool given = false;
  const Subcommand* sub = nullptr;
};
inline RequestSubcommand LookupRequestSubcommand(const CommandSpec* spec, Args args) {
  if (spec == nullptr || !HasSubcommand(*spec, args)) return {};
  return {true, LookupSubcommand(spec->subcommands, args[1])};
}

// Whether a request writes: a kWrite command, or a container's write subcommand (FUNCTION
// LOAD), `named` being its subcommand as looked up already.
inline bool IsWriteRequest(const CommandSpec& spec, RequestSubcommand named) {
  return HasFlag(spec.flags, CommandFlags::kWrite) || (named.sub != nullptr && named.sub->write);
}

// What the dispatcher did with a request: `writes` when it ran (neither refused nor queued) and
// is a write request (IsWriteRequest), from the dispatcher's own lookup, so the session (which
// keeps a write's reply until its writes are committed) needs none.
struct Dispatched {
  bool writes = false;
};

// The argument indexes first_key..last_key (every key_step-th) of a request with `argc`
// arguments, `last` clamped to the arguments; empty (last < first) for a command with none.
struct KeyRange {
  int first = 1;
  int last = 0;  // inclusive
  int step = 1;
  // More than one key in the range (DEL a b; not GET a).
  bool several() const { return first + step <= last; }
};
KeyRange RangeKeys(const CommandSpec& spec, size_t argc);

// The keys after the key count of a kMovableKeys command (EVAL's, ZUNION's, LMPOP's); none for
// another command, or for a count that is not a number, is not positive, or passes the
// arguments (as Redis's key specs find none then). A command with a key_finder: its keys; one
// with keyword_keys: every key after one of its keywords.
std::vector<std::string_view> CountedKeys(const CommandSpec& spec, Args args);
// The keys after a command's keywords, in the order of its keyword_keys: the first one each
// keyword is followed by, as Redis's key specs find them (COMMAND GETKEYS), or, with `every`,
// all of them (a command may repeat STORE: the last one is written, and WATCH must see it).
std::vector<std::string_view> KeywordKeys(const CommandSpec& spec, Args args, bool every = false);

// Redis's error for args[1] naming `sub` (nullptr: none): "unknown subcommand 'x'. Try CONFIG
// HELP." or "wrong number of arguments for 'client|id' command"; Ok if it may run.
Status CheckSubcommand(Args args, const Subcommand* sub);
// The subcommand args[1] names, or CheckSubcommand's error.
StatusOr<const Subcommand*> FindSubcommand(Args args, std::span<const Subcommand> subcommands);

class CommandTable {
 public:
  void Register(const CommandSpec& spec);
  // Case-insensitive lookup; nullptr if unknown.
  const CommandSpec* Find(std::string_view name) const;
  // A command or subcommand by its full name ("get", "CONFIG|GET"); {nullptr, nullptr} if none.
  std::pair<const CommandSpec*, const Subcommand*> FindByFullName(std::string_view name) const;
  // rename-command: `new_name` empty disables the command. Refused as Redis refuses it at
  // start: `name` unknown (after the renames before it), or `new_name` taken.
  Status Rename(std::string_view name, std::string_view new_name);
  const std::vector<const CommandSpec*>& All() const { return all_; }
  size_t size() const { return all_.size(); }

 private:
  std::vector<std::unique_ptr<CommandSpec>> storage_;
  std::vector<const CommandSpec*> all_;
  StringMap<const CommandSpec*> by_name_;
};

}  // namespace sluice::server
