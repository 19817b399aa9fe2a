// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP (with count) LLEN LRANGE LTRIM LINDEX,
// with Redis 7.0's replies and errors (t_list.c), over storage::ListType.

#include <string>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "storage/list_type.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::ListEnd;
using storage::ListType;

ListType Lists(CommandContext& ctx) { return ListType(ctx.engine(), ctx.now_ms); }

// LPUSH/RPUSH key element [element ...]; the X variants push only onto an existing list.
template <ListEnd kEnd, bool kOnlyIfExists>
void PushCommand(CommandContext& ctx, Args args) {
  ListType lists = Lists(ctx);
  if (kOnlyIfExists) {
    std::optional<storage::Record> record;
    if (!LookupTyped(ctx, args[1], KeyType::kList, &record)) return;
    if (!record) {
      ctx.reply.Int(0);
      return;
    }
  }
  auto length = lists.Push(args[1], kEnd, args.subspan(2));
  if (ReplyIfError(ctx, length.status())) return;
  ctx.reply.Int(static_cast<int64_t>(*length));
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
  std::optional<storage::Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kList, &record)) return;
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
  const std::vector<std::string>& elements = popped->value();
  if (!has_count) {
    ctx.reply.Bulk(elements.front());
    return;
  }
  ReplyBulks(ctx, elements);
}

void LLenCommand(CommandContext& ctx, Args args) {
  auto len = Lists(ctx).Len(args[1]);
  if (ReplyIfError(ctx, len.status())) return;
  ctx.reply.Int(static_cast<int64_t>(*len));
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
  ctx.reply.Ok();
}

// LINDEX reads the key before parsing the index, as Redis does.
void LIndexCommand(CommandContext& ctx, Args args) {
  std::optional<storage::Record> record;
  if (!LookupTyped(ctx, args[1], KeyType::kList, &record)) return;
  if (!record) {
    ctx.reply.Null();
    return;
  }
  int64_t index = 0;
  if (!ParseInt64(args[2], &index)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  auto element = Lists(ctx).Index(args[1], index);
  if (ReplyIfError(ctx, element.status())) return;
  ReplyBulkOrNull(ctx, *element);
}

}  // namespace

void RegisterListCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"lpush", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kHead, false>, "list",
                  "Prepends one or more elements to a list. Creates the key if it doesn't exist."});
  table.Register({"rpush", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kTail, false>, "list",
                  "Appends one or more elements to a list. Creates the key if it doesn't exist."});
  table.Register({"lpushx", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kHead, true>, "list",
                  "Prepends one or more elements to a list only when the list exists."});
  table.Register({"rpushx", -3, kWriteFast, 1, 1, 1, PushCommand<ListEnd::kTail, true>, "list",
                  "Appends one or more elements to a list only when the list exists."});
  table.Register({"lpop", -2, kWriteFast, 1, 1, 1, PopCommand<ListEnd::kHead>, "list",
                  "Returns the first elements in a list after removing it."});
  table.Register({"rpop", -2, kWriteFast, 1, 1, 1, PopCommand<ListEnd::kTail>, "list",
                  "Returns and removes the last elements of the list."});
  table.Register(
      {"llen", 2, kReadFast, 1, 1, 1, LLenCommand, "list", "Returns the length of a list."});
  table.Register({"lrange", 4, F::kReadOnly, 1, 1, 1, LRangeCommand, "list",
                  "Returns a range of elements from a list."});
  table.Register({"ltrim", 4, F::kWrite, 1, 1, 1, LTrimCommand, "list",
                  "Removes elements from both ends a list."});
  table.Register({"lindex", 3, F::kReadOnly, 1, 1, 1, LIndexCommand, "list",
                  "Returns an element from a list by its index."});
}

}  // namespace sluice::server
