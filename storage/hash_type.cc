#include "storage/hash_type.h"

#include "storage/composite.h"
#include "storage/key_encoding.h"
#include "storage/random_draws.h"

namespace sluice::storage {

StatusOr<std::optional<std::string>> HashType::Get(std::string_view key, std::string_view field) {
  StatusOr<std::optional<Record>> record = LoadTyped(engine_, key, type_, now_ms_);
  if (!record.ok()) return record.status();
  if (!record->has_value()) return std::optional<std::string>();
  return GetOf(key, **record, field);
}

StatusOr<std::optional<std::string>> HashType::GetOf(std::string_view key, const Record& record,
                                                     std::string_view field) {
  return engine_.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, record.meta.version, field));
}

StatusOr<std::vector<std::optional<std::string>>> HashType::MGet(
    std::string_view key, std::span<const std::string_view> fields) {
  StatusOr<std::optional<Record>> record = LoadTyped(engine_, key, type_, now_ms_);
  if (!record.ok()) return record.status();
  std::vector<std::optional<std::string>> values(fields.size());
  if (!record->has_value()) return values;
  const uint64_t version = (*record)->meta.version;
  for (size_t i = 0; i < fields.size(); ++i) {
    StatusOr<std::optional<std::string>> value =
        engine_.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, version, fields[i]));
    if (!value.ok()) return value.status();
    values[i] = std::move(*value);
  }
  return values;
}

StatusOr<bool> HashType::Exists(std::string_view key, std::string_view field) {
  StatusOr<std::optional<std::string>> value = Get(key, field);
  if (!value.ok()) return value.status();
  return value->has_value();
}

StatusOr<uint64_t> HashType::Len(std::string_view key) {
  return LoadSize(engine_, key, type_, now_ms_);
}

StatusOr<uint64_t> HashType::Set(std::string_view key, std::span<const FieldValue> pairs,
                                 bool only_if_new) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, type_, now_ms_);
  if (!loaded.ok()) return loaded.status();
  const bool existed = loaded->has_value();
  Record record = existed ? std::move(**loaded) : NewComposite(engine_, type_);
  uint64_t added = 0;
  for (const FieldValue& pair : pairs) {
    std::string sub_key = EncodeSubKey(key, record.meta.version, pair.field);
    bool present = false;
    if (existed || added > 0) {  // a new key's sub-entries are all ours (its version is fresh)
      StatusOr<std::optional<std::string>> old = engine_.GetSubEntry(SubFamily::kSubkeys, sub_key);
      if (!old.ok()) return old.status();
      present = old->has_value();
    }
    if (present && only_if_new) continue;
    engine_.PutSubEntry(SubFamily::kSubkeys, sub_key, pair.value);
    if (!present) ++added;
  }
  if (added > 0 || !existed) {
    record.meta.size += added;
    StoreOrDelete(engine_, key, record);
  }
  return added;
}

StatusOr<uint64_t> HashType::Delete(std::string_view key,
                                    std::span<const std::string_view> fields) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, type_, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return uint64_t{0};
  Record& record = **loaded;
  uint64_t removed = 0;
  for (std::string_view field : fields) {
    std::string sub_key = EncodeSubKey(key, record.meta.version, field);
    StatusOr<std::optional<std::string>> old = engine_.GetSubEntry(SubFamily::kSubkeys, sub_key);
    if (!old.ok()) return old.status();
    if (!old->has_value()) continue;
    engine_.DeleteSubEntry(SubFamily::kSubkeys, sub_key);
    ++removed;
  }
  if (removed > 0) {
    record.meta.size -= removed;
    SLUICE_RETURN_IF_ERROR(ShedTombstones(engine_, key, record, removed));
    StoreOrDelete(engine_, key, record);
  }
  return removed;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> HashType::GetAll(std::string_view key) {
  StatusOr<std::optional<Record>> record = LoadTyped(engine_, key, type_, now_ms_);
  if (!record.ok()) return record.status();
  if (!record->has_value()) return std::vector<std::pair<std::string, std::string>>();
  return GetAllOf(key, **record);
}

