// Sorted-set commands: ZADD ZINCRBY ZREM ZCARD ZCOUNT ZSCORE ZMSCORE ZRANK ZREVRANK ZRANGE
// (BYSCORE BYLEX REV LIMIT WITHSCORES) ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX ZLEXCOUNT ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX ZSCAN ZRANDMEMBER
// ZRANGESTORE, with Redis 7.0's replies and errors (t_zset.c), over storage::ZSetType.
//
// Scores are replied with ReplyBuilder::Double: a "%.17g" bulk string in RESP2, a RESP3 double
// otherwise; WITHSCORES pairs are flat in RESP2 and [member, score] arrays in RESP3, as 7.0.
// ZUNION, ZINTER, ZDIFF and their STORE forms are in zset_algebra.cc; ZPOPMIN, ZPOPMAX, ZMPOP
// and their blocking forms in zset_pops.cc.

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "resp/error_messages.h"
#include "resp/number_format.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/member_scores.h"
#include "server/commands/random_reply.h"
#include "server/commands/scan_args.h"
#include "server/commands/zset_reply.h"
#include "server/keyspace_events.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::LexRange;
using storage::ScoredMember;
using storage::ScoreMemberArg;
using storage::ScoreRange;
using storage::ZSetType;

constexpr std::string_view kNanScore = "resulting score is not a number (NaN)";
constexpr std::string_view kLimitNeedsRange =
    "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";

void ReplyOptionalDouble(CommandContext& ctx, const std::optional<double>& score) {
  if (score) {
    ctx.reply.Double(*score);
  } else {
    ctx.reply.Null();
  }
}

// Redis's zslParseRange: "(" makes a bound exclusive; the rest goes through strtod up to its
// first NUL byte, so leading spaces, "" (0), "inf" and out-of-range values ("1e400" = inf)
// are accepted and only trailing garbage or NaN is refused.
bool ParseScoreBound(std::string_view arg, double* value, bool* exclusive) {
  *exclusive = !arg.empty() && arg[0] == '(';
  if (*exclusive) arg.remove_prefix(1);
  if (ParsePlainInteger(arg, value)) return true;
  const std::string text(arg);
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  return *end == '\0' && !std::isnan(*value);
}

StatusOr<ScoreRange> ParseScoreRange(std::string_view min, std::string_view max) {
  ScoreRange range;
  if (!ParseScoreBound(min, &range.min, &range.min_exclusive) ||
      !ParseScoreBound(max, &range.max, &range.max_exclusive)) {
    return Err(std::string(resp::kMinMaxNotFloat));
  }
  return range;
}

// Redis's zslParseLexRangeItem: "-", "+", or "[" / "(" followed by the member bytes.
bool ParseLexBound(std::string_view arg, storage::LexBound* bound) {
  using Kind = storage::LexBound::Kind;
  if (arg.empty()) return false;
  // Redis tests c[1] == '\0', so "+" followed by a NUL byte still counts as "+".
  const bool alone = arg.size() == 1 || arg[1] == '\0';
  switch (arg[0]) {
    case '+':
    case '-':
      if (!alone) return false;
      bound->kind = arg[0] == '+' ? Kind::kPlusInf : Kind::kMinusInf;
      bound->exclusive = true;
      return true;
    case '(':
    case '[':
      bound->kind = Kind::kValue;
      bound->exclusive = arg[0] == '(';
      bound->value = arg.substr(1);
      return true;
    default:
      return false;
  }
}

StatusOr<LexRange> ParseLexRange(std::string_view min, std::string_view max) {
  LexRange range;
  if (!ParseLexBound(min, &range.min) || !ParseLexBound(max, &range.max)) {
    return Err("min or max not valid string range item");
  }
  return range;
}

// ---- ZADD / ZINCRBY --------------------------------------------------------------------

struct ZAddArgs {
  storage::ZAddOptions options;
  bool ch = false;
  std::vector<ScoreMemberArg> pairs;
};

