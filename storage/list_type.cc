#include "storage/list_type.h"

#include <algorithm>
#include <memory>

#include "storage/composite.h"
#include "storage/inline_list.h"
#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

constexpr uint64_t kInitialSeq = uint64_t{1} << 63;
// The spacing of the elements of a list laid out anew for a middle insert: each insert between
// two of them takes the middle of their gap, so 32 fit at one place (a queue filing jobs by
// priority inserts there again and again) before the next layout.
constexpr uint64_t kGap = uint64_t{1} << 32;
// A middle insert with no gap moves the elements on its nearer end's side rather than laying
// out the whole list while they are at most this fraction of it.
constexpr uint64_t kShiftOverLayout = 8;
// A step back (Prev) costs RocksDB's skiplists a search from the top: about eight steps forward.
constexpr uint64_t kPrevCost = 8;

// A list's record with its sequence bounds decoded from the payload (an indexed list's).
struct ListState {
  Record record;
  bool is_inline = false;
  uint64_t head = kInitialSeq;  // first element's sequence number
  uint64_t tail = kInitialSeq;  // one past the last element's
  uint64_t count = 0;

  uint64_t size() const { return count; }
  // No gaps: index i is the element head + i. Middle inserts and removals leave gaps.
  bool dense() const { return tail - head == count; }

  void SyncRecord() {
    record.payload.clear();
    PutFixed64LE(&record.payload, head);
    PutFixed64LE(&record.payload, tail);
    record.meta.size = count;
  }
};

