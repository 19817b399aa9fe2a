#include "server/commands/blocking_pops.h"

#include <cmath>
#include <string>
#include <utility>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/helpers.h"
#include "server/db_key.h"

namespace sluice::server {
namespace {

constexpr std::string_view kTimeoutNotFloat = "timeout is not a float or out of range";
constexpr std::string_view kTimeoutNegative = "timeout is negative";
constexpr std::string_view kCountNotPositive = "count should be greater than 0";

}  // namespace

StatusOr<int64_t> ParseBlockTimeout(std::string_view arg) {
  long double seconds = 0;
  if (!ParseLongDouble(arg, &seconds)) return Err(std::string(kTimeoutNotFloat));
  const long double ms = std::ceil(seconds * 1000.0L);
  // Redis casts to a long long, which turns anything outside its range (inf included) into
  // LLONG_MIN: negative. (-0.0001 s is -0 ms: no timeout at all, as there.)
  constexpr long double kTwoTo63 = 9223372036854775808.0L;
  if (!(ms >= -kTwoTo63 && ms < kTwoTo63) || ms < 0) return Err(std::string(kTimeoutNegative));
  return static_cast<int64_t>(ms);
}

StatusOr<MultiPopArgs> ParseMultiPop(Args args, size_t numkeys_index, std::string_view first,
                                     std::string_view second) {
  int64_t numkeys = 0;
  if (!ParseInt64(args[numkeys_index], &numkeys) || numkeys < 1) {
    return Err(std::string(resp::kNumKeysNotPositive));
  }
  // The end follows the keys: a count that leaves no room for it is a syntax error.
  const size_t after_count = args.size() - numkeys_index - 1;
  if (static_cast<uint64_t>(numkeys) >= after_count) return SyntaxError();
  const size_t keys_start = numkeys_index + 1;
  const auto keys_end = keys_start + static_cast<size_t>(numkeys);
  MultiPopArgs out;
  out.keys.assign(args.begin() + static_cast<std::ptrdiff_t>(keys_start),
                  args.begin() + static_cast<std::ptrdiff_t>(keys_end));
  if (EqualsIgnoreCase(args[keys_end], second)) {
    out.second_end = true;
  } else if (!EqualsIgnoreCase(args[keys_end], first)) {
    return SyntaxError();
  }
  bool count_seen = false;
  for (size_t i = keys_end + 1; i < args.size(); ++i) {
    // COUNT once, and only with a value after it.
    if (count_seen || !EqualsIgnoreCase(args[i], "count") || i + 1 == args.size()) {
      return SyntaxError();
    }
    int64_t count = 0;
    if (!ParseInt64(args[++i], &count) || count < 1) return Err(std::string(kCountNotPositive));
    out.count = static_cast<uint64_t>(count);
    count_seen = true;
  }
  return out;
}

bool FindFirstKey(CommandContext& ctx, std::span<const std::string_view> keys,
                  storage::KeyType type, std::optional<std::string_view>* found) {
  *found = std::nullopt;
  for (std::string_view key : keys) {
    std::optional<storage::Record> record;
    if (!LookupTyped(ctx, key, type, &record)) return false;
    if (record) {
      *found = key;  // a list or sorted set exists only while it holds something
      return true;
    }
  }
  return true;
}

void ParkClient(CommandContext& ctx, KeyWaiters::Waiter waiter, int64_t timeout_ms) {
  const int64_t now_ms = ctx.clock_ms();
  waiter.client = &ctx.client;
  waiter.client_id = ctx.client.id;
  // A deadline past the clock's range is no deadline (Redis accepts up to 2^63 ms too).
  const bool forever = timeout_ms == 0 || timeout_ms > KeyWaiters::kForever - now_ms;
  waiter.deadline_ms = forever ? KeyWaiters::kForever : now_ms + timeout_ms;
  ctx.server.key_waiters->Block(std::move(waiter));
  ctx.client.blocked = true;  // the session answers when the waiters do
}

void BlockOnKeys(CommandContext& ctx, std::span<const std::string_view> keys, int64_t timeout_ms,
                 storage::KeyType type, KeyWaiters::ServeFn serve, NothingReply nothing) {
  // Inside MULTI/EXEC or a script nothing waits: Redis answers as if the time were up.
  if (ctx.client.deny_blocking || ctx.server.key_waiters == nullptr) {
    if (nothing == NothingReply::kNull) {
      ctx.reply.Null();
    } else {
      ctx.reply.NullArray();
    }
    return;
  }
  KeyWaiters::Waiter waiter;
  for (std::string_view key : keys) waiter.keys.push_back(DbKey(ctx.client.db, key));
  waiter.type = type;
  waiter.serve = std::move(serve);
  ParkClient(ctx, std::move(waiter), timeout_ms);
}

void RunBlockingPop(CommandContext& ctx, Args args, storage::KeyType type, bool second_end,
                    PopFn pop) {
  auto timeout = ParseBlockTimeout(args.back());
  if (ReplyIfError(ctx, timeout.status())) return;
  const Args keys = args.subspan(1, args.size() - 2);
  std::optional<std::string_view> found;
  if (!FindFirstKey(ctx, keys, type, &found)) return;
  if (found) {
    pop(ctx, *found, second_end, std::nullopt);
    return;
  }
  BlockOnKeys(ctx, keys, *timeout, type,
              [pop, second_end](CommandContext& c, std::string_view key) {
                pop(c, key, second_end, std::nullopt);
              });
}

void RunMultiPop(CommandContext& ctx, Args args, bool blocking, storage::KeyType type,
                 std::string_view first, std::string_view second, PopFn pop) {
  auto parsed = ParseMultiPop(args, blocking ? 2 : 1, first, second);
  if (ReplyIfError(ctx, parsed.status())) return;
  int64_t timeout_ms = 0;
  if (blocking) {
    auto timeout = ParseBlockTimeout(args[1]);
    if (ReplyIfError(ctx, timeout.status())) return;
    timeout_ms = *timeout;
  }
  const bool second_end = parsed->second_end;
  const uint64_t count = parsed->count;
  std::optional<std::string_view> found;
  if (!FindFirstKey(ctx, parsed->keys, type, &found)) return;
  if (found) {
    pop(ctx, *found, second_end, count);
  } else if (!blocking) {
    ctx.reply.NullArray();
  } else {
    BlockOnKeys(ctx, parsed->keys, timeout_ms, type,
                [pop, second_end, count](CommandContext& c, std::string_view key) {
                  pop(c, key, second_end, count);
                });
  }
}

}  // namespace sluice::server
