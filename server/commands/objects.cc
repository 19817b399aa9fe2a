// What a key is made of: OBJECT ENCODING|FREQ|REFCOUNT|HELP (MEMORY USAGE: memory.cc), for
// the tools that ask (redis-cli --memkeys, key browsers). Replies follow Redis 7.0's shapes; the
// numbers are sluice's own (docs/notes.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/set_reply.h"
#include "storage/composite.h"
#include "storage/hash_type.h"
#include "storage/set_type.h"
#include "storage/zset_key.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;

// Redis 7.0's default listpack limits for hashes (hash-max-listpack-entries and -value) and
// the longest string it embeds in its object header (OBJ_ENCODING_EMBSTR_SIZE_LIMIT).
constexpr uint64_t kListpackEntries = storage::HashType::kScanWhole;
constexpr size_t kListpackValue = 64;
constexpr size_t kEmbstrLimit = 44;

// Redis's tryObjectEncoding for a string set by SET: "int" when it reads as a 64-bit integer
// (string2ll: no sign but '-', no leading zero, no space) of at most 20 bytes.
std::string_view StringEncoding(std::string_view value) {
  int64_t ignored = 0;
  if (value.size() <= 20 && ParseInt64(value, &ignored)) return "int";
  return value.size() <= kEmbstrLimit ? "embstr" : "raw";
}

StatusOr<std::string_view> HashEncoding(CommandContext& ctx, std::string_view key,
                                        const Record& record) {
  if (record.meta.size > kListpackEntries) return std::string_view("hashtable");
  auto pairs = storage::HashType(ctx.engine(), ctx.now_ms).GetAllOf(key, record);
  if (!pairs.ok()) return pairs.status();
  for (const auto& [field, value] : *pairs) {
    if (field.size() > kListpackValue || value.size() > kListpackValue) {
      return std::string_view("hashtable");
    }
  }
  return std::string_view("listpack");
}

// Redis 7.0 has no listpack sets (7.2 does): an intset or a hash table.
StatusOr<std::string_view> SetEncoding(CommandContext& ctx, std::string_view key,
                                       const Record& record) {
  if (record.meta.size > kIntsetEntries) return std::string_view("hashtable");
  auto members = storage::SetType(ctx.engine(), ctx.now_ms).MembersOf(key, record);
  if (!members.ok()) return members.status();
  return std::string_view(FitsIntset(*members) ? "intset" : "hashtable");
}

// The name Redis 7.0 would give the key's value, from what it holds now (see docs/notes.md for
// where Redis's history-dependent answer differs).
StatusOr<std::string_view> EncodingOf(CommandContext& ctx, std::string_view key,
                                      const Record& record) {
  switch (record.meta.type) {
    case KeyType::kString:  // a long string's bytes are not read: it is "raw"
      return record.meta.payload_outside ? std::string_view("raw") : StringEncoding(record.payload);
    case KeyType::kHash:
      return HashEncoding(ctx, key, record);
    case KeyType::kZSet: {
      // A sorted set's record says which encoding it has; the index prefix is empty inline.
      storage::ZSetReader zset(ctx.engine(), key, record);
      SLUICE_RETURN_IF_ERROR(zset.Load());
      return std::string_view(zset.prefix().empty() ? "listpack" : "skiplist");
    }
    case KeyType::kList:
      return std::string_view("quicklist");  // Redis 7.0's only list encoding
    case KeyType::kSet:
      return SetEncoding(ctx, key, record);
    case KeyType::kLimiter:
      return std::string_view("raw");  // a limiter's state is bytes of sluice's own
  }
  return std::string_view("raw");
}

// OBJECT's subcommands answer Null for a missing key.
std::optional<Record> LookupForObject(CommandContext& ctx, std::string_view key) {
  std::optional<Record> record;
  const QuietKeymisses quiet(ctx, true);  // a counted read, as Redis's OBJECT lookup
  if (!LookupAnyWithoutLongPayload(ctx, key, &record)) return std::nullopt;
  if (!record) ctx.reply.Null();
  return record;
}

void ObjectEncodingSub(CommandContext& ctx, Args args) {
  std::optional<Record> record = LookupForObject(ctx, args[2]);
  if (!record) return;
  auto encoding = EncodingOf(ctx, args[2], *record);
  if (ReplyIfError(ctx, encoding.status())) return;
  ctx.reply.Bulk(*encoding);
}

// OBJECT REFCOUNT key: Redis 7.0 shares one object for each integer 0 to 9999 stored with
// the "int" encoding (OBJ_SHARED_INTEGERS, under its default maxmemory 0), whose count is
// INT_MAX; every other value has one reference. The encoding is EncodingOf's, judged from the
// value as it is now.
void ObjectRefCountSub(CommandContext& ctx, Args args) {
  std::optional<Record> record = LookupForObject(ctx, args[2]);
  if (!record) return;
  constexpr int64_t kSharedIntegers = 10000;
  constexpr int64_t kSharedRefCount = 2147483647;
  int64_t value = -1;
  const bool shared = record->meta.type == KeyType::kString &&
                      StringEncoding(record->payload) == "int" &&
                      ParseInt64(record->payload, &value) && value >= 0 &&
                      value < kSharedIntegers;
  ctx.reply.Int(shared ? kSharedRefCount : 1);
}

// sluice has no maxmemory policy, so access frequencies are never tracked: Redis's answer
// under its default policy.
void ObjectFreqSub(CommandContext& ctx, Args args) {
  if (!LookupForObject(ctx, args[2])) return;
  ReplyError(ctx, Err("An LFU maxmemory policy is not selected, access frequency not tracked. "
                      "Please note that when switching between policies at runtime LRU and LFU "
                      "data will take some time to adjust."));
}

void ObjectHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "ENCODING <key>",
      "    Return the kind of internal representation Redis would use to store the value",
      "    associated with a <key>, judged from what it holds now.",
      "FREQ <key>",
      "    Return the access frequency index of the <key> (not tracked by sluice: an error).",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
  };
  ReplyHelp(ctx, "OBJECT", kLines);
}

// Redis's categories for HELP, which reads no key (the others are OBJECT's: @keyspace @read).
constexpr std::string_view kObjectHelpCategories[] = {"@keyspace", "@slow"};

// Redis's tip: what a key's value is stored as may change without a write to it.
constexpr Subcommand kObjectSubcommands[] = {
    WithTips({"encoding", 3, ObjectEncodingSub}, kNondeterministic),
    WithTips({"freq", 3, ObjectFreqSub}, kNondeterministic),
    WithTips({"refcount", 3, ObjectRefCountSub}, kNondeterministic),
    WithAclCategories({"help", 2, ObjectHelpSub}, kObjectHelpCategories),
};

void ObjectCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kObjectSubcommands);
}

}  // namespace

void RegisterObjectCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register(
      {"object", -2, F::kReadOnly, 0, 0, 0, ObjectCommand, "generic", kObjectSubcommands});
}

}  // namespace sluice::server