// An inline list's payload is checked where its elements are read (InlineElements).
StatusOr<ListState> DecodeList(Record record) {
  ListState state;
  if (IsInlineListPayload(record.payload)) {
    state.is_inline = true;
    state.count = record.meta.size;
    state.record = std::move(record);
    return state;
  }
  state.head = LoadFixed64LE(record.payload.data());
  state.tail = LoadFixed64LE(record.payload.data() + 8);
  state.count = record.meta.size;
  if (state.tail < state.head || state.tail - state.head < state.count) {
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

// The elements' bytes of an inline list's record, checked against its size.
StatusOr<std::string_view> InlineBytes(const Record& record) {
  return InlineListBytes(record.payload, record.meta.size);
}

// Its elements, viewed in its payload.
StatusOr<std::vector<std::string_view>> InlineElements(const Record& record) {
  StatusOr<std::string_view> bytes = InlineBytes(record);
  if (!bytes.ok()) return bytes.status();
  return InlineListElements(*bytes, record.meta.size);
}

// Copies of the `count` elements from index `start` on of an inline list of `size` elements
// whose payload is `payload`.
StatusOr<std::vector<std::string>> InlineRun(std::string_view payload, uint64_t size,
                                             uint64_t start, uint64_t count) {
  size_t from = 0;
  StatusOr<std::string_view> bytes = InlineListBytes(payload, size, start, &from);
  if (!bytes.ok()) return bytes.status();
  return CopyInlineListElements(*bytes, from, count);
}

std::string ElementKey(std::string_view key, uint64_t version, uint64_t seq) {
  std::string out = SubKeyPrefix(key, version);
  PutFixed64BE(&out, seq);
  return out;
}

// The sequence number an element's key ends with.
uint64_t SeqOf(std::string_view element_key) {
  return LoadFixed64BE(element_key.data() + element_key.size() - 8);
}

struct Element {
  uint64_t seq = 0;
  std::string value;
};

// The `count` elements from index `start` on, in list order. A dense list's are one seek away;
// a sparse one's are walked to from the cheaper end, as Redis walks its quicklist.
StatusOr<std::vector<Element>> ReadRun(Engine& engine, std::string_view key, const ListState& state,
                                       uint64_t start, uint64_t count) {
  std::vector<Element> out;
  if (count == 0) return out;
  const uint64_t version = state.record.meta.version;
  std::unique_ptr<SubEntryIterator> it =
      engine.NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix(key, version));
  auto take = [&] { out.push_back({SeqOf(it->key()), std::string(it->value())}); };
  out.reserve(count);
  const uint64_t after = state.size() - start - count;  // elements past the run
  if (state.dense() || start + count <= (after + count) * kPrevCost) {
    const uint64_t skip = state.dense() ? 0 : start;
    it->Seek(ElementKey(key, version, state.dense() ? state.head + start : state.head));
    for (uint64_t i = 0; i < skip && it->Valid(); ++i) it->Next();
    for (; it->Valid() && out.size() < count; it->Next()) take();
  } else {
    it->SeekForPrev(ElementKey(key, version, state.tail - 1));
    for (uint64_t i = 0; i < after && it->Valid(); ++i) it->Prev();
    for (; it->Valid() && out.size() < count; it->Prev()) take();
    std::reverse(out.begin(), out.end());
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (out.size() != count) return IoError("corrupt list: elements missing");
  return out;
}

// The values of the `count` elements from index `start` on, in list order.
StatusOr<std::vector<std::string>> ReadElements(Engine& engine, std::string_view key,
                                                const ListState& state, uint64_t start,
                                                uint64_t count) {
  StatusOr<std::vector<Element>> run = ReadRun(engine, key, state, start, count);
  if (!run.ok()) return run.status();
  std::vector<std::string> out;
  out.reserve(run->size());
  for (Element& element : *run) out.push_back(std::move(element.value));
  return out;
}

// Elements at [start, stop], Redis index rules (negative counts from the end).
StatusOr<std::vector<std::string>> ReadRange(Engine& engine, std::string_view key,
                                             const ListState& state, int64_t start, int64_t stop) {
  std::optional<IndexRange> range = ClampIndexRange(start, stop, state.size());
  if (!range) return std::vector<std::string>();
  if (state.is_inline) {
    return InlineRun(state.record.payload, state.size(), range->start,
                     range->stop - range->start + 1);
  }
  return ReadElements(engine, key, state, range->start, range->stop - range->start + 1);
}

// The sequence number of the element at `index` (in range).
StatusOr<uint64_t> SeqAt(Engine& engine, std::string_view key, const ListState& state,
                         uint64_t index) {
  if (state.dense()) return state.head + index;
  StatusOr<std::vector<Element>> run = ReadRun(engine, key, state, index, 1);
  if (!run.ok()) return run.status();
  return run->front().seq;
}

// Calls visit(offset, seq, element) for each element from the `from` end on (offset 0 is the one
// at that end) until it returns false.
// An inline list's elements have no numbers: 0 is passed.
template <typename Visit>
Status ScanElements(Engine& engine, std::string_view key, const ListState& state, ListEnd from,
                    Visit visit) {
  if (state.is_inline) {
    StatusOr<std::vector<std::string_view>> held = InlineElements(state.record);
    if (!held.ok()) return held.status();
    for (uint64_t offset = 0; offset < held->size(); ++offset) {
      const uint64_t index = from == ListEnd::kHead ? offset : held->size() - 1 - offset;
      if (!visit(offset, uint64_t{0}, (*held)[index])) break;
    }
    return Status::Ok();
  }
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
    if (!visit(offset, SeqOf(it->key()), it->value())) return Status::Ok();
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

// After deletions at either end of a non-empty list (staged: reads see them), the bounds of
// the elements left: a seek from each old bound.
Status ReseatBounds(Engine& engine, std::string_view key, ListState& state) {
  const uint64_t version = state.record.meta.version;
  std::unique_ptr<SubEntryIterator> it =
      engine.NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix(key, version));
  it->Seek(ElementKey(key, version, state.head));
  if (!it->Valid()) return it->status().ok() ? IoError("corrupt list: no element") : it->status();
  const uint64_t head = SeqOf(it->key());
  it->SeekForPrev(ElementKey(key, version, state.tail - 1));
  if (!it->Valid()) return it->status().ok() ? IoError("corrupt list: no element") : it->status();
  state.tail = SeqOf(it->key()) + 1;
  state.head = head;
  return Status::Ok();
}

// Lays the whole list out again under a fresh version, kGap apart (closer for a list too long
// for that) around the middle of the sequence space, with `inserted` at index `at` when given.
// O(n), as Redis's insert is. The old version's elements are garbage for the compaction filter:
// deleting them would leave tombstones that every later walk of the list steps over.
Status LayOutWhole(Engine& engine, std::string_view key, ListState& state, uint64_t at,
                   std::optional<std::string_view> inserted) {
  StatusOr<std::vector<Element>> all = ReadRun(engine, key, state, 0, state.size());
  if (!all.ok()) return all.status();
  std::vector<std::string_view> values;
  values.reserve(all->size() + 1);
  for (const Element& element : *all) values.push_back(element.value);
  if (inserted) values.insert(values.begin() + static_cast<std::ptrdiff_t>(at), *inserted);
  if (values.empty()) return Status::Ok();
  const uint64_t step = std::min<uint64_t>(kGap, kInitialSeq / (values.size() + 1));
  const uint64_t first = kInitialSeq - step * (values.size() / 2);
  const uint64_t version = engine.NextVersion();
  for (size_t i = 0; i < values.size(); ++i) {
    engine.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, first + i * step), values[i]);
  }
  state.record.meta.version = version;
  state.head = first;
  state.tail = first + step * (values.size() - 1) + 1;
  state.count = values.size();
  return Status::Ok();
}