StatusOr<std::vector<std::pair<std::string, std::string>>> HashType::GetAllOf(
    std::string_view key, const Record& record) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string prefix = SubKeyPrefix(key, record.meta.version);
  out.reserve(record.meta.size);
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(std::string(it->key().substr(prefix.size())), std::string(it->value()));
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  return out;
}

StatusOr<HashScanPage> HashType::ScanOf(std::string_view key, const Record& record,
                                        std::string_view after, size_t count) {
  HashScanPage page;
  if (record.meta.size <= kScanWhole) {
    after = "";
    count = static_cast<size_t>(kScanWhole);
  }
  const std::string prefix = SubKeyPrefix(key, record.meta.version);
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  it->Seek(prefix + std::string(after));
  if (it->Valid() && !after.empty() && it->key().substr(prefix.size()) == after) it->Next();
  for (; it->Valid() && page.pairs.size() < count; it->Next()) {
    page.pairs.emplace_back(std::string(it->key().substr(prefix.size())), std::string(it->value()));
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (it->Valid()) page.resume_after = page.pairs.back().first;
  return page;
}

StatusOr<RandomSample<FieldAndValue>> HashType::RandomFields(std::string_view key, int64_t count,
                                                             bool with_values,
                                                             std::mt19937_64& rng) {
  StatusOr<std::optional<Record>> record = LoadTyped(engine_, key, type_, now_ms_);
  if (!record.ok()) return record.status();
  RandomSample<FieldAndValue> sample;
  if (!record->has_value()) return sample;
  const uint64_t size = (*record)->meta.size;
  const uint64_t version = (*record)->meta.version;
  const std::string prefix = SubKeyPrefix(key, version);
  auto open = [&]() -> StatusOr<std::unique_ptr<SubEntryIterator>> {
    return engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  };
  if (TakesPicks(count, size)) {
    // Fields drawn ahead (storage/draws_ahead.h), their values held when short.
    auto read = [&](const SubEntryIterator& at) -> StatusOr<DrawnField> {
      const std::string_view field = at.key().substr(prefix.size());
      const bool short_value = field.size() + at.value().size() <= DrawAheadBounds::kShortElement;
      return DrawnField(field, short_value ? std::optional(at.value()) : std::nullopt);
    };
    StatusOr<std::vector<DrawnField>> picks =
        TakePicks(engine_.draws().field_picks, key, version, size, count, {open, read}, rng);
    if (!picks.ok()) return picks.status();
    std::vector<FieldAndValue> fields;
    fields.reserve(picks->size());
    for (DrawnField& drawn : *picks) {
      std::string value;
      if (with_values && drawn.has_value()) {
        value = drawn.value();
      } else if (with_values) {
        // Not held: the hash is as it was at the draw, so its value is the one read now.
        StatusOr<std::optional<std::string>> found =
            engine_.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, version, drawn.field()));
        if (!found.ok()) return found.status();
        if (!found->has_value()) {
          engine_.draws().field_picks.Forget(key);  // not to serve it again
          return IoError("a field drawn ahead is not stored");
        }
        value = std::move(**found);
      }
      fields.emplace_back(drawn.field(), std::move(value));
    }
    return SampleOfPicks(std::move(fields));
  }
  SamplePlan plan = PlanSample(size, count, rng);
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  sample.elements.resize(plan.positions.size());
  SLUICE_RETURN_IF_ERROR(
      VisitPositions(*it, size, plan.positions, [&](size_t i, const SubEntryIterator& at) {
        sample.elements[i].first.assign(at.key().substr(prefix.size()));
        if (with_values) sample.elements[i].second.assign(at.value());
        return Status::Ok();
      }));
  sample.picks = std::move(plan.picks);
  return sample;
}

}  // namespace sluice::storage
