// Set commands: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SPOP SMOVE SSCAN,
// with Redis 7.0's replies and errors (t_set.c), over storage::SetType. The algebra (SINTER and
// its kin) is set_algebra.cc's.
//
// Members come in member (bytewise) order, or numerically where Redis would hold an intset
// (set_reply.h); Redis promises no order.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/random_reply.h"
#include "server/commands/scan_args.h"
#include "server/commands/set_reply.h"
#include "server/keyspace_events.h"
#include "storage/set_type.h"

namespace sluice::server {

namespace {

// The members' integer values when the set fits an intset; nullopt otherwise.
std::optional<std::vector<int64_t>> IntsetValues(std::span<const std::string> members) {
  if (members.size() > kIntsetEntries) return std::nullopt;
  std::vector<int64_t> values(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    if (!ParseInt64(members[i], &values[i])) return std::nullopt;
  }
  return values;
}

}  // namespace

bool FitsIntset(std::span<const std::string> members) {
  return IntsetValues(members).has_value();
}

void OrderLikeRedis(std::vector<std::string>& members) {
  if (members.size() < 2) return;
  std::optional<std::vector<int64_t>> values = IntsetValues(members);
  if (!values) return;
  // Each member parsed once: sort the positions by value, then the members by position.
  std::vector<size_t> order(members.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return (*values)[a] < (*values)[b]; });
  std::vector<std::string> sorted;
  sorted.reserve(members.size());
  for (size_t i : order) sorted.push_back(std::move(members[i]));
  members = std::move(sorted);
}

void ReplyMemberSet(CommandContext& ctx, std::vector<std::string>& members) {
  OrderLikeRedis(members);
  ctx.reply.Set(static_cast<int64_t>(members.size()));
  for (const std::string& member : members) ctx.reply.Bulk(member);
}

namespace {

using storage::SetType;

SetType Sets(CommandContext& ctx) { return SetType(ctx.engine(), ctx.now_ms); }

// SPOP's count, as Redis 7.0 reads it: a non-negative integer, any other text the same error.
constexpr std::string_view kPopCountRange = "value is out of range, must be positive";

void SAddCommand(CommandContext& ctx, Args args) {
  auto added = Sets(ctx).Add(args[1], args.subspan(2));
  NotifyKeyspaceEventIf(ctx, added.ok() && *added > 0, kNotifySet, "sadd", args[1]);
  ReplyIntegerOrError(ctx, added);
}

void SRemCommand(CommandContext& ctx, Args args) {
  auto removed = Sets(ctx).Remove(args[1], args.subspan(2));
  NotifyRemoval(ctx, removed.ok() && *removed > 0, kNotifySet, "srem", args[1]);
  ReplyIntegerOrError(ctx, removed);
}

void SCardCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, Sets(ctx).Card(args[1]));
}

void SIsMemberCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, Sets(ctx).IsMember(args[1], args[2]));
}

void SMIsMemberCommand(CommandContext& ctx, Args args) {
  auto found = Sets(ctx).AreMembers(args[1], args.subspan(2));
  if (ReplyIfError(ctx, found.status())) return;
  ctx.reply.Array(static_cast<int64_t>(found->size()));
  for (bool member : *found) ctx.reply.Int(member ? 1 : 0);
}

void SMembersCommand(CommandContext& ctx, Args args) {
  auto members = Sets(ctx).Members(args[1]);
  if (ReplyIfError(ctx, members.status())) return;
  ReplyMemberSet(ctx, *members);
}

// SRANDMEMBER key [count]: server/commands/random_reply.h has the rules; more arguments are a
// syntax error before the count is read.
void SRandMemberCommand(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  auto parsed = ParseRandomArgs(args, /*option=*/"");
  if (ReplyIfError(ctx, parsed.status())) return;
  SetType sets = Sets(ctx);
  if (ReplyIfTooManyRepeats(ctx, *parsed, [&] { return sets.Card(args[1]); })) return;
  const int64_t count = parsed->has_count ? parsed->count : -1;
  auto sample = sets.RandomMembers(args[1], count, SampleRng());
  if (ReplyIfError(ctx, sample.status())) return;
  ReplySample(ctx, *parsed, sample->picks.size(),
              [&](size_t i, bool) { ctx.reply.Bulk(sample->elements[sample->picks[i]]); });
}

