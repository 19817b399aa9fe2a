#include "storage/list_type.h"

#include <algorithm>
#include <memory>

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

// The `count` elements from index `start` on, in list order.
StatusOr<std::vector<std::string>> ReadElements(Engine& engine, std::string_view key,
                                                const ListState& state, uint64_t start,
                                                uint64_t count) {
  std::vector<std::string> out;
  if (count == 0) return out;
  const uint64_t version = state.record.meta.version;
  out.reserve(count);
  std::unique_ptr<SubEntryIterator> it =
      engine.NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix(key, version));
  for (it->Seek(ElementKey(key, version, state.head + start)); it->Valid() && out.size() < count;
       it->Next()) {
    out.emplace_back(it->value());
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (out.size() != count) return IoError("corrupt list: elements missing");
  return out;
}

// Elements at [start, stop], Redis index rules (negative counts from the end).
StatusOr<std::vector<std::string>> ReadRange(Engine& engine, std::string_view key,
                                             const ListState& state, int64_t start, int64_t stop) {
  std::optional<IndexRange> range = ClampIndexRange(start, stop, state.size());
  if (!range) return std::vector<std::string>();
  return ReadElements(engine, key, state, range->start, range->stop - range->start + 1);
}

// Calls visit(offset, element) for each element from the `from` end on (offset 0 is the one at
// that end) until it returns false.
template <typename Visit>
Status ScanElements(Engine& engine, std::string_view key, const ListState& state, ListEnd from,
                    Visit visit) {
  const uint64_t version = state.record.meta.version;
  std::unique_ptr<SubEntryIterator> it =
      engine.NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix(key, version));
  if (from == ListEnd::kHead) {
    it->Seek(ElementKey(key, version, state.head));
  } else {
    it->SeekForPrev(ElementKey(key, version, state.tail - 1));
  }
  uint64_t offset = 0;
  for (; offset < state.size() && it->Valid(); ++offset) {
    if (!visit(offset, it->value())) return Status::Ok();
    if (from == ListEnd::kHead) {
      it->Next();
    } else {
      it->Prev();
    }
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (offset != state.size()) return IoError("corrupt list: elements missing");
  return Status::Ok();
}

// Replaces the elements at indexes [lo, hi) with `replacement` and stages the record (the
// key's deletion once empty). The shorter side of the range is renumbered: the elements before
// it move when there are no more of them than after it, keeping the tail; else those after it
// move, keeping the head.
Status Splice(Engine& engine, std::string_view key, ListState& state, uint64_t lo, uint64_t hi,
              const std::vector<std::string>& replacement) {
  const uint64_t version = state.record.meta.version;
  auto put = [&](uint64_t seq, std::string_view element) {
    engine.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq), element);
  };
  auto drop = [&](uint64_t seq) {
    engine.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
  };
  const uint64_t removed = hi - lo;
  const uint64_t added = replacement.size();
  if (added == removed) {
    for (uint64_t i = 0; i < added; ++i) put(state.head + lo + i, replacement[i]);
  } else if (lo <= state.size() - hi) {
    StatusOr<std::vector<std::string>> before = ReadElements(engine, key, state, 0, lo);
    if (!before.ok()) return before.status();
    // The elements from index hi on keep their sequence numbers.
    const uint64_t new_head = state.head + hi - lo - added;
    uint64_t seq = new_head;
    for (const std::string& element : *before) put(seq++, element);
    for (const std::string& element : replacement) put(seq++, element);
    for (seq = state.head; seq < new_head; ++seq) drop(seq);
    state.head = new_head;
  } else {
    StatusOr<std::vector<std::string>> after =
        ReadElements(engine, key, state, hi, state.size() - hi);
    if (!after.ok()) return after.status();
    uint64_t seq = state.head + lo;
    for (const std::string& element : replacement) put(seq++, element);
    for (const std::string& element : *after) put(seq++, element);
    const uint64_t new_tail = seq;
    for (; seq < state.tail; ++seq) drop(seq);
    state.tail = new_tail;
  }
  state.SyncRecord();
  StoreOrDelete(engine, key, state.record);
  return Status::Ok();
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
  if (!loaded->has_value()) return std::vector<std::string>();
  return ReadRange(engine_, key, **loaded, start, stop);
}

