// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN], with Redis 7.0's replies and
// errors (t_string.c's lcsCommand); the table and its walk are server/commands/lcs_ops.h's.
//
// Redis's order: both keys are looked up first (a key of another type: "The specified keys
// must contain string values", before any option error; a missing key is an empty string),
// then the options, then LEN with IDX, then the sizes: the table, (len1 + 1) x (len2 + 1) cells
// of 4 bytes, may not pass proto-max-bulk-len.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/lcs_ops.h"

namespace sluice::server {
namespace {

using storage::KeyType;

constexpr std::string_view kNotStrings = "The specified keys must contain string values";
constexpr std::string_view kLenAndIdx =
    "If you want both the length and indexes, please just use IDX.";
constexpr std::string_view kTooLong = "String too long for LCS";
constexpr std::string_view kPastBulkLen =
    "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
constexpr std::string_view kNoMemory =
    "Insufficient memory, failed allocating transient memory for LCS";

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

StatusOr<LcsOptions> ParseLcsOptions(Args args) {
  LcsOptions options;
  for (size_t j = 3; j < args.size(); ++j) {
    const bool more = j + 1 < args.size();
    if (IsCKeyword(args[j], "idx")) {
      options.idx = true;
    } else if (IsCKeyword(args[j], "len")) {
      options.len = true;
    } else if (IsCKeyword(args[j], "withmatchlen")) {
      options.with_match_len = true;
    } else if (IsCKeyword(args[j], "minmatchlen") && more) {
      if (!ParseInt64(args[j + 1], &options.min_match_len)) return NotIntegerError();
      ++j;
    } else {
      return SyntaxError();
    }
  }
  if (options.idx && options.len) return Err(std::string(kLenAndIdx));
  return options;
}

// IDX's reply: a map of "matches" (each [[a_start, a_end], [b_start, b_end]] and, with
// WITHMATCHLEN, the length) and "len".
void ReplyMatches(CommandContext& ctx, const LcsResult& result, bool with_match_len) {
  ctx.reply.Map(2);
  ctx.reply.Bulk("matches");
  ctx.reply.Array(static_cast<int64_t>(result.matches.size()));
  for (const LcsMatch& match : result.matches) {
    ctx.reply.Array(with_match_len ? 3 : 2);
    ctx.reply.Array(2);
    ctx.reply.Int(match.a_start);
    ctx.reply.Int(match.a_end);
    ctx.reply.Array(2);
    ctx.reply.Int(match.b_start);
    ctx.reply.Int(match.b_end);
    if (with_match_len) ctx.reply.Int(match.length());
  }
  ctx.reply.Bulk("len");
  ctx.reply.Int(result.length);
}

void LcsCommand(CommandContext& ctx, Args args) {
  std::optional<storage::Record> a;
  std::optional<storage::Record> b;
  if (!LookupAny(ctx, args[1], &a) || !LookupAny(ctx, args[2], &b)) return;
  if ((a && a->meta.type != KeyType::kString) || (b && b->meta.type != KeyType::kString)) {
    ReplyError(ctx, Err(std::string(kNotStrings)));
    return;
  }
  auto options = ParseLcsOptions(args);
  if (ReplyIfError(ctx, options.status())) return;
  const std::string_view a_text = a ? std::string_view(a->payload) : std::string_view();
  const std::string_view b_text = b ? std::string_view(b->payload) : std::string_view();
  constexpr uint64_t kMaxLength = std::numeric_limits<uint32_t>::max() - 1;
  if (a_text.size() >= kMaxLength || b_text.size() >= kMaxLength) {
    ReplyError(ctx, Err(std::string(kTooLong)));
    return;
  }
  const std::optional<uint64_t> table_bytes = LcsTableBytes(a_text.size(), b_text.size());
  if (table_bytes && *table_bytes > ctx.server.config->proto_max_bulk_len) {
    ReplyError(ctx, Err(std::string(kPastBulkLen)));
    return;
  }
  std::optional<LcsResult> result;
  if (table_bytes) {
    result = ComputeLcs(a_text, b_text, /*want_subsequence=*/!options->idx && !options->len,
                        /*want_matches=*/options->idx, options->min_match_len);
  }
  if (!result) {
    ReplyError(ctx, Err(std::string(kNoMemory)));
    return;
  }
  if (options->idx) {
    ReplyMatches(ctx, *result, options->with_match_len);
  } else if (options->len) {
    ctx.reply.Int(result->length);
  } else {
    ctx.reply.Bulk(result->subsequence);
  }
}

}  // namespace

void RegisterLcsCommands(CommandTable& table) {
  table.Register({"lcs", -3, CommandFlags::kReadOnly, 1, 2, 1, LcsCommand, "string"});
}

}  // namespace sluice::server