// As zaddGenericCommand: options, then score/member pairs. ZINCRBY comes here too (with INCR
// preset), so "ZINCRBY key nx member" is a syntax error there as well.
StatusOr<ZAddArgs> ParseZAdd(Args args, bool incr) {
  ZAddArgs parsed;
  parsed.options.incr = incr;
  size_t i = 2;
  for (; i < args.size(); ++i) {
    std::string_view opt = args[i];
    if (EqualsIgnoreCase(opt, "nx")) {
      parsed.options.nx = true;
    } else if (EqualsIgnoreCase(opt, "xx")) {
      parsed.options.xx = true;
    } else if (EqualsIgnoreCase(opt, "ch")) {
      parsed.ch = true;
    } else if (EqualsIgnoreCase(opt, "incr")) {
      parsed.options.incr = true;
    } else if (EqualsIgnoreCase(opt, "gt")) {
      parsed.options.gt = true;
    } else if (EqualsIgnoreCase(opt, "lt")) {
      parsed.options.lt = true;
    } else {
      break;
    }
  }
  const size_t elements = args.size() - i;
  if (elements == 0 || elements % 2 != 0) return SyntaxError();
  const storage::ZAddOptions& o = parsed.options;
  if (o.nx && o.xx) return Err("XX and NX options at the same time are not compatible");
  if ((o.gt && o.nx) || (o.lt && o.nx) || (o.gt && o.lt)) {
    return Err("GT, LT, and/or NX options at the same time are not compatible");
  }
  if (o.incr && elements > 2) return Err("INCR option supports a single increment-element pair");
  parsed.pairs.reserve(elements / 2);
  for (; i < args.size(); i += 2) {
    double score = 0;
    if (!ParseDouble(args[i], &score)) return NotFloatError();
    parsed.pairs.push_back({score, args[i + 1]});
  }
  return parsed;
}

void ZAddGeneric(CommandContext& ctx, Args args, bool incr) {
  auto parsed = ParseZAdd(args, incr);
  if (ReplyIfError(ctx, parsed.status())) return;
  auto result = ZSets(ctx).Add(args[1], parsed->options, parsed->pairs);
  if (ReplyIfError(ctx, result.status())) return;
  NotifyKeyspaceEventIf(ctx, result->added + result->updated > 0, kNotifyZset,
                        parsed->options.incr ? "zincr" : "zadd", args[1]);
  if (result->nan) {
    ReplyError(ctx, Err(std::string(kNanScore)));
    return;
  }
  if (parsed->options.incr) {
    if (result->processed > 0) {
      ctx.reply.Double(result->score);
    } else {
      ctx.reply.Null();
    }
  } else {
    ctx.reply.Int(
        static_cast<int64_t>(parsed->ch ? result->added + result->updated : result->added));
  }
}

void ZAddCommand(CommandContext& ctx, Args args) { ZAddGeneric(ctx, args, false); }
void ZIncrByCommand(CommandContext& ctx, Args args) { ZAddGeneric(ctx, args, true); }

// ---- Point reads and removal ----------------------------------------------------------

// A removal's reply, after its event when it removed something.
void ReplyRemoved(CommandContext& ctx, const StatusOr<uint64_t>& removed, std::string_view event,
                  std::string_view key) {
  NotifyRemoval(ctx, removed.ok() && *removed > 0, kNotifyZset, event, key);
  ReplyIntegerOrError(ctx, removed);
}

void ZRemCommand(CommandContext& ctx, Args args) {
  ReplyRemoved(ctx, ZSets(ctx).Remove(args[1], args.subspan(2)), "zrem", args[1]);
}

void ZCardCommand(CommandContext& ctx, Args args) {
  ReplyIntegerOrError(ctx, ZSets(ctx).Card(args[1]));
}

void ZScoreCommand(CommandContext& ctx, Args args) {
  auto score = ZSets(ctx).Score(args[1], args[2]);
  if (ReplyIfError(ctx, score.status())) return;
  ReplyOptionalDouble(ctx, *score);
}

void ZMScoreCommand(CommandContext& ctx, Args args) {
  std::vector<std::optional<double>> scores;
  if (!ReadMemberScores(ctx, args[1], args.subspan(2), &scores)) return;
  ctx.reply.Array(static_cast<int64_t>(scores.size()));
  for (const auto& score : scores) ReplyOptionalDouble(ctx, score);
}

template <bool kReverse>
void ZRankCommand(CommandContext& ctx, Args args) {
  auto rank = ZSets(ctx).Rank(args[1], args[2], kReverse);
  if (ReplyIfError(ctx, rank.status())) return;
  if (rank->has_value()) {
    ctx.reply.Int(static_cast<int64_t>(**rank));
  } else {
    ctx.reply.Null();
  }
}