StatusOr<std::vector<std::string>> ListType::RangeOf(std::string_view key, const Record& record,
                                                     int64_t start, int64_t stop) {
  StatusOr<ListState> state = DecodeList(record);  // a copy: the payload is 16 bytes
  if (!state.ok()) return state.status();
  return ReadRange(engine_, key, *state, start, stop);
}

StatusOr<std::vector<std::string>> ListType::ElementsOf(std::string_view key,
                                                        const Record& record) {
  return RangeOf(key, record, 0, -1);
}

StatusOr<std::optional<std::string>> ListType::IndexOf(std::string_view key, const Record& record,
                                                       int64_t index) {
  StatusOr<ListState> state = DecodeList(record);  // a copy: the payload is 16 bytes
  if (!state.ok()) return state.status();
  const auto size = static_cast<int64_t>(state->size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return std::optional<std::string>();
  return engine_.GetSubEntry(
      SubFamily::kSubkeys,
      ElementKey(key, record.meta.version, state->head + static_cast<uint64_t>(index)));
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
  if (new_head == state.head && new_tail == state.tail) {
    // Nothing to trim, and still a write of the key, as Redis's LTRIM signals it (WATCH,
    // client-side caching): its record is staged as it is.
    engine_.Put(key, state.record);
    return true;
  }
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

StatusOr<bool> ListType::Set(std::string_view key, int64_t index, std::string_view element) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return false;
  const ListState& state = **loaded;
  const auto size = static_cast<int64_t>(state.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return false;
  engine_.PutSubEntry(
      SubFamily::kSubkeys,
      ElementKey(key, state.record.meta.version, state.head + static_cast<uint64_t>(index)),
      element);
  return true;
}

StatusOr<uint64_t> ListType::Remove(std::string_view key, int64_t count, std::string_view element) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return uint64_t{0};
  ListState& state = **loaded;
  const ListEnd from = count < 0 ? ListEnd::kTail : ListEnd::kHead;
  // 0 - count as unsigned: INT64_MIN's magnitude too.
  const uint64_t limit = count == 0  ? UINT64_MAX
                         : count < 0 ? 0 - static_cast<uint64_t>(count)
                                     : static_cast<uint64_t>(count);
  // The elements scanned from the first match on, in scan order, and which of them match.
  std::vector<std::string> window;
  std::vector<bool> matched;
  uint64_t first = 0;  // scan offset of the first match
  uint64_t found = 0;
  SLUICE_RETURN_IF_ERROR(
      ScanElements(engine_, key, state, from, [&](uint64_t offset, std::string_view value) {
        const bool match = value == element;
        if (match && found++ == 0) first = offset;
        if (found > 0) {
          window.emplace_back(value);
          matched.push_back(match);
        }
        return found < limit;
      }));
  if (found == 0) return uint64_t{0};
  while (!matched.back()) {
    window.pop_back();
    matched.pop_back();
  }
  std::vector<std::string> kept;
  for (size_t i = 0; i < window.size(); ++i) {
    if (!matched[i]) kept.push_back(std::move(window[i]));
  }
  uint64_t lo = first;
  uint64_t hi = first + window.size();
  if (from == ListEnd::kTail) {  // offsets count from the tail
    lo = state.size() - hi;
    hi = state.size() - first;
    std::reverse(kept.begin(), kept.end());
  }
  SLUICE_RETURN_IF_ERROR(Splice(engine_, key, state, lo, hi, kept));
  return found;
}

StatusOr<int64_t> ListType::Insert(std::string_view key, InsertWhere where, std::string_view pivot,
                                   std::string_view element) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return int64_t{0};
  ListState& state = **loaded;
  std::optional<uint64_t> pivot_index;
  SLUICE_RETURN_IF_ERROR(ScanElements(engine_, key, state, ListEnd::kHead,
                                      [&](uint64_t offset, std::string_view value) {
                                        if (value != pivot) return true;
                                        pivot_index = offset;
                                        return false;
                                      }));
  if (!pivot_index) return int64_t{-1};
  const uint64_t at = where == InsertWhere::kBefore ? *pivot_index : *pivot_index + 1;
  SLUICE_RETURN_IF_ERROR(Splice(engine_, key, state, at, at, {std::string(element)}));
  return static_cast<int64_t>(state.size());
}

