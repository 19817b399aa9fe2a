#include "storage/zset_intercard.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "storage/key_encoding.h"
#include "storage/set_type.h"
#include "storage/zset_key.h"

namespace sluice::storage {

namespace {

// ZINTERCARD's reads: a sorted set through its ZSetReader (its record decoded once, when first
// read, then walked or searched), a set through SetType.
class ZSetOrSetReader final : public IntersectionReader {
 public:
  // `sources` are the ones the walk is given; they outlive the reader.
  ZSetOrSetReader(Engine& engine, int64_t now_ms, std::span<SetSource> sources)
      : engine_(engine), sets_(engine, now_ms), sources_(sources), zsets_(sources.size()) {}

  Status Visit(const SetSource& source, const Visitor& visit) override {
    StatusOr<ZSetReader*> zset = ZSetOf(source);
    if (!zset.ok()) return zset.status();
    if (*zset == nullptr) return sets_.VisitMembers(source.key, *source.record, visit);
    const size_t member_at = (*zset)->prefix().size() + kScoreBytes;
    std::unique_ptr<SubEntryIterator> it = (*zset)->Index();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().size() < member_at) return CorruptZSet("index key truncated");
      StatusOr<bool> more = visit(it->key().substr(member_at));
      if (!more.ok()) return more.status();
      if (!*more) return Status::Ok();
    }
    return it->status();
  }

  StatusOr<bool> Contains(const SetSource& source, std::string_view member) override {
    StatusOr<ZSetReader*> zset = ZSetOf(source);
    if (!zset.ok()) return zset.status();
    if (*zset == nullptr) return sets_.Contains(source.key, *source.record, member);
    StatusOr<std::optional<double>> score = (*zset)->Score(member);
    if (!score.ok()) return score.status();
    return score->has_value();
  }

 private:
  // The source's ZSetReader, loaded on first use; nullptr for a set.
  StatusOr<ZSetReader*> ZSetOf(const SetSource& source) {
    const auto i = static_cast<size_t>(&source - sources_.data());
    SetSource& mine = sources_[i];
    if (mine.record->meta.type != KeyType::kZSet) return nullptr;
    if (zsets_[i] == nullptr) {
      zsets_[i] = std::make_unique<ZSetReader>(engine_, mine.key, *mine.record);
      SLUICE_RETURN_IF_ERROR(zsets_[i]->Load());
    }
    return zsets_[i].get();
  }

  Engine& engine_;
  SetType sets_;
  std::span<SetSource> sources_;
  std::vector<std::unique_ptr<ZSetReader>> zsets_;  // by source, once read
};

}  // namespace

StatusOr<uint64_t> ZSetInterCard(Engine& engine, int64_t now_ms, std::span<SetSource> sources,
                                 uint64_t limit) {
  ZSetOrSetReader reader(engine, now_ms, sources);
  uint64_t count = 0;
  SLUICE_RETURN_IF_ERROR(WalkIntersection(reader, sources, [&](std::string_view) {
    ++count;
    return limit == 0 || count < limit;
  }));
  return count;
}

}  // namespace sluice::storage
