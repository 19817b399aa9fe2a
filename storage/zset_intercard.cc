#include "storage/zset_intercard.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <utility>

#include "storage/composite.h"
#include "storage/set_type.h"
#include "storage/zset_key.h"

namespace sluice::storage {

namespace {

// An index key is the sorted set's prefix, 8 ordered score bytes, then the member.
constexpr size_t kScoreBytes = 8;

// A present source opened for the walk: a sorted set through its ZSetKey (its record decoded
// once, then walked or searched), a set through SetType's reads of its record.
class OpenSource {
 public:
  OpenSource(Engine& engine, SetType& sets, ZInterSource& source) : sets_(sets), source_(source) {
    if (source.record->meta.type == KeyType::kZSet) {
      zset_.emplace(engine, source.key, *source.record, InlineLimits{});
    }
  }

  Status Load() { return zset_ ? zset_->Load() : Status::Ok(); }
  std::string_view key() const { return source_.key; }

  // Calls visit(member) for each member, in the source's order, while it returns true.
  Status Visit(const std::function<StatusOr<bool>(std::string_view)>& visit) {
    if (!zset_) return sets_.VisitMembers(source_.key, *source_.record, visit);
    const size_t member_at = zset_->prefix().size() + kScoreBytes;
    std::unique_ptr<SubEntryIterator> it = zset_->Index();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().size() < member_at) return CorruptZSet("index key truncated");
      StatusOr<bool> more = visit(it->key().substr(member_at));
      if (!more.ok()) return more.status();
      if (!*more) return Status::Ok();
    }
    return it->status();
  }

  StatusOr<bool> Contains(std::string_view member) {
    if (!zset_) return sets_.Contains(source_.key, *source_.record, member);
    StatusOr<std::optional<double>> score = zset_->Score(member);
    if (!score.ok()) return score.status();
    return score->has_value();
  }

 private:
  SetType& sets_;
  ZInterSource& source_;
  std::optional<ZSetKey> zset_;  // a sorted set's; nullopt for a set
};

}  // namespace

StatusOr<std::vector<ZInterSource>> LoadZInterSources(Engine& engine, int64_t now_ms,
                                                      std::span<const std::string_view> keys) {
  std::vector<ZInterSource> sources;
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

StatusOr<uint64_t> ZSetInterCard(Engine& engine, int64_t now_ms, std::span<ZInterSource> sources,
                                 uint64_t limit) {
  for (const ZInterSource& source : sources) {
    if (!source.record) return uint64_t{0};  // an empty set: so is the intersection
  }
  if (sources.empty()) return uint64_t{0};
  std::vector<ZInterSource*> by_size;
  by_size.reserve(sources.size());
  for (ZInterSource& source : sources) by_size.push_back(&source);
  std::stable_sort(
      by_size.begin(), by_size.end(),
      [](const ZInterSource* a, const ZInterSource* b) { return a->size() < b->size(); });
  SetType sets(engine, now_ms);
  std::deque<OpenSource> open;  // a deque: an OpenSource holds a ZSetKey, which never moves
  for (ZInterSource* source : by_size) {
    open.emplace_back(engine, sets, *source);
    SLUICE_RETURN_IF_ERROR(open.back().Load());
  }
  OpenSource& smallest = open.front();
  uint64_t count = 0;
  SLUICE_RETURN_IF_ERROR(smallest.Visit([&](std::string_view member) -> StatusOr<bool> {
    for (size_t i = 1; i < open.size(); ++i) {
      // The same key again (ZINTERCARD 2 a a) holds every member: not read, as Redis skips
      // the object it is walking.
      if (open[i].key() == smallest.key()) continue;
      StatusOr<bool> found = open[i].Contains(member);
      if (!found.ok()) return found.status();
      if (!*found) return true;  // not in every source: on to the next member
    }
    ++count;
    return limit == 0 || count < limit;
  }));
  return count;
}

}  // namespace sluice::storage
