#include "storage/set_type.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

#include "storage/composite.h"
#include "storage/key_encoding.h"
#include "storage/random_draws.h"
#include "storage/random_sample.h"

namespace sluice::storage {

namespace {

// A set's members, from its sub-entries under `prefix`.
ElementReader<std::string> MemberReader(Engine& engine, const std::string& prefix) {
  return {[&engine, &prefix]() -> StatusOr<std::unique_ptr<SubEntryIterator>> {
            return engine.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
          },
          [&prefix](const SubEntryIterator& at) -> StatusOr<std::string> {
            return std::string(at.key().substr(prefix.size()));
          }};
}

// SPOP's draw: `count` members (0 < count < size) in a random order, then, in a streak of
// pops (`ahead_count` > 0), the rest of the set shuffled when its members fit
// `most_whole_bytes` (read whole: no pop walks the set again while only pops change it), else
// `ahead_count` more. `too_large_for_whole`: the streak found the set too large to read whole
// (set when this draw does), and draws only ahead.
StatusOr<Draw<std::string>> DrawForPop(Engine& engine, const std::string& prefix, uint64_t size,
                                       uint64_t count, uint64_t ahead_count,
                                       size_t most_whole_bytes, bool& too_large_for_whole,
                                       std::mt19937_64& rng) {
  const ElementReader<std::string> reader = MemberReader(engine, prefix);
  if (ahead_count > 0 && !too_large_for_whole) {
    StatusOr<std::optional<std::vector<std::string>>> whole =
        ReadWhole(reader, size, most_whole_bytes);
    if (!whole.ok()) return whole.status();
    if (whole->has_value()) {
      // A uniform order of the whole set: what successive draws without replacement give.
      std::shuffle((*whole)->begin(), (*whole)->end(), rng);
      Draw<std::string> draw;
      draw.ahead = DrawnAhead<std::string>(std::move(**whole));
      draw.now = draw.ahead.TakeNext(count);
      return draw;
    }
    too_large_for_whole = true;
  }
  SamplePlan plan =
      PlanSample(size, static_cast<int64_t>(std::min(size, count + ahead_count)), rng);
  std::shuffle(plan.picks.begin(), plan.picks.end(), rng);  // were in position order
  return ReadDraw(reader, size, plan, count, /*distinct=*/true);
}

}  // namespace

StatusOr<uint64_t> SetType::Add(std::string_view key, std::span<const std::string_view> members) {
  std::vector<FieldValue> pairs;
  pairs.reserve(members.size());
  for (std::string_view member : members) pairs.push_back({member, ""});
  // A member already there is left alone: SADD that adds nothing writes nothing (and so breaks
  // no WATCH, as Redis's).
  return Set(key, pairs, /*only_if_new=*/true);
}

StatusOr<uint64_t> SetType::Remove(std::string_view key,
                                   std::span<const std::string_view> members) {
  return Delete(key, members);
}

StatusOr<std::vector<bool>> SetType::AreMembers(std::string_view key,
                                                std::span<const std::string_view> members) {
  StatusOr<std::vector<std::optional<std::string>>> found = MGet(key, members);
  if (!found.ok()) return found.status();
  std::vector<bool> out(found->size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = (*found)[i].has_value();
  return out;
}

StatusOr<std::optional<Record>> SetType::Load(std::string_view key) {
  return LoadTyped(engine_, key, type_, now_ms_);
}

StatusOr<std::vector<std::string>> SetType::MembersOf(std::string_view key, const Record& record) {
  std::vector<std::string> out;
  out.reserve(record.meta.size);
  SLUICE_RETURN_IF_ERROR(VisitMembers(key, record, [&](std::string_view member) {
    out.emplace_back(member);
    return StatusOr<bool>(true);
  }));
  return out;
}

Status SetType::VisitMembers(std::string_view key, const Record& record,
                             const std::function<StatusOr<bool>(std::string_view)>& visit) {
  const std::string prefix = SubKeyPrefix(key, record.meta.version);
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    StatusOr<bool> more = visit(it->key().substr(prefix.size()));
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
  }
  return it->status();
}

StatusOr<bool> SetType::Contains(std::string_view key, const Record& record,
                                 std::string_view member) {
  StatusOr<std::optional<std::string>> found =
      engine_.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, record.meta.version, member));
  if (!found.ok()) return found.status();
  return found->has_value();
}

StatusOr<std::vector<std::string>> SetType::Members(std::string_view key) {
  StatusOr<std::optional<Record>> record = Load(key);
  if (!record.ok()) return record.status();
  if (!record->has_value()) return std::vector<std::string>();
  return MembersOf(key, **record);
}

StatusOr<SetScanPage> SetType::ScanOf(std::string_view key, const Record& record,
                                      std::string_view after, size_t count) {
  StatusOr<HashScanPage> page = HashType::ScanOf(key, record, after, count);
  if (!page.ok()) return page.status();
  // A set is a hash of empty values: its page is a hash page's fields.
  SetScanPage out;
  out.members.reserve(page->pairs.size());
  for (auto& [member, empty] : page->pairs) out.members.push_back(std::move(member));
  out.resume_after = std::move(page->resume_after);
  return out;
}

