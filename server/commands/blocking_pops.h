#pragma once

// What the pops that take several keys share (LMPOP, BLPOP ... in lists.cc; ZMPOP, BZPOPMIN ...
// in zset_pops.cc): Redis 7.0's timeout argument, the `numkeys key ... WHERE [COUNT n]` form,
// the first key that holds something, and parking the client on its keys (server/key_waiters.h)
// when none does.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/key_waiters.h"
#include "storage/record.h"

namespace sluice::server {

// A blocking command's timeout, in seconds (BLPOP k 0.1), as Redis 7.0's
// getTimeoutFromObjectOrReply reads it: a long double (strtold; no leading space, no NaN),
// times 1000, rounded up to whole ms; a value past the 64-bit range reads as negative there,
// and here too. 0 waits for ever.
StatusOr<int64_t> ParseBlockTimeout(std::string_view arg);

struct MultiPopArgs {
  std::vector<std::string_view> keys;
  bool second_end = false;  // RIGHT (LMPOP) or MAX (ZMPOP)
  uint64_t count = 1;
};

// LMPOP's and ZMPOP's `numkeys key [key ...] FIRST|SECOND [COUNT count]` from
// args[numkeys_index], with Redis 7.0's errors in its order (lmpopGenericCommand,
// zmpopGenericCommand): the count of keys, the end, then the options.
StatusOr<MultiPopArgs> ParseMultiPop(Args args, size_t numkeys_index, std::string_view first,
                                     std::string_view second);

// The first of `keys` that exists, as the pops look at them in order; a key of another type
// met before is WRONGTYPE (replied). Returns false when the handler must stop; `*found` is
// nullopt when no key exists.
bool FindFirstKey(CommandContext& ctx, std::span<const std::string_view> keys,
                  storage::KeyType type, std::optional<std::string_view>* found);

// Pops from `key`, which holds a value of the family's type, and replies: with `count`
// nullopt as BLPOP and BZPOPMIN do ([key, element], [key, member, score]), else as LMPOP and
// ZMPOP ([key, [...]]). `second_end`: RIGHT or MAX.
using PopFn = void (*)(CommandContext& ctx, std::string_view key, bool second_end,
                       std::optional<uint64_t> count);

// BLPOP/BRPOP/BZPOPMIN/BZPOPMAX key [key ...] timeout: the timeout is read first, then the keys
// in order; the first that holds a `type` is popped from, else the client waits for one.
void RunBlockingPop(CommandContext& ctx, Args args, storage::KeyType type, bool second_end,
                    PopFn pop);

// LMPOP/ZMPOP numkeys key [key ...] FIRST|SECOND [COUNT count], and with `blocking`
// BLMPOP/BZMPOP timeout numkeys ...: the timeout is read after the rest, as Redis does. No key
// with data: a null array, or the client waits.
void RunMultiPop(CommandContext& ctx, Args args, bool blocking, storage::KeyType type,
                 std::string_view first, std::string_view second, PopFn pop);

// What a blocking pop that found nothing replies where it may not wait (inside MULTI/EXEC or a
// script): Redis 7.0's null array, but BLMOVE and BRPOPLPUSH answer as LMOVE (a null bulk).
enum class NothingReply { kNullArray, kNull };

// Parks the client on `waiter` (its keys, what serves it, what its timeout answers; the
// client is filled in) until `timeout_ms` (0: never) passes on the server clock, a key serves
// it, or CLIENT UNBLOCK. The session runs nothing else meanwhile. The caller checks first that
// the client may wait (not inside MULTI/EXEC or a script: `deny_blocking`).
void ParkClient(CommandContext& ctx, KeyWaiters::Waiter waiter, int64_t timeout_ms);

// No key holds anything: parks the client on `keys` (the session runs nothing else meanwhile)
// until `serve` pops from one of them, `timeout_ms` (0: never) passes on the server clock, or
// CLIENT UNBLOCK; or replies `nothing` at once where it may not wait.
void BlockOnKeys(CommandContext& ctx, std::span<const std::string_view> keys, int64_t timeout_ms,
                 storage::KeyType type, KeyWaiters::ServeFn serve,
                 NothingReply nothing = NothingReply::kNullArray);

}  // namespace sluice::server