StatusOr<std::vector<uint64_t>> ListType::Positions(std::string_view key, std::string_view element,
                                                    const PositionQuery& query) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  std::vector<uint64_t> out;
  if (!loaded->has_value()) return out;
  const ListState& state = **loaded;
  uint64_t matches = 0;
  SLUICE_RETURN_IF_ERROR(
      ScanElements(engine_, key, state, query.from, [&](uint64_t offset, std::string_view value) {
        if (query.maxlen != 0 && offset >= query.maxlen) return false;
        if (value != element || ++matches <= query.skip) return true;
        out.push_back(query.from == ListEnd::kHead ? offset : state.size() - 1 - offset);
        return query.limit == 0 || out.size() < query.limit;
      }));
  return out;
}

StatusOr<std::optional<std::string>> ListType::Move(std::string_view source,
                                                    std::string_view destination, ListEnd from,
                                                    ListEnd to) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, source, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<std::string>();
  if (source != destination) {
    StatusOr<std::optional<ListState>> target = LoadList(engine_, destination, now_ms_);
    if (!target.ok()) return target.status();
    StatusOr<std::optional<std::vector<std::string>>> popped = Pop(source, from, 1);
    if (!popped.ok()) return popped.status();
    if (!popped->has_value() || (*popped)->size() != 1) return IoError("corrupt list: no element");
    std::string element = std::move((*popped)->front());
    const std::string_view one[] = {element};
    StatusOr<uint64_t> pushed = Push(destination, to, one);
    if (!pushed.ok()) return pushed.status();
    return std::optional<std::string>(std::move(element));
  }
  // One key: rotate in place, never emptying it (its version and expiry stay).
  ListState& state = **loaded;
  const uint64_t version = state.record.meta.version;
  const uint64_t from_seq = from == ListEnd::kHead ? state.head : state.tail - 1;
  const std::string from_key = ElementKey(source, version, from_seq);
  StatusOr<std::optional<std::string>> element = engine_.GetSubEntry(SubFamily::kSubkeys, from_key);
  if (!element.ok()) return element.status();
  if (!element->has_value()) return IoError("corrupt list: element missing");
  if (from == to) {
    // Popped and pushed back at the same end: the list is as it was, and the key still written,
    // as Redis signals it (its record is staged as it is).
    engine_.Put(source, state.record);
    return element;
  }
  engine_.DeleteSubEntry(SubFamily::kSubkeys, from_key);
  const uint64_t to_seq = from == ListEnd::kHead ? state.tail : state.head - 1;
  engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(source, version, to_seq), **element);
  if (from == ListEnd::kHead) {
    ++state.head;
    ++state.tail;
  } else {
    --state.head;
    --state.tail;
  }
  state.SyncRecord();
  StoreOrDelete(engine_, source, state.record);
  return element;
}

Status ListType::Replace(std::string_view key, std::span<const std::string> elements) {
  if (elements.empty()) return DeleteIfPresent(engine_, key, now_ms_);
  ListState state;
  state.record = NewComposite(engine_, KeyType::kList);
  const uint64_t version = state.record.meta.version;
  for (const std::string& element : elements) {
    engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, state.tail++), element);
  }
  state.SyncRecord();
  engine_.Put(key, state.record);
  return Status::Ok();
}

}  // namespace sluice::storage
