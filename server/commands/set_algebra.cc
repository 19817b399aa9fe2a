// Set algebra: SINTER SUNION SDIFF, SINTERSTORE SUNIONSTORE SDIFFSTORE and SINTERCARD, with
// Redis 7.0's arguments, replies and errors (t_set.c's sinterGenericCommand,
// sunionDiffGenericCommand and sinterCardCommand). The algebra itself is
// storage/set_algebra.h's; a STORE form replaces its destination through SetType::Replace.
//
// Every source is looked up once, in order, before any is read: a source of another type is
// WRONGTYPE wherever it is, also after a missing one (as Redis 7.0, which reads on past a
// missing source to check the others' types). Every form's lookups count as keyspace hits and
// misses, the STORE forms' too (Redis 7.0's lookupKeyRead of each source).

#include "storage/set_algebra.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/set_reply.h"
#include "server/keyspace_events.h"
#include "storage/set_type.h"

namespace sluice::server {
namespace {

using storage::SetSource;
using storage::SetType;

enum class SetOp { kInter, kUnion, kDiff };

// SINTER key [key ...] / SINTERSTORE destination key [key ...] and the others.
template <SetOp op, bool store>
void SetOpCommand(CommandContext& ctx, Args args) {
  SetType sets(ctx.engine(), ctx.now_ms);
  StatusOr<std::vector<SetSource>> sources = std::vector<SetSource>();
  {
    LookupCounting counting(ctx, true);  // the STORE forms' sources too
    sources = storage::LoadSetSources(sets, args.subspan(store ? 2 : 1));
  }
  if (ReplyIfError(ctx, sources.status())) return;
  StatusOr<std::vector<std::string>> result = std::vector<std::string>();
  switch (op) {
    case SetOp::kInter:
      result = storage::SetInter(sets, *sources);
      break;
    case SetOp::kUnion:
      result = storage::SetUnion(sets, *sources);
      break;
    case SetOp::kDiff:
      result = storage::SetDiff(sets, *sources);
      break;
  }
  if (ReplyIfError(ctx, result.status())) return;
  if (!store) {
    ReplyMemberSet(ctx, *result);
    return;
  }
  const bool existed = StoreDeletesKey(ctx, result->empty(), args[1]);
  if (ReplyIfError(ctx, sets.Replace(args[1], *result))) return;
  constexpr std::string_view kEvent = op == SetOp::kInter   ? "sinterstore"
                                      : op == SetOp::kUnion ? "sunionstore"
                                                            : "sdiffstore";
  NotifyStored(ctx, kNotifySet, kEvent, args[1], !result->empty(), existed);
  ctx.reply.Int(static_cast<int64_t>(result->size()));
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]: the count (1 to LONG_MAX, at most the
// arguments left), then the options (LIMIT, a non-negative integer; 0 is no limit; repeats
// allowed, the last wins), then the keys' types.
void SInterCardCommand(CommandContext& ctx, Args args) {
  int64_t numkeys = 0;
  if (!ParseInt64(args[1], &numkeys) || numkeys < 1) {
    ReplyError(ctx, Err(std::string(resp::kNumKeysNotPositive)));
    return;
  }
  if (numkeys > static_cast<int64_t>(args.size() - 2)) {
    ReplyError(ctx, Err(std::string(resp::kNumKeysTooMany)));
    return;
  }
  const auto keys = static_cast<size_t>(numkeys);
  int64_t limit = 0;
  for (size_t j = 2 + keys; j < args.size(); ++j) {
    if (EqualsIgnoreCase(args[j], "limit") && j + 1 < args.size()) {
      ++j;
      if (!ParseInt64(args[j], &limit) || limit < 0) {
        ReplyError(ctx, Err("LIMIT can't be negative"));
        return;
      }
    } else {
      ReplyError(ctx, SyntaxError());
      return;
    }
  }
  SetType sets(ctx.engine(), ctx.now_ms);
  auto sources = storage::LoadSetSources(sets, args.subspan(2, keys));
  if (ReplyIfError(ctx, sources.status())) return;
  ReplyIntegerOrError(ctx, storage::SetInterCard(sets, *sources, static_cast<uint64_t>(limit)));
}

}  // namespace

void RegisterSetAlgebraCommands(CommandTable& table) {
  using F = CommandFlags;
  // The STORE forms name the destination and the sources in one key range (1 to the last
  // argument), as Redis's COMMAND INFO; a write touches for WATCH only the destination, the
  // one whose record it writes.
  const F kRead = F::kReadOnly;
  const F kStore = F::kWrite;
  // Redis's tip for the forms that reply a set: its order is not to be relied on.
  table.Register(WithTips(
      {"sinter", -2, kRead, 1, -1, 1, SetOpCommand<SetOp::kInter, false>, "set"}, kInAnyOrder));
  table.Register(WithTips(
      {"sunion", -2, kRead, 1, -1, 1, SetOpCommand<SetOp::kUnion, false>, "set"}, kInAnyOrder));
  table.Register(WithTips({"sdiff", -2, kRead, 1, -1, 1, SetOpCommand<SetOp::kDiff, false>, "set"},
                          kInAnyOrder));
  table.Register({"sinterstore", -3, kStore, 1, -1, 1, SetOpCommand<SetOp::kInter, true>, "set"});
  table.Register({"sunionstore", -3, kStore, 1, -1, 1, SetOpCommand<SetOp::kUnion, true>, "set"});
  table.Register({"sdiffstore", -3, kStore, 1, -1, 1, SetOpCommand<SetOp::kDiff, true>, "set"});
  // The keys follow the count in args[1], as ZUNION's.
  table.Register(WithKeyCountAt(
      {"sintercard", -3, F::kReadOnly | F::kMovableKeys, 0, 0, 0, SInterCardCommand, "set"}, 1));
}

}  // namespace sluice::server
