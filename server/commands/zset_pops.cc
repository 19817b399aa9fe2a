// Sorted-set pops: ZPOPMIN ZPOPMAX ZMPOP and the blocking BZPOPMIN BZPOPMAX BZMPOP, with Redis
// 7.0's replies and errors (t_zset.c's genericZpopCommand and its callers), over
// storage::ZSetType. How the blocking forms wait: server/commands/blocking_pops.h.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/blocking_pops.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/zset_reply.h"
#include "server/keyspace_events.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::ScoredMember;

void NotifyPopped(CommandContext& ctx, std::string_view key, bool highest, size_t popped) {
  NotifyRemoval(ctx, popped > 0, kNotifyZset, highest ? "zpopmax" : "zpopmin", key);
}

// ZPOPMIN key [count]: more arguments are a syntax error before the count is read; the count
// is getPositiveLongFromObjectOrReply's (0 allowed), before the key is looked up.
StatusOr<std::optional<uint64_t>> ParseZPopCount(Args args) {
  if (args.size() > 3) return SyntaxError();
  if (args.size() < 3) return std::optional<uint64_t>();
  int64_t count = 0;
  if (!ParseInt64(args[2], &count) || count < 0) return Err(std::string(resp::kNotPositive));
  return std::optional<uint64_t>(static_cast<uint64_t>(count));
}

// Redis 7.0: a flat member, score list in RESP2 and whenever no count was given; with a count,
// RESP3 nests [member, score] pairs. Nothing to pop (count 0, missing key) is an empty array.
template <bool kHighest>
void ZPopCommand(CommandContext& ctx, Args args) {
  auto count = ParseZPopCount(args);
  if (ReplyIfError(ctx, count.status())) return;
  auto popped = ZSets(ctx).Pop(args[1], count->value_or(1), kHighest);
  if (ReplyIfError(ctx, popped.status())) return;
  NotifyPopped(ctx, args[1], kHighest, popped->size());
  const auto n = static_cast<int64_t>(popped->size());
  const bool pairs = count->has_value() && ctx.reply.protocol() == resp::ProtocolVersion::kResp3;
  ctx.reply.Array(pairs ? n : 2 * n);
  for (const ScoredMember& m : *popped) {
    if (pairs) ctx.reply.Array(2);
    ctx.reply.Bulk(m.member);
    ctx.reply.Double(m.score);
  }
}

// Pops from `key`, which holds a sorted set, replying BZPOPMIN's flat [key, member, score], or
// with `count` ZMPOP's [key, [[member, score] ...]], nested in RESP2 too (PopFn).
void ZPopWithKey(CommandContext& ctx, std::string_view key, bool highest,
                 std::optional<uint64_t> count) {
  auto popped = ZSets(ctx).Pop(key, count.value_or(1), highest);
  if (ReplyIfError(ctx, popped.status())) return;
  NotifyPopped(ctx, key, highest, popped->size());
  if (popped->empty()) {  // (the key was found a moment ago)
    ctx.reply.NullArray();
    return;
  }
  if (!count) {
    ctx.reply.Array(3);
    ctx.reply.Bulk(key);
    ctx.reply.Bulk(popped->front().member);
    ctx.reply.Double(popped->front().score);
    return;
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(key);
  ctx.reply.Array(static_cast<int64_t>(popped->size()));
  for (const ScoredMember& m : *popped) {
    ctx.reply.Array(2);
    ctx.reply.Bulk(m.member);
    ctx.reply.Double(m.score);
  }
}

// BZPOPMIN/BZPOPMAX key [key ...] timeout.
template <bool kHighest>
void BlockingZPopCommand(CommandContext& ctx, Args args) {
  RunBlockingPop(ctx, args, KeyType::kZSet, kHighest, ZPopWithKey);
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]; BZMPOP timeout numkeys ...
template <bool kBlocking>
void ZMPopCommand(CommandContext& ctx, Args args) {
  RunMultiPop(ctx, args, kBlocking, KeyType::kZSet, "min", "max", ZPopWithKey);
}

}  // namespace

void RegisterZSetPopCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  table.Register({"zpopmin", -2, kWriteFast, 1, 1, 1, ZPopCommand<false>, "sorted-set"});
  table.Register({"zpopmax", -2, kWriteFast, 1, 1, 1, ZPopCommand<true>, "sorted-set"});
  // As Redis 7.0: the numkeys forms are not noscript, the others are (a script gets an error).
  table.Register(WithKeyCountAt(
      {"zmpop", -4, F::kWrite | F::kMovableKeys, 0, 0, 0, ZMPopCommand<false>, "sorted-set"}, 1));
  table.Register(WithKeyCountAt({"bzmpop", -5, F::kWrite | F::kBlocking | F::kMovableKeys, 0, 0, 0,
                                 ZMPopCommand<true>, "sorted-set"},
                                2));
  const F kBlockingPop = F::kWrite | F::kNoScript | F::kBlocking | F::kFast;
  table.Register(
      {"bzpopmin", -3, kBlockingPop, 1, -2, 1, BlockingZPopCommand<false>, "sorted-set"});
  table.Register({"bzpopmax", -3, kBlockingPop, 1, -2, 1, BlockingZPopCommand<true>, "sorted-set"});
}

}  // namespace sluice::server
