#include "storage/set_algebra.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>

namespace sluice::storage {

namespace {

// The sources ordered by size, smallest first (a stable sort, as Redis's qsort of them; the
// order decides only how much is read).
std::vector<const SetSource*> BySize(std::span<const SetSource> sources) {
  std::vector<const SetSource*> sorted;
  sorted.reserve(sources.size());
  for (const SetSource& source : sources) sorted.push_back(&source);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const SetSource* a, const SetSource* b) { return a->size() < b->size(); });
  return sorted;
}

// A set source's reads, through SetType.
class SetReader final : public IntersectionReader {
 public:
  explicit SetReader(SetType& sets) : sets_(sets) {}
  Status Visit(const SetSource& source, const Visitor& visit) override {
    return sets_.VisitMembers(source.key, *source.record, visit);
  }
  StatusOr<bool> Contains(const SetSource& source, std::string_view member) override {
    return sets_.Contains(source.key, *source.record, member);
  }

 private:
  SetType& sets_;
};

Status WalkInter(SetType& sets, std::span<const SetSource> sources,
                 const std::function<bool(std::string_view)>& take) {
  SetReader reader(sets);
  return WalkIntersection(reader, sources, take);
}

}  // namespace

Status WalkIntersection(IntersectionReader& reader, std::span<const SetSource> sources,
                        const std::function<bool(std::string_view)>& take) {
  if (sources.empty()) return Status::Ok();
  for (const SetSource& source : sources) {
    if (!source.record) return Status::Ok();  // an empty set: so is the intersection
  }
  const std::vector<const SetSource*> sorted = BySize(sources);
  return reader.Visit(*sorted[0], [&](std::string_view member) -> StatusOr<bool> {
    for (size_t i = 1; i < sorted.size(); ++i) {
      // The same key twice (SINTER a a) has every member: no read needed.
      if (sorted[i]->key == sorted[0]->key) continue;
      StatusOr<bool> found = reader.Contains(*sorted[i], member);
      if (!found.ok()) return found.status();
      if (!*found) return true;  // not in every source: on to the next member
    }
    return take(member);
  });
}

StatusOr<std::vector<SetSource>> LoadSetSources(SetType& sets,
                                                std::span<const std::string_view> keys) {
  std::vector<SetSource> sources;
  sources.reserve(keys.size());
  for (std::string_view key : keys) {
    StatusOr<std::optional<Record>> record = sets.Load(key);
    if (!record.ok()) return record.status();
    sources.push_back({key, std::move(*record)});
  }
  return sources;
}

StatusOr<std::vector<std::string>> SetInter(SetType& sets, std::span<const SetSource> sources) {
  std::vector<std::string> out;
  SLUICE_RETURN_IF_ERROR(WalkInter(sets, sources, [&](std::string_view member) {
    out.emplace_back(member);
    return true;
  }));
  return out;
}

StatusOr<uint64_t> SetInterCard(SetType& sets, std::span<const SetSource> sources, uint64_t limit) {
  uint64_t count = 0;
  SLUICE_RETURN_IF_ERROR(WalkInter(sets, sources, [&](std::string_view) {
    ++count;
    return limit == 0 || count < limit;
  }));
  return count;
}

StatusOr<std::vector<std::string>> SetUnion(SetType& sets, std::span<const SetSource> sources) {
  std::vector<std::string> out;
  for (const SetSource& source : sources) {
    if (!source.record) continue;
    StatusOr<std::vector<std::string>> members = sets.MembersOf(source.key, *source.record);
    if (!members.ok()) return members.status();
    // Each source is in member order: merge it in.
    const auto middle = static_cast<std::ptrdiff_t>(out.size());
    out.insert(out.end(), std::make_move_iterator(members->begin()),
               std::make_move_iterator(members->end()));
    std::inplace_merge(out.begin(), out.begin() + middle, out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

StatusOr<std::vector<std::string>> SetDiff(SetType& sets, std::span<const SetSource> sources) {
  std::vector<std::string> out;
  if (sources.empty() || !sources[0].record) return out;
  const SetSource& first = sources[0];
  StatusOr<std::vector<std::string>> members = sets.MembersOf(first.key, *first.record);
  if (!members.ok()) return members.status();
  out = std::move(*members);
  // Redis's choice (sunionDiffGenericCommand): algorithm 1 costs the first set's size per
  // other source, halved (a lookup may stop early); algorithm 2 every source's size.
  uint64_t lookups = 0;
  uint64_t reads = 0;
  for (const SetSource& source : sources) {
    if (!source.record) continue;
    lookups += first.size();
    reads += source.size();
  }
  const bool look_up = lookups / 2 <= reads;
  for (size_t i = 1; i < sources.size() && !out.empty(); ++i) {
    const SetSource& other = sources[i];
    if (!other.record) continue;
    if (other.key == first.key) return std::vector<std::string>();
    if (look_up) {
      std::vector<std::string> kept;
      for (std::string& member : out) {
        StatusOr<bool> found = sets.Contains(other.key, *other.record, member);
        if (!found.ok()) return found.status();
        if (!*found) kept.push_back(std::move(member));
      }
      out = std::move(kept);
    } else {
      StatusOr<std::vector<std::string>> removed = sets.MembersOf(other.key, *other.record);
      if (!removed.ok()) return removed.status();
      std::vector<std::string> kept;
      std::set_difference(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()),
                          removed->begin(), removed->end(), std::back_inserter(kept));
      out = std::move(kept);
    }
  }
  return out;
}

}  // namespace sluice::storage