StatusOr<RandomSample<std::string>> SetType::RandomMembers(std::string_view key, int64_t count,
                                                           std::mt19937_64& rng) {
  StatusOr<RandomSample<FieldAndValue>> fields =
      RandomFields(key, count, /*with_values=*/false, rng);
  if (!fields.ok()) return fields.status();
  RandomSample<std::string> sample;
  sample.elements.reserve(fields->elements.size());
  for (auto& [member, empty] : fields->elements) sample.elements.push_back(std::move(member));
  sample.picks = std::move(fields->picks);
  return sample;
}

StatusOr<std::vector<std::string>> SetType::Pop(std::string_view key, uint64_t count,
                                                std::mt19937_64& rng, bool* took_all) {
  StatusOr<std::optional<Record>> loaded = Load(key);
  if (!loaded.ok()) return loaded.status();
  std::vector<std::string> popped;
  if (!loaded->has_value() || count == 0) return popped;
  Record& record = **loaded;
  if (count >= record.meta.size) {
    // The whole set: its sub-entries go with the key's version.
    StatusOr<std::vector<std::string>> all = MembersOf(key, record);
    if (!all.ok()) return all.status();
    engine_.Delete(key);
    if (took_all != nullptr) *took_all = true;
    return all;
  }
  // What the pops before drew ahead (storage/draws_ahead.h) first, the rest drawn now (count <
  // size). Whether what is held covers the count depends only on members popped here, so each
  // pop stays uniform.
  DrawsAhead<std::string>& draws = engine_.draws().set_pops;
  std::optional<DrawnAhead<std::string>> held = draws.Release(key, record.meta.version);
  const bool after_a_pop = held.has_value();  // only then is drawing ahead worth its walk
  bool too_large_for_whole = held && held->too_large_for_whole();
  DrawnAhead<std::string> ahead;
  if (held) {
    popped = held->TakeNext(std::min<uint64_t>(count, held->size()));
    ahead = std::move(*held);
  }
  auto stage_deletions = [&](std::span<const std::string> members) {
    for (const std::string& member : members) {
      engine_.DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, record.meta.version, member));
    }
  };
  stage_deletions(popped);  // staged before the walk below opens, which then leaves them out
  if (popped.size() < count) {
    const uint64_t size = record.meta.size - popped.size();
    StatusOr<Draw<std::string>> draw =
        DrawForPop(engine_, SubKeyPrefix(key, record.meta.version), size, count - popped.size(),
                   after_a_pop ? draws.DrawAheadCount(size) : 0, draws.most_whole_bytes(),
                   too_large_for_whole, rng);
    if (!draw.ok()) return draw.status();
    stage_deletions(draw->now);  // the walk's iterator is gone (engine.h: collect, then write)
    popped.insert(popped.end(), std::make_move_iterator(draw->now.begin()),
                  std::make_move_iterator(draw->now.end()));
    ahead = std::move(draw->ahead);
    if (too_large_for_whole) ahead.set_too_large_for_whole();
  }
  std::sort(popped.begin(), popped.end());  // in member order, as documented
  record.meta.size -= popped.size();
  SLUICE_RETURN_IF_ERROR(ShedTombstones(engine_, key, record, popped.size()));
  StoreOrDelete(engine_, key, record);
  // Under the version the members now live under (ShedTombstones may copy them).
  draws.Hold(key, record.meta.version, std::move(ahead));
  return popped;
}

StatusOr<bool> SetType::Move(std::string_view source, std::string_view destination,
                             std::string_view member) {
  StatusOr<std::optional<Record>> src = Load(source);
  if (!src.ok()) return src.status();
  if (!src->has_value()) return false;
  StatusOr<std::optional<Record>> dst = Load(destination);
  if (!dst.ok()) return dst.status();
  StatusOr<bool> in_source = Contains(source, **src, member);
  if (!in_source.ok() || source == destination || !*in_source) return in_source;
  engine_.DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey(source, (*src)->meta.version, member));
  (*src)->meta.size -= 1;
  SLUICE_RETURN_IF_ERROR(ShedTombstones(engine_, source, **src, 1));
  StoreOrDelete(engine_, source, **src);
  Record target = dst->has_value() ? std::move(**dst) : NewComposite(engine_, type_);
  if (dst->has_value()) {
    StatusOr<bool> in_destination = Contains(destination, target, member);
    if (!in_destination.ok()) return in_destination.status();
    if (*in_destination) return true;
  }
  engine_.PutSubEntry(SubFamily::kSubkeys, EncodeSubKey(destination, target.meta.version, member),
                      "");
  target.meta.size += 1;
  engine_.Put(destination, target);
  return true;
}

Status SetType::Replace(std::string_view key, std::span<const std::string> members) {
  if (members.empty()) return DeleteIfPresent(engine_, key, now_ms_);
  Record record = NewComposite(engine_, type_);
  for (const std::string& member : members) {
    engine_.PutSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, record.meta.version, member), "");
  }
  record.meta.size = members.size();
  engine_.Put(key, record);
  return Status::Ok();
}

}  // namespace sluice::storage
