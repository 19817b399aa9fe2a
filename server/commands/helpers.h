#pragma once

// Small pieces shared by command handlers: error replies, common reply shapes, typed key lookups.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "server/command_context.h"
#include "storage/record.h"

namespace sluice::server {

// Sets one of the keyspace lookup counter's switches for its scope, then puts it back.
template <bool storage::LookupCounter::*kSwitch>
class ScopedLookupSwitch {
 public:
  ScopedLookupSwitch(CommandContext& ctx, bool value)
      : counter_(ctx.server.stats.keyspace), before_(std::exchange(counter_.*kSwitch, value)) {}
  ~ScopedLookupSwitch() { counter_.*kSwitch = before_; }
  ScopedLookupSwitch(const ScopedLookupSwitch&) = delete;
  ScopedLookupSwitch& operator=(const ScopedLookupSwitch&) = delete;

 private:
  storage::LookupCounter& counter_;
  bool before_;
};

// Whether the key-space lookups made in its scope count as keyspace hits and misses. Redis
// counts a command's read lookups (lookupKeyRead), once per key: the dispatcher counts every
// lookup of a read-only command; this adds the reads of write commands that Redis counts
// (SET's GET, GETSET, GETDEL, GETEX, COPY's source) and leaves out second lookups of a key
// (LINDEX, HSCAN, ZMSCORE's later members).
using LookupCounting = ScopedLookupSwitch<&storage::LookupCounter::on>;

// With true, counted misses in its scope send no keymiss event (Redis's LOOKUP_NONOTIFY:
// OBJECT).
using QuietKeymisses = ScopedLookupSwitch<&storage::LookupCounter::quiet_misses>;

// Replies with `status` when it is an error. Returns true when the handler should stop.
inline void ReplyError(CommandContext& ctx, const Status& status) {
  ReplyCountedError(ctx.server.stats.errors, ctx.reply, status);
}

inline bool ReplyIfError(CommandContext& ctx, const Status& status) {
  if (status.ok()) return false;
  ReplyError(ctx, status);
  return true;
}

// A count or flag the command computed (SADD's, HLEN's, SISMEMBER's 0 or 1), or the error it
// met instead.
template <typename Integer>
void ReplyIntegerOrError(CommandContext& ctx, const StatusOr<Integer>& value) {
  if (ReplyIfError(ctx, value.status())) return;
  ctx.reply.Int(static_cast<int64_t>(*value));
}

// A bulk string, or Null for a missing value (HGET, LINDEX, each of HMGET's fields).
inline void ReplyBulkOrNull(CommandContext& ctx, const std::optional<std::string>& value) {
  if (value) {
    ctx.reply.Bulk(*value);
  } else {
    ctx.reply.Null();
  }
}

// An array of bulk strings (KEYS, LRANGE, COMMAND LIST ...) from any container of strings or
// string views.
template <typename Strings>
void ReplyBulks(CommandContext& ctx, const Strings& values) {
  ctx.reply.Array(static_cast<int64_t>(values.size()));
  for (const auto& value : values) ctx.reply.Bulk(value);
}

Status WrongTypeError();

// Redis's validateClientName, also used for CLIENT SETINFO values: printable ASCII, no spaces.
bool IsPrintableWithoutSpaces(std::string_view s);
inline constexpr std::string_view kInvalidClientName =
    "Client names cannot contain spaces, newlines or special characters.";

// One CLIENT LIST line, in Redis 7's field order (lib-name/lib-ver as 7.2): CLIENT LIST and
// INFO, ACL LOG's client-info.
std::string DescribeClient(const Client& c, int64_t now_ms);

// A container command's HELP, as Redis's addReplyHelp: its heading, one status line each,
// then the closing "HELP" entry.
void ReplyHelp(CommandContext& ctx, std::string_view container,
               std::span<const std::string_view> lines);

// Runs the subcommand named by args[1]: Redis's "unknown subcommand" and
// "wrong number of arguments for 'client|id' command" errors otherwise.
void DispatchSubcommand(CommandContext& ctx, Args args, std::span<const Subcommand> subcommands);

// Reads `key`, which must be missing or of `type`. Replies WRONGTYPE (or a storage error)
// itself and returns false when the handler should stop.
bool LookupTyped(CommandContext& ctx, std::string_view key, storage::KeyType type,
                 std::optional<storage::Record>* record);
// The same without a copy, for a read that replies from the value and is done: the payload
// views the engine's buffers until the handler's next call on the engine (Engine::GetView).
bool LookupTypedView(CommandContext& ctx, std::string_view key, storage::KeyType type,
                     std::optional<storage::RecordView>* record);
// The same without reading a long string's bytes (Engine::GetViewWithoutLongPayload).
bool LookupTypedWithoutLongPayload(CommandContext& ctx, std::string_view key, storage::KeyType type,
                                   std::optional<storage::RecordView>* record);

// SELECT's, MOVE's, SWAPDB's and COPY ... DB's database index, read as Redis reads a C int:
// the index if it is one of the `databases`; else Redis's error for what the argument is.
StatusOr<int> ParseDbIndex(std::string_view arg, int databases);

// A timeout in milliseconds (WAIT's, CLIENT PAUSE's), read as Redis's
// getTimeoutFromObjectOrReply reads one: an integer, not negative, or Redis's error for it.
StatusOr<int64_t> ParseTimeoutMs(std::string_view arg);

// Whether `arg` is `keyword` (any case) as Redis's strcasecmp sees it: an argument ends at its
// first NUL byte ("bit\0x" is BIT to BITCOUNT).
bool IsCKeyword(std::string_view arg, std::string_view keyword);

// Stores `value` as the string at `key`, replacing what it held (of any type), with the expiry
// `expire_at_ms` (0: none): the write of SET, SETRANGE, SETBIT, BITOP ...
void PutString(CommandContext& ctx, std::string_view key, std::string_view value,
               int64_t expire_at_ms);

// Reads `key` of any type. Replies a storage error itself and returns false then.
bool LookupAny(CommandContext& ctx, std::string_view key, std::optional<storage::Record>* record);
// The same without reading a long string's bytes (meta.payload_outside: the payload is left
// empty, meta.size is its length): for commands that need only the metadata, or change only it
// and write the record back with Engine::PutWithoutLongPayload (EXPIRE).
bool LookupAnyWithoutLongPayload(CommandContext& ctx, std::string_view key,
                                 std::optional<storage::Record>* record);

// Redis's string2ld: strtold over the whole string; no leading space, NaN or overflow
// (INCRBYFLOAT, HINCRBYFLOAT).
bool ParseLongDouble(std::string_view s, long double* out);
// Redis's ld2string in LD_STR_HUMAN mode: "%.17Lf" without trailing zeros; "-0" prints "0".
std::string FormatLongDouble(long double value);

}  // namespace sluice::server