// Makes room at index `at` (not an end) by moving the elements between it and the nearer end
// one number outward, and puts `inserted` in the number that frees: O(that distance), where
// LayOutWhole is O(n). In a dense run each element moves into its neighbour's number, so
// nothing is deleted; a gap's old numbers are. False, and nothing staged, when that end has no
// number left.
StatusOr<bool> ShiftTowardNearerEnd(Engine& engine, std::string_view key, ListState& state,
                                    uint64_t at, std::string_view inserted) {
  const bool toward_head = at <= state.size() - at;
  if (toward_head ? state.head == 0 : state.tail == UINT64_MAX) return false;
  StatusOr<std::vector<Element>> run = toward_head
                                           ? ReadRun(engine, key, state, 0, at)
                                           : ReadRun(engine, key, state, at, state.size() - at);
  if (!run.ok()) return run.status();
  const uint64_t version = state.record.meta.version;
  std::vector<Element>& moved = *run;
  // Walked from the freed number outward: each element takes the number next to its own.
  const uint64_t freed = toward_head ? moved.back().seq : moved.front().seq;
  if (toward_head) std::reverse(moved.begin(), moved.end());
  const auto outward = [&](uint64_t seq) { return toward_head ? seq - 1 : seq + 1; };
  for (size_t i = 0; i < moved.size(); ++i) {
    const uint64_t seq = moved[i].seq;
    engine.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, outward(seq)), moved[i].value);
    // Its old number stays taken by the inserted element (the first) or by the element before
    // it (next to it): else it is deleted.
    const bool taken = i == 0 || outward(moved[i - 1].seq) == seq;
    if (!taken) engine.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
  }
  engine.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, freed), inserted);
  if (toward_head) {
    --state.head;
  } else {
    ++state.tail;
  }
  ++state.count;
  return true;
}

// Stages the inline list whose record is state's as `count` elements, `bytes` (none deletes
// the key).
void StoreInlineBytes(Engine& engine, std::string_view key, ListState& state, std::string bytes,
                      uint64_t count) {
  state.record.payload = InlineListPayload(std::move(bytes));
  state.count = count;
  state.record.meta.size = count;
  StoreOrDelete(engine, key, state.record);
}

