// Sorted-set algebra: ZUNION ZINTER ZDIFF, ZUNIONSTORE ZINTERSTORE ZDIFFSTORE and ZINTERCARD,
// with Redis 7.0's arguments, replies and errors (t_zset.c's zunionInterDiffGenericCommand).
// The algebra itself is storage/zset_algebra.h's; the sources are looked up once each and read
// whole under the records found (storage/zset_sources.h's LoadZSetOrSetSources and
// ScoredMembersOf), and a STORE form replaces its destination through ZSetType::Replace.
// ZINTERCARD reads no source whole: it counts by storage/zset_intercard.h's walk.
//
// Redis's order of checks: the key count (an integer, at least 1, no more than the arguments
// left), then every source's type (WRONGTYPE before any option error), then the options.
// A plain set is a source too, each member with score 1, as in Redis 7.0.

#include "storage/zset_algebra.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/zset_reply.h"
#include "server/keyspace_events.h"
#include "storage/zset_intercard.h"
#include "storage/zset_sources.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::ScoredMember;
using storage::ZAggregate;
using storage::ZSetSource;
using storage::ZSetType;

enum class ZSetOp { kUnion, kInter, kDiff };

constexpr std::string_view kWeightNotFloat = "weight value is not a float";

struct ZSetOpOptions {
  std::vector<double> weights;  // one per source
  ZAggregate aggregate = ZAggregate::kSum;
  bool with_scores = false;
};

// The source keys after the count in args[count_at]. The error for none names the command
// in lower case, as Redis's "at least 1 input key is needed for 'zunion' command".
StatusOr<Args> ParseSourceKeys(Args args, size_t count_at) {
  int64_t count = 0;
  if (!ParseInt64(args[count_at], &count)) return NotIntegerError();
  if (count < 1) {
    return Err("at least 1 input key is needed for '" + AsciiLowered(args[0]) + "' command");
  }
  if (count > static_cast<int64_t>(args.size() - count_at - 1)) return SyntaxError();
  return args.subspan(count_at + 1, static_cast<size_t>(count));
}

// What follows the keys, in Redis's loop: WEIGHTS takes one float per key (only when that many
// arguments are left), AGGREGATE one of SUM MIN MAX, WITHSCORES only without a destination;
// ZDIFF takes neither WEIGHTS nor AGGREGATE. Repeats are allowed, the last one wins.
StatusOr<ZSetOpOptions> ParseZSetOpOptions(Args rest, size_t keys, ZSetOp op, bool store) {
  ZSetOpOptions options;
  options.weights.assign(keys, 1.0);
  size_t j = 0;
  while (j < rest.size()) {
    const size_t remaining = rest.size() - j;
    std::string_view opt = rest[j];
    if (op != ZSetOp::kDiff && remaining >= keys + 1 && EqualsIgnoreCase(opt, "weights")) {
      ++j;
      for (size_t i = 0; i < keys; ++i, ++j) {
        if (!ParseDouble(rest[j], &options.weights[i])) return Err(std::string(kWeightNotFloat));
      }
    } else if (op != ZSetOp::kDiff && remaining >= 2 && EqualsIgnoreCase(opt, "aggregate")) {
      std::string_view how = rest[j + 1];
      if (EqualsIgnoreCase(how, "sum")) {
        options.aggregate = ZAggregate::kSum;
      } else if (EqualsIgnoreCase(how, "min")) {
        options.aggregate = ZAggregate::kMin;
      } else if (EqualsIgnoreCase(how, "max")) {
        options.aggregate = ZAggregate::kMax;
      } else {
        return SyntaxError();
      }
      j += 2;
    } else if (!store && EqualsIgnoreCase(opt, "withscores")) {
      options.with_scores = true;
      ++j;
    } else {
      return SyntaxError();
    }
  }
  return options;
}

// A source this many times larger than the members an intersection or a difference starts from
// is asked for those members one by one rather than read whole (a point read costs a few steps
// of a walk).
constexpr uint64_t kPointReadsOverWalk = 4;

// The source whose members an intersection or a difference starts from, as Redis's: ZINTER's
// smallest (the first of them), ZDIFF's first. None for a union.
std::optional<size_t> LeadingSource(ZSetOp op, const std::vector<storage::SetSource>& found) {
  if (op == ZSetOp::kUnion) return std::nullopt;
  if (op == ZSetOp::kDiff) return 0;
  size_t smallest = 0;
  for (size_t i = 1; i < found.size(); ++i) {
    if (found[i].size() < found[smallest].size()) smallest = i;
  }
  return smallest;
}

// Every source, looked up once (and counted in keyspace hits and misses, the STORE forms' too)
// before the options are judged, as Redis does: a source that is neither a sorted set nor a
// set is WRONGTYPE before any option error. With options that will be refused
// (`read_members` false), no source is read; otherwise each is read under the record found
// (a plain set's members with score 1, as Redis's zuiNext of a set). Of ZINTER's and ZDIFF's
// other sources only the leading one's members can matter: a much larger one is asked for
// them alone (a 19-member set against 1,000,000 members: 19 point reads, not a walk of the
// million). False when an error was replied.
bool LoadSources(CommandContext& ctx, ZSetOp op, Args keys, bool read_members,
                 std::vector<ZSetSource>* sources) {
  LookupCounting counting(ctx, true);
  auto found = storage::LoadZSetOrSetSources(ctx.engine(), ctx.now_ms, keys);
  if (ReplyIfError(ctx, found.status())) return false;
  if (!read_members) return true;
  sources->resize(keys.size());
  const std::optional<size_t> leading = LeadingSource(op, *found);
  auto read = [&](size_t i) {
    (*sources)[i].size = (*found)[i].size();
    const bool point_reads =
        leading && i != *leading &&
        (*sources)[*leading].members.size() * kPointReadsOverWalk < (*found)[i].size();
    auto members = point_reads ? storage::ScoredMembersAmong(ctx.engine(), ctx.now_ms, (*found)[i],
                                                             (*sources)[*leading].members)
                               : storage::ScoredMembersOf(ctx.engine(), ctx.now_ms, (*found)[i]);
    if (ReplyIfError(ctx, members.status())) return false;
    (*sources)[i].members = std::move(*members);
    return true;
  };
  if (leading && !read(*leading)) return false;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i != leading && !read(i)) return false;
  }
  return true;
}

