// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP (with count) LLEN LRANGE LTRIM LINDEX LSET
// LREM LINSERT LPOS LMOVE RPOPLPUSH LMPOP and the blocking BLPOP BRPOP BLMPOP BLMOVE BRPOPLPUSH,
// with Redis 7.0's replies and errors (t_list.c), over storage::ListType. How the blocking forms
// wait: server/commands/blocking_pops.h.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/blocking_pops.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/dispatcher.h"
#include "server/keyspace_events.h"
#include "storage/list_type.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::ListEnd;
using storage::ListType;

constexpr std::string_view kRankZero =
    "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
constexpr std::string_view kCountNegative = "COUNT can't be negative";
constexpr std::string_view kMaxLenNegative = "MAXLEN can't be negative";

ListType Lists(CommandContext& ctx) { return ListType(ctx.engine(), ctx.now_ms); }

std::string_view PushEvent(ListEnd end) { return end == ListEnd::kHead ? "lpush" : "rpush"; }
std::string_view PopEvent(ListEnd end) { return end == ListEnd::kHead ? "lpop" : "rpop"; }

// An element moved (LMOVE and kin): the destination's push, then the source's pop (and "del"
// if it is left empty), in Redis's order.
void NotifyMove(CommandContext& ctx, bool moved, std::string_view source,
                std::string_view destination, ListEnd from, ListEnd to) {
  if (!KeyspaceEventsOn(ctx, kNotifyList | kNotifyGeneric) || !moved) return;
  NotifyKeyspaceEvent(ctx, kNotifyList, PushEvent(to), destination);
  NotifyRemoval(ctx, true, kNotifyList, PopEvent(from), source);
}

// LPUSH/RPUSH key element [element ...]; the X variants push only onto an existing list.
template <ListEnd kEnd, bool kOnlyIfExists>
void PushCommand(CommandContext& ctx, Args args) {
  ListType lists = Lists(ctx);
  if (kOnlyIfExists) {
    std::optional<storage::RecordView> record;  // a view: only whether it is there
    if (!LookupTypedView(ctx, args[1], KeyType::kList, &record)) return;
    if (!record) {
      ctx.reply.Int(0);
      return;
    }
  }
  auto length = lists.Push(args[1], kEnd, args.subspan(2));
  NotifyKeyspaceEventIf(ctx, length.ok(), kNotifyList, PushEvent(kEnd), args[1]);
  ReplyIntegerOrError(ctx, length);
}

// LPOP/RPOP key [count]: a bulk string without count, an array with it (popGenericCommand).
template <ListEnd kEnd>
void PopCommand(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, Err(resp::WrongArity(kEnd == ListEnd::kHead ? "lpop" : "rpop")));
    return;
  }
  const bool has_count = args.size() == 3;
  int64_t count = 1;
  if (has_count) {
    // getPositiveLongFromObjectOrReply: one message for both failures.
    if (!ParseInt64(args[2], &count) || count < 0) {
      ReplyError(ctx, Err(std::string(resp::kNotPositive)));
      return;
    }
  }
  std::optional<storage::RecordView> record;  // a view: only whether it is there
  if (!LookupTypedView(ctx, args[1], KeyType::kList, &record)) return;
  if (!record) {
    if (has_count) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  if (has_count && count == 0) {
    ctx.reply.Array(0);
    return;
  }
  auto popped = Lists(ctx).Pop(args[1], kEnd, static_cast<uint64_t>(count));
  if (ReplyIfError(ctx, popped.status())) return;
  NotifyRemoval(ctx, true, kNotifyList, PopEvent(kEnd), args[1]);
  const std::vector<std::string>& elements = popped->value();
  if (!has_count) {
    ctx.reply.Bulk(elements.front());
    return;
  }
  ReplyBulks(ctx, elements);
}

void LLenCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, Lists(ctx).Len(args[1]));
}

// LRANGE and LTRIM parse both indexes before reading the key.
bool ParseIndexes(CommandContext& ctx, Args args, int64_t* start, int64_t* stop) {
  if (!ParseInt64(args[2], start) || !ParseInt64(args[3], stop)) {
    ReplyError(ctx, NotIntegerError());
    return false;
  }
  return true;
}