// Stages `elements` as the whole of the inline list whose record is state's: inline while they
// fit `limits`, else as sub-entries under a fresh version (the list is indexed from then on).
// The elements may be views of the record's payload.
void StoreInline(Engine& engine, std::string_view key, ListState& state,
                 std::span<const std::string_view> elements, const InlineLimits& limits) {
  if (FitsInlineList(limits, elements.size(), 0, elements)) {
    StoreInlineBytes(engine, key, state, EncodeInlineList(elements), elements.size());
    return;
  }
  const uint64_t version = engine.NextVersion();
  state.head = kInitialSeq;
  state.tail = kInitialSeq;
  for (std::string_view element : elements) {
    engine.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, state.tail++), element);
  }
  state.is_inline = false;
  state.count = elements.size();
  state.record.meta.version = version;
  state.SyncRecord();
  StoreOrDelete(engine, key, state.record);
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
    state.is_inline = FitsInlineList(limits_, elements.size(), 0, elements);
  }
  if (state.is_inline) {
    StatusOr<std::string_view> held = InlineBytes(state.record);
    if (!held.ok()) return held.status();
    const uint64_t count = state.size() + elements.size();
    if (FitsInlineList(limits_, count, held->size(), elements)) {
      std::string bytes;
      size_t added = 0;
      for (std::string_view element : elements) added += 1 + element.size();
      bytes.reserve(held->size() + added + 1);  // and a pad
      if (end == ListEnd::kHead) {              // LPUSH a b leaves b a
        for (auto it = elements.rbegin(); it != elements.rend(); ++it) {
          AppendInlineListElement(&bytes, *it);
        }
        bytes.append(*held);
      } else {
        bytes.append(*held);
        for (std::string_view element : elements) AppendInlineListElement(&bytes, element);
      }
      StoreInlineBytes(engine_, key, state, std::move(bytes), count);
      return state.size();
    }
    std::vector<std::string_view> all = InlineListElements(*held, state.size());
    all.insert(end == ListEnd::kHead ? all.begin() : all.end(), elements.begin(), elements.end());
    if (end == ListEnd::kHead) std::reverse(all.begin(), all.begin() + elements.size());
    StoreInline(engine_, key, state, all, limits_);
    return state.size();
  }
  const bool no_room = end == ListEnd::kHead ? state.head < elements.size()
                                             : UINT64_MAX - state.tail < elements.size();
  if (no_room) SLUICE_RETURN_IF_ERROR(LayOutWhole(engine_, key, state, 0, std::nullopt));
  const uint64_t version = state.record.meta.version;
  for (std::string_view element : elements) {
    const uint64_t seq = end == ListEnd::kHead ? --state.head : state.tail++;
    engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq), element);
  }
  state.count += elements.size();
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
  const uint64_t n = std::min(count, state.size());
  if (state.is_inline) {
    // One walk finds where the popped and the kept meet: past the popped at the head, before
    // them at the tail.
    const bool head = end == ListEnd::kHead;
    size_t split = 0;
    StatusOr<std::string_view> held =
        InlineListBytes(state.record.payload, state.size(), head ? n : state.size() - n, &split);
    if (!held.ok()) return held.status();
    std::vector<std::string> popped = CopyInlineListElements(*held, head ? 0 : split, n);
    if (!head) std::reverse(popped.begin(), popped.end());  // pop order
    if (n > 0) {
      const std::string_view rest = head ? held->substr(split) : held->substr(0, split);
      StoreInlineBytes(engine_, key, state, std::string(rest), state.size() - n);
    }
    return std::optional<std::vector<std::string>>(std::move(popped));
  }
  const uint64_t version = state.record.meta.version;
  std::vector<std::string> popped;
  popped.reserve(n);
  const bool dense = state.dense();
  // A few elements of a dense list are point reads; more are one seek and a walk (ReadRun),
  // a point read each costing several steps of a walk: LPOP of 100,000 took 0.5 s.
  constexpr uint64_t kPointReadPops = 16;
  if (dense && n <= kPointReadPops) {
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
    state.count -= n;
  } else if (n > 0) {
    StatusOr<std::vector<Element>> run =
        ReadRun(engine_, key, state, end == ListEnd::kHead ? 0 : state.size() - n, n);
    if (!run.ok()) return run.status();
    if (end == ListEnd::kTail) std::reverse(run->begin(), run->end());  // pop order
    for (Element& element : *run) {
      engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, element.seq));
      popped.push_back(std::move(element.value));
    }
    state.count -= n;
    if (dense && end == ListEnd::kHead) {
      state.head += n;  // the popped elements were head .. head + n - 1
    } else if (dense) {
      state.tail -= n;
    } else if (state.count > 0) {
      SLUICE_RETURN_IF_ERROR(ReseatBounds(engine_, key, state));
    }
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
  if (IsInlineListPayload(record.payload)) {
    std::optional<IndexRange> range = ClampIndexRange(start, stop, record.meta.size);
    if (!range) return std::vector<std::string>();
    return InlineRun(record.payload, record.meta.size, range->start,
                     range->stop - range->start + 1);
  }
  StatusOr<ListState> state = DecodeList(record);  // a copy: the payload is 16 bytes
  if (!state.ok()) return state.status();
  return ReadRange(engine_, key, *state, start, stop);
}