// SPOP key [count]: one member (nil for a missing key), or with a count a set of up to count
// members. The count is read before the key.
void SPopCommand(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  int64_t count = 1;
  if (args.size() == 3 && (!ParseInt64(args[2], &count) || count < 0)) {
    ReplyError(ctx, Err(std::string(kPopCountRange)));
    return;
  }
  bool took_all = false;
  auto popped = Sets(ctx).Pop(args[1], static_cast<uint64_t>(count), SampleRng(), &took_all);
  if (ReplyIfError(ctx, popped.status())) return;
  // Redis 7.0 replies a count that takes the whole set through SUNION's code, whose read
  // lookup of the key counts as a keyspace hit.
  if (took_all && args.size() == 3) ++ctx.server.stats.keyspace.hits;
  NotifyRemoval(ctx, !popped->empty(), kNotifySet, "spop", args[1]);
  if (args.size() == 3) {
    ReplyMemberSet(ctx, *popped);
  } else if (popped->empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(popped->front());
  }
}

// SMOVE with its events: Redis sends "sadd" only when the destination gains the member, which
// is known before the move.
void SMoveNotifying(CommandContext& ctx, Args args, SetType& sets) {
  bool destination_had = false;
  if (args[1] != args[2]) {
    LookupCounting not_counted(ctx, false);
    auto had = sets.IsMember(args[2], args[3]);
    destination_had = had.ok() && *had;
  }
  auto moved = sets.Move(args[1], args[2], args[3]);
  if (moved.ok() && *moved && args[1] != args[2]) {
    NotifyRemoval(ctx, true, kNotifySet, "srem", args[1]);
    NotifyKeyspaceEventIf(ctx, !destination_had, kNotifySet, "sadd", args[2]);
  }
  ReplyIntegerOrError(ctx, moved);
}

void SMoveCommand(CommandContext& ctx, Args args) {
  SetType sets = Sets(ctx);
  if (KeyspaceEventsOn(ctx, kNotifySet | kNotifyGeneric)) {
    SMoveNotifying(ctx, args, sets);
    return;
  }
  ReplyIntegerOrError(ctx, sets.Move(args[1], args[2], args[3]));
}

void SScanCommand(CommandContext& ctx, Args args) {
  std::optional<ElementScan> scan = StartElementScan(ctx, args, storage::KeyType::kSet);
  if (!scan) return;
  auto page = Sets(ctx).ScanOf(args[1], scan->record, scan->after, scan->count);
  if (ReplyIfError(ctx, page.status())) return;
  // A set that came whole comes in Redis's order, as an intset's SSCAN does (the last page of
  // a larger set stays in member order).
  if (!page->resume_after && scan->record.meta.size <= SetType::kScanWhole) {
    OrderLikeRedis(page->members);
  }
  std::erase_if(page->members, [&](const std::string& m) { return !scan->Matches(m); });
  StartScanReply(ctx, ScanCursorFor(ctx, std::move(page->resume_after)), page->members.size());
  for (const std::string& member : page->members) ctx.reply.Bulk(member);
}

}  // namespace

void RegisterSetCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  table.Register({"sadd", -3, kWriteFast, 1, 1, 1, SAddCommand, "set"});
  table.Register({"srem", -3, kWriteFast, 1, 1, 1, SRemCommand, "set"});
  table.Register({"scard", 2, kReadFast, 1, 1, 1, SCardCommand, "set"});
  table.Register({"sismember", 3, kReadFast, 1, 1, 1, SIsMemberCommand, "set"});
  table.Register({"smismember", -3, kReadFast, 1, 1, 1, SMIsMemberCommand, "set"});
  table.Register(
      WithTips({"smembers", 2, F::kReadOnly, 1, 1, 1, SMembersCommand, "set"}, kInAnyOrder));
  table.Register(WithTips({"srandmember", -2, F::kReadOnly, 1, 1, 1, SRandMemberCommand, "set"},
                          kNondeterministic));
  table.Register(
      WithTips({"spop", -2, kWriteFast, 1, 1, 1, SPopCommand, "set"}, kNondeterministic));
  table.Register({"smove", 4, kWriteFast, 1, 2, 1, SMoveCommand, "set"});
  table.Register(
      WithTips({"sscan", -3, F::kReadOnly, 1, 1, 1, SScanCommand, "set"}, kNondeterministic));
}

}  // namespace sluice::server
