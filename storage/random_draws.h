#pragma once

// Reading draws of a collection's elements, and taking the picks drawn ahead
// (storage/draws_ahead.h has why and what keeps them exact).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/string_hash.h"
#include "storage/draws_ahead.h"
#include "storage/engine.h"
#include "storage/random_sample.h"

namespace sluice::storage {

// A draw of elements: the first `count` taken now, the rest drawn ahead, next at the back.
template <typename Element>
struct Draw {
  std::vector<Element> now;
  DrawnAhead<Element> ahead;
};

// How a kind of collection reads its elements: `open` gives an iterator over its `size`
// sub-entries in order, `read` the element an iterator is on.
template <typename Element>
struct ElementReader {
  std::function<StatusOr<std::unique_ptr<SubEntryIterator>>()> open;
  std::function<StatusOr<Element>(const SubEntryIterator&)> read;
};

// Reads the draw `plan` makes of the `size` elements: its picks are the draw, in order, as
// indexes into its positions (distinct positions for SPOP and a one-off distinct sample,
// `distinct` then; independent picks, which may repeat a position, for the random-element
// commands). Each pick past `count` is held while every pick before it (from `count`) is an
// element of at most kShortElement bytes: whether an element is held never depends on its own
// length, or on any drawn after it, so what it serves stays uniform.
template <typename Element>
StatusOr<Draw<Element>> ReadDraw(const ElementReader<Element>& reader, uint64_t size,
                                 const SamplePlan& plan, size_t count, bool distinct) {
  const size_t total = plan.picks.size();
  // For each position: whether a pick now takes it, and its first pick past `count`.
  std::vector<bool> now(plan.positions.size(), false);
  std::vector<size_t> first_ahead(plan.positions.size(), total);
  for (size_t j = 0; j < total; ++j) {
    const uint32_t i = plan.picks[j];
    if (j < count) {
      now[i] = true;
    } else {
      first_ahead[i] = std::min(first_ahead[i], j);
    }
  }
  std::vector<std::optional<Element>> elements(plan.positions.size());
  size_t cut = total;  // the first pick past `count` of a long element: the last one held
  size_t cut_at = plan.positions.size();
  StatusOr<std::unique_ptr<SubEntryIterator>> it = reader.open();
  if (!it.ok()) return it.status();
  SLUICE_RETURN_IF_ERROR(
      VisitPositions(**it, size, plan.positions, [&](size_t i, const SubEntryIterator& at) {
        // Not taken now, and no pick of it is held (or none is past `count`): not read.
        if (!now[i] && (first_ahead[i] == total || first_ahead[i] > cut)) return Status::Ok();
        StatusOr<Element> element = reader.read(at);
        if (!element.ok()) return element.status();
        if (first_ahead[i] < cut && ElementBytes(*element) > DrawAheadBounds::kShortElement) {
          if (cut_at < elements.size() && !now[cut_at]) elements[cut_at].reset();
          cut = first_ahead[i];
          cut_at = i;
        }
        elements[i] = std::move(*element);
        return Status::Ok();
      }));
  it->reset();  // before the caller writes (engine.h: collect, then write)
  // Distinct positions are each picked once: their elements move rather than copy. (Picks may
  // repeat one even when there are as many as positions: a plan of -size reads them all.)
  auto take = [&](size_t j) {
    Element& element = *elements[plan.picks[j]];
    return distinct ? std::move(element) : element;
  };
  Draw<Element> draw;
  draw.now.reserve(count);
  for (size_t j = 0; j < count; ++j) draw.now.push_back(take(j));
  std::vector<Element> held;
  for (size_t j = std::min(cut + 1, total); j-- > count;) held.push_back(take(j));
  draw.ahead = DrawnAhead<Element>(std::move(held));
  return draw;
}

// Every element of the collection, in order, when their DrawnAhead's bytes stay within
// `most_bytes`; nullopt past it (read up to there).
template <typename Element>
StatusOr<std::optional<std::vector<Element>>> ReadWhole(const ElementReader<Element>& reader,
                                                        uint64_t size, size_t most_bytes) {
  std::optional<std::vector<Element>> none;
  if (most_bytes == 0 || size > most_bytes / sizeof(Element)) return none;
  StatusOr<std::unique_ptr<SubEntryIterator>> it = reader.open();
  if (!it.ok()) return it.status();
  std::vector<Element> elements;
  elements.reserve(size);
  size_t bytes = sizeof(Element) * size;
  for ((*it)->SeekToFirst(); (*it)->Valid() && elements.size() < size; (*it)->Next()) {
    StatusOr<Element> element = reader.read(**it);
    if (!element.ok()) return element.status();
    bytes += ElementBytes(*element);
    if (bytes > most_bytes) return none;
    elements.push_back(std::move(*element));
  }
  SLUICE_RETURN_IF_ERROR((*it)->status());
  if (elements.size() < size) return IoError("fewer elements stored than the key's size");
  return std::optional<std::vector<Element>>(std::move(elements));
}

// Whether a random-element call (SRANDMEMBER, HRANDFIELD, ZRANDMEMBER) of `count` on a
// collection of `size` elements takes picks (TakePicks): a negative count down to -kMostPicks,
// or a positive one up to kMostPicks and a quarter of the size. A larger distinct sample is a
// good share of the collection, whose walk costs about what its reply does, and its picks
// would repeat more and more.
inline bool TakesPicks(int64_t count, uint64_t size) {
  constexpr auto kMost = static_cast<int64_t>(DrawAheadBounds::kMostPicks);
  if (count < 0) return count >= -kMost;
  return count > 0 && count <= kMost && static_cast<uint64_t>(count) <= size / 4;
}

// A sample of the picks TakePicks took for `count` (TakesPicks), replied in that order.
template <typename Element>
RandomSample<Element> SampleOfPicks(std::vector<Element> picks) {
  RandomSample<Element> sample;
  sample.picks.resize(picks.size());
  std::iota(sample.picks.begin(), sample.picks.end(), uint32_t{0});
  sample.elements = std::move(picks);
  return sample;
}

// |count| independent uniform picks of a collection of `size` elements, in the order drawn
// (count > 0: the first `count` distinct elements of such picks, a uniform subset, in the
// collection's order as PlanSample's): what the calls before drew ahead for `key` under
// `version` first, then picks drawn now. When this call follows one of its kind (a streak),
// the collection is read whole if it fits the draws' most_whole_bytes (once; its picks are
// then uniform indexes), else DrawAheadCount(size) picks more are drawn. Whether what is held
// covers the call changes no pick: they are independent.
template <typename Element>
StatusOr<std::vector<Element>> TakePicks(DrawsAhead<Element>& draws, std::string_view key,
                                         uint64_t version, uint64_t size, int64_t count,
                                         const ElementReader<Element>& reader,
                                         std::mt19937_64& rng) {
  const bool distinct = count > 0;
  const uint64_t wanted =
      distinct ? static_cast<uint64_t>(count) : uint64_t{0} - static_cast<uint64_t>(count);
  std::optional<DrawnAhead<Element>> held = draws.Release(key, version);
  if (distinct && !held) {
    // A one-off distinct sample: one walk to a Floyd sample of its positions, as picks could
    // repeat and walk again. The call after it, if of this kind, draws ahead.
    const SamplePlan plan = PlanSample(size, count, rng);
    StatusOr<Draw<Element>> draw = ReadDraw(reader, size, plan, plan.picks.size(), true);
    if (!draw.ok()) return draw.status();
    draws.Hold(key, version, DrawnAhead<Element>());
    return std::move(draw->now);  // in position order: the collection's
  }
  const uint64_t ahead_count = held ? draws.DrawAheadCount(size) : 0;
  DrawnAhead<Element> ahead = held ? std::move(*held) : DrawnAhead<Element>();
  bool too_large_for_whole = ahead.too_large_for_whole();
  std::vector<Element> taken;
  taken.reserve(wanted);
  StringSet names;  // a distinct sample's, so far
  auto take = [&](Element pick) {
    if (distinct && !names.emplace(ElementName(pick)).second) return;
    taken.push_back(std::move(pick));
  };
  std::uniform_int_distribution<uint64_t> position(0, size - 1);
  // A distinct sample may need more picks than it takes elements.
  while (taken.size() < wanted) {
    if (ahead.whole()) {
      take(ahead.elements()[position(rng)]);
      continue;
    }
    const uint64_t missing = wanted - taken.size();
    if (!ahead.empty()) {
      for (Element& pick : ahead.TakeNext(std::min<uint64_t>(missing, ahead.size()))) {
        take(std::move(pick));
      }
      continue;
    }
    // In a streak, the collection whole if it fits, once; else a draw of picks ahead.
    if (ahead_count > 0 && !too_large_for_whole) {
      StatusOr<std::optional<std::vector<Element>>> whole =
          ReadWhole(reader, size, draws.most_whole_bytes());
      if (!whole.ok()) return whole.status();
      if (whole->has_value()) {
        ahead = DrawnAhead<Element>::Whole(std::move(**whole));
        continue;
      }
      too_large_for_whole = true;
    }
    const SamplePlan plan = PlanSample(size, -static_cast<int64_t>(missing + ahead_count), rng);
    StatusOr<Draw<Element>> draw = ReadDraw(reader, size, plan, missing, /*distinct=*/false);
    if (!draw.ok()) return draw.status();
    for (Element& pick : draw->now) take(std::move(pick));
    ahead = std::move(draw->ahead);
    if (too_large_for_whole) ahead.set_too_large_for_whole();
  }
  draws.Hold(key, version, std::move(ahead));
  if (distinct) {
    std::sort(taken.begin(), taken.end(),
              [](const Element& a, const Element& b) { return InCollectionOrder(a, b); });
  }
  return taken;
}

}  // namespace sluice::storage
