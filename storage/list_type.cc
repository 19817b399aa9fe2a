#include "storage/list_type.h"

#include "storage/composite.h"
#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

constexpr uint64_t kInitialSeq = uint64_t{1} << 63;
constexpr size_t kBoundsBytes = 16;

// A list's record with its sequence bounds decoded from the payload.
struct ListState {
  Record record;
  uint64_t head = kInitialSeq;  // first element's sequence number
  uint64_t tail = kInitialSeq;  // one past the last

  uint64_t size() const { return tail - head; }

  void SyncRecord() {
    record.payload.clear();
    PutFixed64LE(&record.payload, head);
    PutFixed64LE(&record.payload, tail);
    record.meta.size = size();
  }
};

StatusOr<ListState> DecodeList(Record record) {
  if (record.payload.size() != kBoundsBytes) {
    return IoError("corrupt list: payload of " + std::to_string(record.payload.size()) + " bytes");
  }
  ListState state;
  state.head = LoadFixed64LE(record.payload.data());
  state.tail = LoadFixed64LE(record.payload.data() + 8);
  if (state.tail < state.head || state.tail - state.head != record.meta.size) {
    return IoError("corrupt list: bounds disagree with the size");
  }
  state.record = std::move(record);
  return state;
}

// nullopt when the key is missing.
StatusOr<std::optional<ListState>> LoadList(Engine& engine, std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine, key, KeyType::kList, now_ms);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<ListState>();
  StatusOr<ListState> state = DecodeList(std::move(**loaded));
  if (!state.ok()) return state.status();
  return std::optional<ListState>(std::move(*state));
}

std::string ElementKey(std::string_view key, uint64_t version, uint64_t seq) {
  std::string out = SubKeyPrefix(key, version);
  PutFixed64BE(&out, seq);
  return out;
}

}  // namespace

StatusOr<uint64_t> ListType::Push(std::string_view key, ListEnd end,
                                  std::span<const std::string_view> elements) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  ListState state;
  if (loaded->has_value()) {
    state = std::move(**loaded);
  } else {
    state.record = NewComposite(engine_, KeyType::kList);
  }
  const uint64_t version = state.record.meta.version;
  for (std::string_view element : elements) {
    const uint64_t seq = end == ListEnd::kHead ? --state.head : state.tail++;
    engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq), element);
  }
  state.SyncRecord();
  StoreOrDelete(engine_, key, state.record);
  return state.size();
}

StatusOr<std::optional<std::vector<std::string>>> ListType::Pop(std::string_view key, ListEnd end,
                                                                uint64_t count) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<std::vector<std::string>>();
  ListState& state = **loaded;
  const uint64_t version = state.record.meta.version;
  std::vector<std::string> popped;
  const uint64_t n = std::min(count, state.size());
  popped.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t seq = end == ListEnd::kHead ? state.head++ : --state.tail;
    const std::string sub_key = ElementKey(key, version, seq);
    StatusOr<std::optional<std::string>> element =
        engine_.GetSubEntry(SubFamily::kSubkeys, sub_key);
    if (!element.ok()) return element.status();
    if (!element->has_value()) return IoError("corrupt list: element missing");
    popped.push_back(std::move(**element));
    engine_.DeleteSubEntry(SubFamily::kSubkeys, sub_key);
  }
  if (n > 0) {
    state.SyncRecord();
    StoreOrDelete(engine_, key, state.record);
  }
  return std::optional<std::vector<std::string>>(std::move(popped));
}

StatusOr<uint64_t> ListType::Len(std::string_view key) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  return loaded->has_value() ? (*loaded)->size() : uint64_t{0};
}

StatusOr<std::vector<std::string>> ListType::Range(std::string_view key, int64_t start,
                                                   int64_t stop) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  std::vector<std::string> out;
  if (!loaded->has_value()) return out;
  const ListState& state = **loaded;
  std::optional<IndexRange> range = ClampIndexRange(start, stop, state.size());
  if (!range) return out;
  const uint64_t version = state.record.meta.version;
  const std::string prefix = SubKeyPrefix(key, version);
  const uint64_t wanted = range->stop - range->start + 1;
  out.reserve(wanted);
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  for (it->Seek(ElementKey(key, version, state.head + range->start));
       it->Valid() && out.size() < wanted; it->Next()) {
    out.emplace_back(it->value());
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (out.size() != wanted) return IoError("corrupt list: elements missing");
  return out;
}

StatusOr<std::optional<std::string>> ListType::Index(std::string_view key, int64_t index) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<std::string>();
  const ListState& state = **loaded;
  const auto size = static_cast<int64_t>(state.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return std::optional<std::string>();
  return engine_.GetSubEntry(
      SubFamily::kSubkeys,
      ElementKey(key, state.record.meta.version, state.head + static_cast<uint64_t>(index)));
}

StatusOr<bool> ListType::Trim(std::string_view key, int64_t start, int64_t stop) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return false;
  ListState& state = **loaded;
  std::optional<IndexRange> range = ClampIndexRange(start, stop, state.size());
  // An empty range leaves nothing: drop the key with one metadata write.
  if (!range) {
    engine_.Delete(key);
    return true;
  }
  const uint64_t version = state.record.meta.version;
  const uint64_t new_head = state.head + range->start;
  const uint64_t new_tail = state.head + range->stop + 1;
  if (new_head == state.head && new_tail == state.tail) return true;
  for (uint64_t seq = state.head; seq < new_head; ++seq) {
    engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
  }
  for (uint64_t seq = new_tail; seq < state.tail; ++seq) {
    engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
  }
  state.head = new_head;
  state.tail = new_tail;
  state.SyncRecord();
  StoreOrDelete(engine_, key, state.record);
  return true;
}

}  // namespace sluice::storage
