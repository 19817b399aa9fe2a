#include "server/commands/random_reply.h"

#include <algorithm>
#include <limits>
#include <string>

#include "server/arg_cursor.h"
#include "server/commands/helpers.h"

namespace sluice::server {

StatusOr<RandomArgs> ParseRandomArgs(Args args, std::string_view option) {
  RandomArgs parsed;
  if (args.size() < 3) return parsed;
  parsed.has_count = true;
  if (!ParseInt64(args[2], &parsed.count)) return NotIntegerError();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (parsed.count < -kMax) {
    return Err(
        "value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
  }
  if (args.size() > 4 || (args.size() == 4 && !EqualsIgnoreCase(args[3], option))) {
    return SyntaxError();
  }
  parsed.with_values = args.size() == 4;
  if (parsed.with_values && (parsed.count < -kMax / 2 || parsed.count > kMax / 2)) {
    return Err("value is out of range");
  }
  return parsed;
}

std::mt19937_64& SampleRng() {
  static std::mt19937_64 rng = [] {
    std::random_device seed;
    return std::mt19937_64((static_cast<uint64_t>(seed()) << 32) ^ seed());
  }();
  return rng;
}

namespace {

// An element of the reply takes at least 6 bytes ("$0\r\n\r\n"); without a hard limit 512 MB
// (proto-max-bulk-len's default) stands in. Also bounds PlanSample's 32-bit picks.
uint64_t MaxRandomRepeats(const CommandContext& ctx) {
  constexpr uint64_t kMinElementBytes = 6;
  constexpr uint64_t kNoLimitBytes = 512ull << 20;
  const uint64_t hard =
      ctx.server.config ? ctx.server.config->client_output_buffer_limit.hard_bytes : 0;
  return std::min<uint64_t>((hard != 0 ? hard : kNoLimitBytes) / kMinElementBytes,
                            std::numeric_limits<uint32_t>::max());
}

}  // namespace

bool ReplyIfTooManyRepeats(CommandContext& ctx, const RandomArgs& args,
                           const std::function<StatusOr<uint64_t>()>& size) {
  const int64_t count = args.has_count ? args.count : -1;
  if (count >= 0 || uint64_t{0} - static_cast<uint64_t>(count) <= MaxRandomRepeats(ctx)) {
    return false;
  }
  StatusOr<uint64_t> elements = size();
  if (ReplyIfError(ctx, elements.status())) return true;
  if (*elements == 0) {
    ctx.reply.Array(0);
  } else {
    ReplyError(ctx, Err("value is out of range"));
  }
  return true;
}

void ReplySample(CommandContext& ctx, const RandomArgs& args, size_t picks,
                 const std::function<void(size_t, bool)>& reply_pick) {
  if (!args.has_count) {
    if (picks == 0) {
      ctx.reply.Null();
    } else {
      reply_pick(0, false);
    }
    return;
  }
  const bool pairs = args.with_values && ctx.reply.protocol() == resp::ProtocolVersion::kResp3;
  const auto n = static_cast<int64_t>(picks);
  ctx.reply.Array(args.with_values && !pairs ? 2 * n : n);
  for (size_t i = 0; i < picks; ++i) {
    if (pairs) ctx.reply.Array(2);
    reply_pick(i, args.with_values);
  }
}

}  // namespace sluice::server