// ZUNION numkeys key ... / ZUNIONSTORE destination numkeys key ... and the others.
template <ZSetOp op, bool store>
void ZSetOpCommand(CommandContext& ctx, Args args) {
  const size_t count_at = store ? 2 : 1;
  StatusOr<Args> keys = ParseSourceKeys(args, count_at);
  if (ReplyIfError(ctx, keys.status())) return;
  StatusOr<ZSetOpOptions> options =
      ParseZSetOpOptions(args.subspan(count_at + 1 + keys->size()), keys->size(), op, store);
  std::vector<ZSetSource> sources;
  if (!LoadSources(ctx, op, *keys, options.ok(), &sources)) return;
  if (ReplyIfError(ctx, options.status())) return;
  for (size_t i = 0; i < sources.size(); ++i) sources[i].weight = options->weights[i];
  std::vector<ScoredMember> result;
  switch (op) {
    case ZSetOp::kUnion:
      result = storage::ZSetUnion(sources, options->aggregate);
      break;
    case ZSetOp::kInter:
      result = storage::ZSetInter(sources, options->aggregate);
      break;
    case ZSetOp::kDiff:
      result = storage::ZSetDiff(sources);
      break;
  }
  if (!store) {
    ReplyScoredMembers(ctx, result, options->with_scores);
    return;
  }
  const bool existed = StoreDeletesKey(ctx, result.empty(), args[1]);
  if (ReplyIfError(ctx, ZSetType(ctx.engine(), ctx.now_ms).Replace(args[1], result))) return;
  constexpr std::string_view kEvent = op == ZSetOp::kUnion   ? "zunionstore"
                                      : op == ZSetOp::kInter ? "zinterstore"
                                                             : "zdiffstore";
  NotifyStored(ctx, kNotifyZset, kEvent, args[1], !result.empty(), existed);
  ctx.reply.Int(static_cast<int64_t>(result.size()));
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit]: the size of the intersection, counted up to
// `limit` (0: no limit) by storage/zset_intercard.h's walk, which stops there. LIMIT takes a
// non-negative integer ("LIMIT can't be negative" for anything else, as Redis's
// getPositiveLongFromObjectOrReply); repeats allowed, the last wins.
void ZInterCardCommand(CommandContext& ctx, Args args) {
  StatusOr<Args> keys = ParseSourceKeys(args, 1);
  if (ReplyIfError(ctx, keys.status())) return;
  Status options = Status::Ok();
  int64_t limit = 0;
  for (size_t j = 2 + keys->size(); j < args.size() && options.ok(); ++j) {
    if (EqualsIgnoreCase(args[j], "limit") && j + 1 < args.size()) {
      ++j;
      if (!ParseInt64(args[j], &limit) || limit < 0) options = Err("LIMIT can't be negative");
    } else {
      options = SyntaxError();
    }
  }
  // (A read-only command: the dispatcher counts its lookups in the keyspace stats.)
  auto sources = storage::LoadZSetOrSetSources(ctx.engine(), ctx.now_ms, *keys);
  if (ReplyIfError(ctx, sources.status())) return;  // WRONGTYPE before any option error
  if (ReplyIfError(ctx, options)) return;
  ReplyIntegerOrError(ctx, storage::ZSetInterCard(ctx.engine(), ctx.now_ms, *sources,
                                                  static_cast<uint64_t>(limit)));
}

}  // namespace

void RegisterZSetAlgebraCommands(CommandTable& table) {
  using F = CommandFlags;
  // The STORE forms: the destination is the one key of the table's range (the one a write
  // touches for WATCH); the sources follow the count in args[2], as EVAL's keys. The reading
  // forms have only the counted keys, after args[1].
  const F kStore = F::kWrite | F::kMovableKeys;
  const F kRead = F::kReadOnly | F::kMovableKeys;
  table.Register(WithKeyCountAt(
      {"zunionstore", -4, kStore, 1, 1, 1, ZSetOpCommand<ZSetOp::kUnion, true>, "sorted-set"}, 2));
  table.Register(WithKeyCountAt(
      {"zinterstore", -4, kStore, 1, 1, 1, ZSetOpCommand<ZSetOp::kInter, true>, "sorted-set"}, 2));
  table.Register(WithKeyCountAt(
      {"zdiffstore", -4, kStore, 1, 1, 1, ZSetOpCommand<ZSetOp::kDiff, true>, "sorted-set"}, 2));
  table.Register(WithKeyCountAt(
      {"zunion", -3, kRead, 0, 0, 0, ZSetOpCommand<ZSetOp::kUnion, false>, "sorted-set"}, 1));
  table.Register(WithKeyCountAt(
      {"zinter", -3, kRead, 0, 0, 0, ZSetOpCommand<ZSetOp::kInter, false>, "sorted-set"}, 1));
  table.Register(WithKeyCountAt(
      {"zdiff", -3, kRead, 0, 0, 0, ZSetOpCommand<ZSetOp::kDiff, false>, "sorted-set"}, 1));
  table.Register(
      WithKeyCountAt({"zintercard", -3, kRead, 0, 0, 0, ZInterCardCommand, "sorted-set"}, 1));
}

}  // namespace sluice::server