StatusOr<std::vector<std::string>> ListType::ElementsOf(std::string_view key,
                                                        const Record& record) {
  return RangeOf(key, record, 0, -1);
}

StatusOr<std::optional<std::string>> ListType::IndexOf(std::string_view key,
                                                       const RecordView& record, int64_t index) {
  const auto size = static_cast<int64_t>(record.meta.size);
  if (index < 0) index += size;
  if (index < 0 || index >= size) return std::optional<std::string>();
  if (IsInlineListPayload(record.payload)) {
    size_t at = 0;
    StatusOr<std::string_view> bytes =
        InlineListBytes(record.payload, record.meta.size, static_cast<uint64_t>(index), &at);
    if (!bytes.ok()) return bytes.status();
    return std::optional<std::string>(InlineListElementAt(*bytes, at));
  }
  // Decoded (16 bytes copied) before the engine is read, which may end the view.
  StatusOr<ListState> state = DecodeList(Record{record.meta, std::string(record.payload)});
  if (!state.ok()) return state.status();
  if (!state->dense()) {
    StatusOr<std::vector<std::string>> one =
        ReadElements(engine_, key, *state, static_cast<uint64_t>(index), 1);
    if (!one.ok()) return one.status();
    return std::optional<std::string>(std::move(one->front()));
  }
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
  const uint64_t kept = range->stop - range->start + 1;
  if (kept == state.size()) {
    // Nothing to trim, and still a write of the key, as Redis's LTRIM signals it (WATCH,
    // client-side caching): its record is staged as it is.
    engine_.Put(key, state.record);
    return true;
  }
  if (state.is_inline) {
    size_t from = 0;
    StatusOr<std::string_view> held =
        InlineListBytes(state.record.payload, state.size(), range->start, &from);
    if (!held.ok()) return held.status();
    const size_t to =
        range->stop + 1 == state.size() ? held->size() : InlineListOffset(*held, kept, from);
    StoreInlineBytes(engine_, key, state, std::string(held->substr(from, to - from)), kept);
    return true;
  }
  const uint64_t version = state.record.meta.version;
  if (state.dense()) {
    const uint64_t new_head = state.head + range->start;
    const uint64_t new_tail = state.head + range->stop + 1;
    for (uint64_t seq = state.head; seq < new_head; ++seq) {
      engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
    }
    for (uint64_t seq = new_tail; seq < state.tail; ++seq) {
      engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
    }
    state.head = new_head;
    state.tail = new_tail;
  } else {
    // Both ends are read before either is deleted: a walk counts the elements it passes.
    StatusOr<std::vector<Element>> before = ReadRun(engine_, key, state, 0, range->start);
    if (!before.ok()) return before.status();
    StatusOr<std::vector<Element>> after =
        ReadRun(engine_, key, state, range->stop + 1, state.size() - range->stop - 1);
    if (!after.ok()) return after.status();
    for (const std::vector<Element>* dropped : {&*before, &*after}) {
      for (const Element& element : *dropped) {
        engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, element.seq));
      }
    }
  }
  state.count = kept;
  if (!state.dense()) SLUICE_RETURN_IF_ERROR(ReseatBounds(engine_, key, state));
  state.SyncRecord();
  StoreOrDelete(engine_, key, state.record);
  return true;
}