void LRangeCommand(CommandContext& ctx, Args args) {
  int64_t start = 0, stop = 0;
  if (!ParseIndexes(ctx, args, &start, &stop)) return;
  auto elements = Lists(ctx).Range(args[1], start, stop);
  if (ReplyIfError(ctx, elements.status())) return;
  ReplyBulks(ctx, *elements);
}

void LTrimCommand(CommandContext& ctx, Args args) {
  int64_t start = 0, stop = 0;
  if (!ParseIndexes(ctx, args, &start, &stop)) return;
  auto trimmed = Lists(ctx).Trim(args[1], start, stop);
  if (ReplyIfError(ctx, trimmed.status())) return;
  NotifyRemoval(ctx, *trimmed, kNotifyList, "ltrim", args[1]);
  ctx.reply.Ok();
}

// LINDEX reads the key before parsing the index, as Redis does.
void LIndexCommand(CommandContext& ctx, Args args) {
  // A view: a short list's record is not copied (the moving windows of limiter scripts).
  std::optional<storage::RecordView> record;
  if (!LookupTypedView(ctx, args[1], KeyType::kList, &record)) return;
  if (!record) {
    ctx.reply.Null();
    return;
  }
  int64_t index = 0;
  if (!ParseInt64(args[2], &index)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  auto element = Lists(ctx).IndexOf(args[1], *record, index);
  if (ReplyIfError(ctx, element.status())) return;
  ReplyBulkOrNull(ctx, *element);
}

// LSET reads the key (no such key, WRONGTYPE) before parsing the index, as Redis does.
void LSetCommand(CommandContext& ctx, Args args) {
  std::optional<storage::RecordView> record;  // a view: only whether it is there
  if (!LookupTypedView(ctx, args[1], KeyType::kList, &record)) return;
  if (!record) {
    ReplyError(ctx, Err(std::string(resp::kNoSuchKey)));
    return;
  }
  int64_t index = 0;
  if (!ParseInt64(args[2], &index)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  auto replaced = Lists(ctx).Set(args[1], index, args[3]);
  if (ReplyIfError(ctx, replaced.status())) return;
  if (!*replaced) {
    ReplyError(ctx, Err(std::string(resp::kIndexOutOfRange)));
    return;
  }
  NotifyKeyspaceEvent(ctx, kNotifyList, "lset", args[1]);
  ctx.reply.Ok();
}

// LREM key count element: the count is parsed before the key is read.
void LRemCommand(CommandContext& ctx, Args args) {
  int64_t count = 0;
  if (!ParseInt64(args[2], &count)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  auto removed = Lists(ctx).Remove(args[1], count, args[3]);
  NotifyRemoval(ctx, removed.ok() && *removed > 0, kNotifyList, "lrem", args[1]);
  ReplyIntegerOrError(ctx, removed);
}

// LINSERT key BEFORE|AFTER pivot element: the position is parsed before the key is read.
void LInsertCommand(CommandContext& ctx, Args args) {
  storage::InsertWhere where = storage::InsertWhere::kBefore;
  if (EqualsIgnoreCase(args[2], "after")) {
    where = storage::InsertWhere::kAfter;
  } else if (!EqualsIgnoreCase(args[2], "before")) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  auto length = Lists(ctx).Insert(args[1], where, args[3], args[4]);
  if (ReplyIfError(ctx, length.status())) return;
  NotifyKeyspaceEventIf(ctx, *length > 0, kNotifyList, "linsert", args[1]);
  ctx.reply.Int(*length);
}

struct LPosArgs {
  storage::PositionQuery query;
  bool has_count = false;
};

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len], options in any order, each
// checked as it is read (the first error wins).
StatusOr<LPosArgs> ParseLPos(Args args) {
  ArgCursor cur(args.subspan(3));
  int64_t rank = 1;
  int64_t count = 1;
  int64_t maxlen = 0;
  bool has_count = false;
  while (!cur.Done()) {
    if (cur.NextIf("RANK")) {
      rank = cur.Next<int64_t>();
      if (cur.ok() && rank == 0) cur.Fail(Err(std::string(kRankZero)));
    } else if (cur.NextIf("COUNT")) {
      count = cur.NextNonNegative(kCountNegative);
      has_count = true;
    } else if (cur.NextIf("MAXLEN")) {
      maxlen = cur.NextNonNegative(kMaxLenNegative);
    } else {
      cur.Fail(SyntaxError());
    }
  }
  if (!cur.ok()) return cur.status();
  LPosArgs out;
  out.has_count = has_count;
  out.query.from = rank < 0 ? ListEnd::kTail : ListEnd::kHead;
  out.query.maxlen = static_cast<uint64_t>(maxlen);
  out.query.limit = has_count ? static_cast<uint64_t>(count) : 1;
  if (rank == INT64_MIN) {
    // Redis 7.0 negates the rank in a long: INT64_MIN stays negative, so every match from the
    // tail qualifies and COUNT never stops the scan.
    out.query.skip = 0;
    if (has_count) out.query.limit = 0;
  } else {
    out.query.skip = static_cast<uint64_t>(rank < 0 ? -rank : rank) - 1;
  }
  return out;
}

// The key is read after the options parse: a missing key answers as no match.
void LPosCommand(CommandContext& ctx, Args args) {
  StatusOr<LPosArgs> parsed = ParseLPos(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  auto positions = Lists(ctx).Positions(args[1], args[2], parsed->query);
  if (ReplyIfError(ctx, positions.status())) return;
  if (parsed->has_count) {
    ctx.reply.Array(static_cast<int64_t>(positions->size()));
    for (uint64_t index : *positions) ctx.reply.Int(static_cast<int64_t>(index));
  } else if (positions->empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Int(static_cast<int64_t>(positions->front()));
  }
}

// LMOVE's and RPOPLPUSH's work (lmoveGenericCommand): Null for a missing source.
void MoveCommand(CommandContext& ctx, Args args, ListEnd from, ListEnd to) {
  auto moved = Lists(ctx).Move(args[1], args[2], from, to);
  if (ReplyIfError(ctx, moved.status())) return;
  NotifyMove(ctx, moved->has_value(), args[1], args[2], from, to);
  ReplyBulkOrNull(ctx, *moved);
}

// LEFT or RIGHT, any case.
bool ParseListEnd(std::string_view arg, ListEnd* end) {
  if (EqualsIgnoreCase(arg, "left")) {
    *end = ListEnd::kHead;
  } else if (EqualsIgnoreCase(arg, "right")) {
    *end = ListEnd::kTail;
  } else {
    return false;
  }
  return true;
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT: both ends are parsed before any key is read.
void LMoveCommand(CommandContext& ctx, Args args) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!ParseListEnd(args[3], &from) || !ParseListEnd(args[4], &to)) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  MoveCommand(ctx, args, from, to);
}

void RPopLPushCommand(CommandContext& ctx, Args args) {
  MoveCommand(ctx, args, ListEnd::kTail, ListEnd::kHead);
}

// ---- LMPOP and the blocking pops ----------------------------------------------------------

// Pops from `key`, which holds a list, replying BLPOP's [key, element], or with `count`
// LMPOP's [key, [element ...]] (PopFn).
void PopWithKey(CommandContext& ctx, std::string_view key, bool from_tail,
                std::optional<uint64_t> count) {
  const ListEnd end = from_tail ? ListEnd::kTail : ListEnd::kHead;
  auto popped = Lists(ctx).Pop(key, end, count.value_or(1));
  if (ReplyIfError(ctx, popped.status())) return;
  if (!popped->has_value()) {  // (the key was found a moment ago)
    ctx.reply.NullArray();
    return;
  }
  NotifyRemoval(ctx, true, kNotifyList, PopEvent(end), key);
  ctx.reply.Array(2);
  ctx.reply.Bulk(key);
  if (count) {
    ReplyBulks(ctx, **popped);
  } else {
    ctx.reply.Bulk((*popped)->front());
  }
}

// BLPOP/BRPOP key [key ...] timeout.
template <ListEnd kEnd>
void BlockingPopCommand(CommandContext& ctx, Args args) {
  RunBlockingPop(ctx, args, KeyType::kList, kEnd == ListEnd::kTail, PopWithKey);
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]; BLMPOP timeout numkeys ...
template <bool kBlocking>
void MultiPopCommand(CommandContext& ctx, Args args) {
  RunMultiPop(ctx, args, kBlocking, KeyType::kList, "left", "right", PopWithKey);
}

// BLMOVE's and BRPOPLPUSH's work: LMOVE when the source holds a list, else wait for one. Served
// later, the destination is checked then (WRONGTYPE leaves the element in the source), and the
// push may serve clients waiting on it in turn.
void BlockingMoveCommand(CommandContext& ctx, Args args, ListEnd from, ListEnd to,
                         std::string_view timeout_arg) {
  auto timeout = ParseBlockTimeout(timeout_arg);
  if (ReplyIfError(ctx, timeout.status())) return;
  const Args source = args.subspan(1, 1);
  std::optional<std::string_view> found;
  if (!FindFirstKey(ctx, source, KeyType::kList, &found)) return;
  if (found) {
    MoveCommand(ctx, args, from, to);
    return;
  }
  auto serve = [destination = std::string(args[2]), from, to](CommandContext& c,
                                                              std::string_view key) {
    auto moved = Lists(c).Move(key, destination, from, to);
    if (ReplyIfError(c, moved.status())) return;
    NotifyMove(c, moved->has_value(), key, destination, from, to);
    ReplyBulkOrNull(c, *moved);
    c.server.dispatcher->KeyWritten(c.client, destination, c.now_us);
  };
  BlockOnKeys(ctx, source, *timeout, KeyType::kList, std::move(serve), NothingReply::kNull);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout: the ends are read first.
void BLMoveCommand(CommandContext& ctx, Args args) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!ParseListEnd(args[3], &from) || !ParseListEnd(args[4], &to)) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  BlockingMoveCommand(ctx, args, from, to, args[5]);
}

void BRPopLPushCommand(CommandContext& ctx, Args args) {
  BlockingMoveCommand(ctx, args, ListEnd::kTail, ListEnd::kHead, args[3]);
}

}  // namespace

void RegisterListCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"lpush", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kHead, false>, "list"});
  table.Register({"rpush", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kTail, false>, "list"});
  table.Register({"lpushx", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kHead, true>, "list"});
  table.Register({"rpushx", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kTail, true>, "list"});
  table.Register({"lpop", -2, kWriteFast, 1, 1, 1, PopCommand<ListEnd::kHead>, "list"});
  table.Register({"rpop", -2, kWriteFast, 1, 1, 1, PopCommand<ListEnd::kTail>, "list"});
  table.Register({"llen", 2, kReadFast, 1, 1, 1, LLenCommand, "list"});
  table.Register({"lrange", 4, F::kReadOnly, 1, 1, 1, LRangeCommand, "list"});
  table.Register({"ltrim", 4, F::kWrite, 1, 1, 1, LTrimCommand, "list"});
  table.Register({"lindex", 3, F::kReadOnly, 1, 1, 1, LIndexCommand, "list"});
  table.Register({"lset", 4, F::kWrite, 1, 1, 1, LSetCommand, "list"});
  table.Register({"lrem", 4, F::kWrite, 1, 1, 1, LRemCommand, "list"});
  table.Register({"linsert", 5, F::kWrite, 1, 1, 1, LInsertCommand, "list"});
  table.Register({"lpos", -3, F::kReadOnly, 1, 1, 1, LPosCommand, "list"});
  table.Register({"lmove", 5, F::kWrite | F::kListMove, 1, 2, 1, LMoveCommand, "list"});
  table.Register({"rpoplpush", 3, F::kWrite | F::kListMove, 1, 2, 1, RPopLPushCommand, "list"});
  // As Redis 7.0: the numkeys forms are not noscript, the others are (a script gets an error).
  const F kBlockingPop = F::kWrite | F::kNoScript | F::kBlocking;
  table.Register(WithKeyCountAt(
      {"lmpop", -4, F::kWrite | F::kMovableKeys, 0, 0, 0, MultiPopCommand<false>, "list"}, 1));
  table.Register(WithKeyCountAt({"blmpop", -5, F::kWrite | F::kBlocking | F::kMovableKeys, 0, 0, 0,
                                 MultiPopCommand<true>, "list"},
                                2));
  table.Register({"blpop", -3, kBlockingPop, 1, -2, 1, BlockingPopCommand<ListEnd::kHead>, "list"});
  table.Register({"brpop", -3, kBlockingPop, 1, -2, 1, BlockingPopCommand<ListEnd::kTail>, "list"});
  table.Register({"blmove", 6, kBlockingPop | F::kListMove, 1, 2, 1, BLMoveCommand, "list"});
  table.Register(
      {"brpoplpush", 4, kBlockingPop | F::kListMove, 1, 2, 1, BRPopLPushCommand, "list"});
}

}  // namespace sluice::server