void ZCountCommand(CommandContext& ctx, Args args) {
  auto range = ParseScoreRange(args[2], args[3]);
  if (ReplyIfError(ctx, range.status())) return;
  ReplyIntegerOrError(ctx, ZSets(ctx).Count(args[1], *range));
}

// ---- Ranges ------------------------------------------------------------------------------

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

struct ZRangeArgs {
  std::string_view key;
  RangeType type = RangeType::kRank;
  bool reverse = false;
  bool with_scores = false;
  int64_t start = 0, stop = 0;  // kRank
  ScoreRange range;             // kScore
  LexRange lex;                 // kLex
  int64_t offset = 0, limit = -1;
};

// zrangeGenericCommand's parsing: `type`/`direction` are preset by ZRANGEBYSCORE and friends
// (kAuto only for ZRANGE, which takes BYSCORE and REV). Errors come before the key is read.
// ZRANGESTORE passes its arguments from the destination on (args[1] is the source), and
// `store` refuses WITHSCORES.
StatusOr<ZRangeArgs> ParseZRange(Args args, RangeType type, Direction direction,
                                 bool store = false) {
  ZRangeArgs parsed;
  parsed.key = args[1];
  bool has_limit = false;
  for (size_t j = 4; j < args.size(); ++j) {
    const size_t left = args.size() - j - 1;
    std::string_view opt = args[j];
    if (!store && EqualsIgnoreCase(opt, "withscores")) {
      parsed.with_scores = true;
    } else if (EqualsIgnoreCase(opt, "limit") && left >= 2) {
      if (!ParseInt64(args[j + 1], &parsed.offset) || !ParseInt64(args[j + 2], &parsed.limit)) {
        return NotIntegerError();
      }
      has_limit = true;
      j += 2;
    } else if (direction == Direction::kAuto && EqualsIgnoreCase(opt, "rev")) {
      direction = Direction::kReverse;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(opt, "byscore")) {
      type = RangeType::kScore;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(opt, "bylex")) {
      type = RangeType::kLex;
    } else {
      return SyntaxError();
    }
  }
  if (direction == Direction::kAuto) direction = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  if (has_limit && parsed.limit != -1 && type == RangeType::kRank) {
    return Err(std::string(kLimitNeedsRange));
  }
  if (parsed.with_scores && type == RangeType::kLex) {
    return Err("syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  parsed.type = type;
  parsed.reverse = direction == Direction::kReverse;
  std::string_view min = args[2], max = args[3];
  if (type == RangeType::kRank) {
    if (!ParseInt64(min, &parsed.start) || !ParseInt64(max, &parsed.stop)) {
      return NotIntegerError();
    }
    return parsed;
  }
  if (parsed.reverse) std::swap(min, max);  // given as max, min
  if (type == RangeType::kLex) {
    auto lex = ParseLexRange(min, max);
    if (!lex.ok()) return lex.status();
    parsed.lex = *lex;
    return parsed;
  }
  auto range = ParseScoreRange(min, max);
  if (!range.ok()) return range.status();
  parsed.range = *range;
  return parsed;
}

StatusOr<std::vector<ScoredMember>> RangeMembers(CommandContext& ctx, const ZRangeArgs& parsed) {
  ZSetType zsets = ZSets(ctx);
  switch (parsed.type) {
    case RangeType::kScore:
      return zsets.RangeByScore(parsed.key, parsed.range, parsed.reverse, parsed.offset,
                                parsed.limit);
    case RangeType::kLex:
      return zsets.RangeByLex(parsed.key, parsed.lex, parsed.reverse, parsed.offset, parsed.limit);
    case RangeType::kAuto:  // ParseZRange settles it
    case RangeType::kRank:
      break;
  }
  return zsets.RangeByRank(parsed.key, parsed.start, parsed.stop, parsed.reverse);
}

void ZRangeGeneric(CommandContext& ctx, Args args, RangeType type, Direction direction) {
  auto parsed = ParseZRange(args, type, direction);
  if (ReplyIfError(ctx, parsed.status())) return;
  auto members = RangeMembers(ctx, *parsed);
  if (ReplyIfError(ctx, members.status())) return;
  ReplyScoredMembers(ctx, *members, parsed->with_scores);
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]: ZRANGE's range of
// src replaces dst (a missing src, or an empty range, deletes it). Redis counts the read of src
// in keyspace hits and misses; a WRONGTYPE src leaves dst alone.
void ZRangeStoreCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseZRange(args.subspan(1), RangeType::kAuto, Direction::kAuto, /*store=*/true);
  if (ReplyIfError(ctx, parsed.status())) return;
  StatusOr<std::vector<ScoredMember>> members = [&] {
    LookupCounting counting(ctx, true);
    return RangeMembers(ctx, *parsed);
  }();
  if (ReplyIfError(ctx, members.status())) return;
  const bool existed = StoreDeletesKey(ctx, members->empty(), args[1]);
  if (ReplyIfError(ctx, ZSets(ctx).Replace(args[1], *members))) return;
  NotifyStored(ctx, kNotifyZset, "zrangestore", args[1], !members->empty(), existed);
  ctx.reply.Int(static_cast<int64_t>(members->size()));
}

void ZRangeCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kAuto, Direction::kAuto);
}
void ZRevRangeCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kRank, Direction::kReverse);
}
void ZRangeByScoreCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kScore, Direction::kForward);
}
void ZRevRangeByScoreCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kScore, Direction::kReverse);
}

void ZRangeByLexCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kLex, Direction::kForward);
}
void ZRevRangeByLexCommand(CommandContext& ctx, Args args) {
  ZRangeGeneric(ctx, args, RangeType::kLex, Direction::kReverse);
}

void ZLexCountCommand(CommandContext& ctx, Args args) {
  auto range = ParseLexRange(args[2], args[3]);
  if (ReplyIfError(ctx, range.status())) return;
  ReplyIntegerOrError(ctx, ZSets(ctx).LexCount(args[1], *range));
}

void ZRemRangeByLexCommand(CommandContext& ctx, Args args) {
  auto range = ParseLexRange(args[2], args[3]);
  if (ReplyIfError(ctx, range.status())) return;
  ReplyRemoved(ctx, ZSets(ctx).RemoveRangeByLex(args[1], *range), "zremrangebylex", args[1]);
}

void ZRemRangeByScoreCommand(CommandContext& ctx, Args args) {
  auto range = ParseScoreRange(args[2], args[3]);
  if (ReplyIfError(ctx, range.status())) return;
  ReplyRemoved(ctx, ZSets(ctx).RemoveRangeByScore(args[1], *range), "zremrangebyscore", args[1]);
}

void ZRemRangeByRankCommand(CommandContext& ctx, Args args) {
  int64_t start = 0, stop = 0;
  if (!ParseInt64(args[2], &start) || !ParseInt64(args[3], &stop)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  ReplyRemoved(ctx, ZSets(ctx).RemoveRangeByRank(args[1], start, stop), "zremrangebyrank", args[1]);
}

// A score as Redis's listpack holds it (double2ll): an integral score within +-LLONG_MAX/2 is
// stored as an integer ("100000000000000000" where ZSCORE prints "1e+17"); others as ZSCORE
// prints them.
std::string_view ListpackScore(double score, char* buf) {
  constexpr double kLimit = static_cast<double>(std::numeric_limits<int64_t>::max() / 2);
  if (score >= -kLimit && score <= kLimit) {
    const auto integral = static_cast<int64_t>(score);
    if (static_cast<double>(integral) == score) return resp::FormatInt(integral, buf);
  }
  return resp::FormatDouble(score, buf);
}

// ZSCAN's scores are bulk strings in RESP3 too, as every SCAN reply's elements are in Redis: a
// whole inline set's as its listpack holds them, an indexed set's as ZSCORE prints them.
void ZScanCommand(CommandContext& ctx, Args args) {
  std::optional<ElementScan> scan = StartElementScan(ctx, args, storage::KeyType::kZSet);
  if (!scan) return;
  auto page = ZSets(ctx).ScanOf(args[1], scan->record, scan->after, scan->count);
  if (ReplyIfError(ctx, page.status())) return;
  std::erase_if(page->members, [&](const ScoredMember& m) { return !scan->Matches(m.member); });
  StartScanReply(ctx, ScanCursorFor(ctx, std::move(page->resume_after)), 2 * page->members.size());
  char buf[resp::kNumberBufferSize];
  for (const ScoredMember& m : page->members) {
    ctx.reply.Bulk(m.member);
    ctx.reply.Bulk(page->whole_inline_set ? ListpackScore(m.score, buf)
                                          : resp::FormatDouble(m.score, buf));
  }
}

// ZRANDMEMBER key [count [WITHSCORES]]: server/commands/random_reply.h has the rules.
void ZRandMemberCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseRandomArgs(args, "withscores");
  if (ReplyIfError(ctx, parsed.status())) return;
  ZSetType zsets = ZSets(ctx);
  if (ReplyIfTooManyRepeats(ctx, *parsed, [&] { return zsets.Card(args[1]); })) return;
  const int64_t count = parsed->has_count ? parsed->count : -1;
  auto sample = zsets.RandomMembers(args[1], count, SampleRng());
  if (ReplyIfError(ctx, sample.status())) return;
  ReplySample(ctx, *parsed, sample->picks.size(), [&](size_t i, bool with_score) {
    const ScoredMember& m = sample->elements[sample->picks[i]];
    ctx.reply.Bulk(m.member);
    if (with_score) ctx.reply.Double(m.score);
  });
}

}  // namespace

void RegisterZSetCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kWriteFast = F::kWrite | F::kFast;
  const F kReadFast = F::kReadOnly | F::kFast;
  const F kRead = F::kReadOnly;
  table.Register({"zadd", -4, kWriteFast, 1, 1, 1, ZAddCommand, "sorted-set"});
  table.Register({"zincrby", 4, kWriteFast, 1, 1, 1, ZIncrByCommand, "sorted-set"});
  table.Register({"zrem", -3, kWriteFast, 1, 1, 1, ZRemCommand, "sorted-set"});
  table.Register({"zcard", 2, kReadFast, 1, 1, 1, ZCardCommand, "sorted-set"});
  table.Register({"zcount", 4, kReadFast, 1, 1, 1, ZCountCommand, "sorted-set"});
  table.Register({"zscore", 3, kReadFast, 1, 1, 1, ZScoreCommand, "sorted-set"});
  table.Register({"zmscore", -3, kReadFast, 1, 1, 1, ZMScoreCommand, "sorted-set"});
  table.Register({"zrank", 3, kReadFast, 1, 1, 1, ZRankCommand<false>, "sorted-set"});
  table.Register({"zrevrank", 3, kReadFast, 1, 1, 1, ZRankCommand<true>, "sorted-set"});
  table.Register({"zrange", -4, kRead, 1, 1, 1, ZRangeCommand, "sorted-set"});
  table.Register({"zrevrange", -4, kRead, 1, 1, 1, ZRevRangeCommand, "sorted-set"});
  table.Register({"zrangebyscore", -4, kRead, 1, 1, 1, ZRangeByScoreCommand, "sorted-set"});
  table.Register({"zrevrangebyscore", -4, kRead, 1, 1, 1, ZRevRangeByScoreCommand, "sorted-set"});
  table.Register({"zrangebylex", -4, kRead, 1, 1, 1, ZRangeByLexCommand, "sorted-set"});
  table.Register({"zrevrangebylex", -4, kRead, 1, 1, 1, ZRevRangeByLexCommand, "sorted-set"});
  table.Register({"zlexcount", 4, kReadFast, 1, 1, 1, ZLexCountCommand, "sorted-set"});
  table.Register({"zremrangebylex", 4, F::kWrite, 1, 1, 1, ZRemRangeByLexCommand, "sorted-set"});
  table.Register(
      {"zremrangebyscore", 4, F::kWrite, 1, 1, 1, ZRemRangeByScoreCommand, "sorted-set"});
  table.Register({"zremrangebyrank", 4, F::kWrite, 1, 1, 1, ZRemRangeByRankCommand, "sorted-set"});
  table.Register({"zrangestore", -5, F::kWrite, 1, 2, 1, ZRangeStoreCommand, "sorted-set"});
  table.Register(
      WithTips({"zscan", -3, kRead, 1, 1, 1, ZScanCommand, "sorted-set"}, kNondeterministic));
  table.Register(WithTips({"zrandmember", -2, kRead, 1, 1, 1, ZRandMemberCommand, "sorted-set"},
                          kNondeterministic));
}

}  // namespace sluice::server