StatusOr<bool> ListType::Set(std::string_view key, int64_t index, std::string_view element) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return false;
  ListState& state = **loaded;
  const auto size = static_cast<int64_t>(state.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return false;
  if (state.is_inline) {
    StatusOr<std::vector<std::string_view>> held = InlineElements(state.record);
    if (!held.ok()) return held.status();
    (*held)[static_cast<uint64_t>(index)] = element;
    StoreInline(engine_, key, state, *held, limits_);
    return true;
  }
  StatusOr<uint64_t> seq = SeqAt(engine_, key, state, static_cast<uint64_t>(index));
  if (!seq.ok()) return seq.status();
  engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, state.record.meta.version, *seq),
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
  if (state.is_inline) {
    StatusOr<std::vector<std::string_view>> held = InlineElements(state.record);
    if (!held.ok()) return held.status();
    std::vector<std::string_view> kept;  // the elements left, walked from `from`
    uint64_t removed = 0;
    const auto keep_or_remove = [&](std::string_view value) {
      if (value == element && removed < limit) {
        ++removed;
      } else {
        kept.push_back(value);
      }
    };
    if (from == ListEnd::kHead) {
      std::for_each(held->begin(), held->end(), keep_or_remove);
    } else {
      std::for_each(held->rbegin(), held->rend(), keep_or_remove);
      std::reverse(kept.begin(), kept.end());
    }
    if (removed > 0) StoreInline(engine_, key, state, kept, limits_);
    return removed;
  }
  // The matches go and leave gaps: nothing else moves.
  std::vector<uint64_t> removed;
  SLUICE_RETURN_IF_ERROR(
      ScanElements(engine_, key, state, from, [&](uint64_t, uint64_t seq, std::string_view value) {
        if (value == element) removed.push_back(seq);
        return removed.size() < limit;
      }));
  if (removed.empty()) return uint64_t{0};
  const uint64_t version = state.record.meta.version;
  for (uint64_t seq : removed) {
    engine_.DeleteSubEntry(SubFamily::kSubkeys, ElementKey(key, version, seq));
  }
  state.count -= removed.size();
  if (state.count > 0) SLUICE_RETURN_IF_ERROR(ReseatBounds(engine_, key, state));
  state.SyncRecord();
  StoreOrDelete(engine_, key, state.record);
  return removed.size();
}

