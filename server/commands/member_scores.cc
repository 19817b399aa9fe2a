#include "server/commands/member_scores.h"

#include <utility>

#include "server/commands/helpers.h"
#include "storage/zset_type.h"

namespace sluice::server {

bool ReadMemberScores(CommandContext& ctx, std::string_view key, Args members,
                      std::vector<std::optional<double>>* scores) {
  std::optional<storage::Record> source;
  if (!LookupTyped(ctx, key, storage::KeyType::kZSet, &source)) return false;
  if (!source) {
    scores->assign(members.size(), std::nullopt);
    return true;
  }
  auto found = storage::ZSetType(ctx.engine(), ctx.now_ms).ScoresOf(key, *source, members);
  if (ReplyIfError(ctx, found.status())) return false;
  *scores = std::move(*found);
  return true;
}

}  // namespace sluice::server
