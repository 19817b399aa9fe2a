#include "storage/zset_sources.h"

#include <optional>
#include <string>
#include <utility>

#include "storage/composite.h"
#include "storage/record.h"
#include "storage/set_type.h"
#include "storage/zset_key.h"

namespace sluice::storage {

StatusOr<std::vector<SetSource>> LoadZSetOrSetSources(Engine& engine, int64_t now_ms,
                                                      std::span<const std::string_view> keys) {
  std::vector<SetSource> sources;
  sources.reserve(keys.size());
  for (std::string_view key : keys) {
    StatusOr<std::optional<Record>> found = engine.Get(key, now_ms);
    if (!found.ok()) return found.status();
    if (found->has_value() && (*found)->meta.type != KeyType::kZSet &&
        (*found)->meta.type != KeyType::kSet) {
      return WrongTypeStatus();
    }
    sources.push_back({key, std::move(*found)});
  }
  return sources;
}

StatusOr<std::vector<ScoredMember>> ScoredMembersOf(Engine& engine, int64_t now_ms,
                                                    const SetSource& source) {
  if (!source.record) return std::vector<ScoredMember>();
  if (source.record->meta.type == KeyType::kZSet) {
    return ZSetType(engine, now_ms).MembersOf(source.key, *source.record);
  }
  StatusOr<std::vector<std::string>> members =
      SetType(engine, now_ms).MembersOf(source.key, *source.record);
  if (!members.ok()) return members.status();
  std::vector<ScoredMember> scored;
  scored.reserve(members->size());
  for (std::string& member : *members) scored.push_back({std::move(member), 1.0});
  return scored;
}

StatusOr<std::vector<ScoredMember>> ScoredMembersAmong(Engine& engine, int64_t now_ms,
                                                       const SetSource& source,
                                                       std::span<const ScoredMember> candidates) {
  std::vector<ScoredMember> held;
  if (!source.record || candidates.empty()) return held;
  if (source.record->meta.type == KeyType::kZSet) {
    ZSetReader zset(engine, source.key, *source.record);
    SLUICE_RETURN_IF_ERROR(zset.Load());
    for (const ScoredMember& candidate : candidates) {
      StatusOr<std::optional<double>> score = zset.Score(candidate.member);
      if (!score.ok()) return score.status();
      if (score->has_value()) held.push_back({candidate.member, **score});
    }
    return held;
  }
  SetType sets(engine, now_ms);
  for (const ScoredMember& candidate : candidates) {
    StatusOr<bool> contains = sets.Contains(source.key, *source.record, candidate.member);
    if (!contains.ok()) return contains.status();
    if (*contains) held.push_back({candidate.member, 1.0});
  }
  return held;
}

}  // namespace sluice::storage
