#pragma once

// What the sorted-set commands share (zsets.cc, zset_pops.cc, zset_algebra.cc, geo.cc): the
// type at the command's clock, and the reply shape.

#include <cstdint>
#include <vector>

#include "server/command_context.h"
#include "storage/zset_type.h"

namespace sluice::server {

inline storage::ZSetType ZSets(CommandContext& ctx) {
  return storage::ZSetType(ctx.engine(), ctx.now_ms);
}

// Members, with their scores when `with_scores` (ZRANGE ... WITHSCORES, ZUNION ... WITHSCORES):
// flat member, score pairs in RESP2, [member, score] arrays in RESP3, as Redis 7.0.
inline void ReplyScoredMembers(CommandContext& ctx,
                               const std::vector<storage::ScoredMember>& members,
                               bool with_scores) {
  const auto n = static_cast<int64_t>(members.size());
  const bool pairs = with_scores && ctx.reply.protocol() == resp::ProtocolVersion::kResp3;
  ctx.reply.Array(with_scores && !pairs ? 2 * n : n);
  for (const storage::ScoredMember& m : members) {
    if (pairs) ctx.reply.Array(2);
    ctx.reply.Bulk(m.member);
    if (with_scores) ctx.reply.Double(m.score);
  }
}

}  // namespace sluice::server