StatusOr<int64_t> ListType::Insert(std::string_view key, InsertWhere where, std::string_view pivot,
                                   std::string_view element) {
  StatusOr<std::optional<ListState>> loaded = LoadList(engine_, key, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return int64_t{0};
  ListState& state = **loaded;
  if (state.is_inline) {
    StatusOr<std::vector<std::string_view>> held = InlineElements(state.record);
    if (!held.ok()) return held.status();
    auto found = std::find(held->begin(), held->end(), pivot);
    if (found == held->end()) return int64_t{-1};
    held->insert(where == InsertWhere::kBefore ? found : found + 1, element);
    StoreInline(engine_, key, state, *held, limits_);
    return static_cast<int64_t>(state.size());
  }
  // The new element's index, and the numbers of the elements that will be its neighbours.
  std::optional<uint64_t> at;
  std::optional<uint64_t> before_seq;  // the one before it
  std::optional<uint64_t> after_seq;   // the one after it
  SLUICE_RETURN_IF_ERROR(ScanElements(engine_, key, state, ListEnd::kHead,
                                      [&](uint64_t offset, uint64_t seq, std::string_view value) {
                                        if (at) {  // the element after an AFTER's pivot
                                          after_seq = seq;
                                          return false;
                                        }
                                        if (value != pivot) {
                                          before_seq = seq;
                                          return true;
                                        }
                                        if (where == InsertWhere::kBefore) {
                                          at = offset;
                                          after_seq = seq;
                                          return false;
                                        }
                                        at = offset + 1;
                                        before_seq = seq;
                                        return true;
                                      }));
  if (!at) return int64_t{-1};
  // A free number for it: past an end, or the middle of the gap between its neighbours.
  std::optional<uint64_t> seq;
  if (*at == 0 && state.head > 0) {
    seq = --state.head;
  } else if (*at == state.size() && state.tail < UINT64_MAX) {
    seq = state.tail++;
  } else if (before_seq && after_seq && *after_seq - *before_seq > 1) {
    seq = *before_seq + (*after_seq - *before_seq) / 2;
  }
  if (seq) {
    ++state.count;
    engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(key, state.record.meta.version, *seq),
                        element);
  } else {
    // No gap: move the few elements between it and an end, or lay out all of them with gaps
    // for the inserts that follow at that place (a priority queue's).
    const uint64_t to_nearer_end = std::min(*at, state.size() - *at);
    bool shifted = false;
    if (to_nearer_end * kShiftOverLayout <= state.size()) {
      StatusOr<bool> done = ShiftTowardNearerEnd(engine_, key, state, *at, element);
      if (!done.ok()) return done.status();
      shifted = *done;
    }
    if (!shifted) SLUICE_RETURN_IF_ERROR(LayOutWhole(engine_, key, state, *at, element));
  }
  state.SyncRecord();
  StoreOrDelete(engine_, key, state.record);
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
  SLUICE_RETURN_IF_ERROR(ScanElements(
      engine_, key, state, query.from, [&](uint64_t offset, uint64_t, std::string_view value) {
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
  if (state.is_inline) {
    StatusOr<std::vector<std::string_view>> held = InlineElements(state.record);
    if (!held.ok()) return held.status();
    std::string element(from == ListEnd::kHead ? held->front() : held->back());
    if (from == to) {
      engine_.Put(source, state.record);  // as below
      return std::optional<std::string>(std::move(element));
    }
    if (from == ListEnd::kHead) {
      std::rotate(held->begin(), held->begin() + 1, held->end());
    } else {
      std::rotate(held->rbegin(), held->rbegin() + 1, held->rend());
    }
    StoreInline(engine_, source, state, *held, limits_);
    return std::optional<std::string>(std::move(element));
  }
  if (from != to && (from == ListEnd::kHead ? state.tail == UINT64_MAX : state.head == 0)) {
    SLUICE_RETURN_IF_ERROR(LayOutWhole(engine_, source, state, 0, std::nullopt));
  }
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
  const bool dense = state.dense();
  const uint64_t to_seq = from == ListEnd::kHead ? state.tail++ : --state.head;
  engine_.PutSubEntry(SubFamily::kSubkeys, ElementKey(source, version, to_seq), **element);
  if (!dense) {
    SLUICE_RETURN_IF_ERROR(ReseatBounds(engine_, source, state));
  } else if (from == ListEnd::kHead) {
    ++state.head;
  } else {
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
  state.is_inline = true;  // laid out as sub-entries when they do not fit
  const std::vector<std::string_view> views(elements.begin(), elements.end());
  StoreInline(engine_, key, state, views, limits_);
  return Status::Ok();
}

}  // namespace sluice::storage
