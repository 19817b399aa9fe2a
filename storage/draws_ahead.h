#pragma once

// Elements of sets, hashes and sorted sets drawn ahead, for SPOP, SRANDMEMBER, HRANDFIELD and
// ZRANDMEMBER (storage/random_draws.h reads them). A collection's sub-entries have no
// positional index, so a uniform draw walks to its positions: O(n) steps for every call on a
// large collection (the stock redis-benchmark SPOP, of a 63,000-member set, ran at 101 pops a
// second; HRANDFIELD of a 100,000-field hash at 275 calls a second). A call that follows a call
// of the same kind on the same collection (a streak) draws, in the same walk,
// DrawsAhead::DrawAheadCount(size) elements more, and the calls after it take them in order:
//   - SPOP's draw is a uniform random ordered sample, whose order is what successive draws
//     without replacement would give: while the set changes only by the pops that take them,
//     each pop is exactly as uniform as a fresh draw. A set whose members fit kMostWholeBytes
//     is read whole instead, once, in a uniformly random order: no pop of the streak walks it
//     again (the stock benchmark's SPOP walked its set about 40 times);
//   - the random-element commands' are independent uniform picks: exact while the collection
//     does not change at all. A collection whose elements fit kMostWholeBytes (each element's
//     object and bytes counted) is read whole instead (DrawnAhead::Whole), once: its picks
//     are then uniform indexes, none taken, with no walk until it changes. A negative count takes
//     them as they come; a positive one (k distinct elements) takes them until it has k distinct,
//     and the first k distinct values of independent uniform picks are a uniform k-subset.
//     HRANDFIELD holds a field's value only when the two are short together, and reads a longer one
//     when it takes the field (a long value would otherwise stop the draw).
// A call after any other change draws only what it takes, as one walk to its positions costs
// about a quarter of one past all the draw's: a write between every two calls never pays for a
// draw it cannot use.
//
// What is held goes with any change of the collection's elements: every write of an element
// (Engine::PutSubEntry, DeleteSubEntry) forgets its owner's draws, and every other change
// writes the collection under a fresh version (the STORE forms, RESTORE, RENAME, COPY, the copy
// that sheds tombstones, DEL or expiry and a new key), which what is held does not match; MOVE
// and SWAPDB keep the version with the same elements. A sorted set holds draws only while its
// elements are sub-entries (not inline in its record). A batch dropped (Engine::DiscardStaged,
// a failed Commit, a reopen: Clear) takes everything held, as its pops may never land and its
// additions may be in a draw.
//
// Bounded: a draw holds elements while every one drawn before them is at most kShortElement
// bytes long (a whole read holds all, within kMostWholeBytes), and the draws of one kind (the
// engine holds one DrawsAhead for each) take at most kMaxHeldBytes: the least recently held make
// room, their keys kept as too large to read whole for the rest of their streaks (so that keys
// read whole in turn do not evict each other's on every call). A draw larger than that (its
// last element is) is held alone, as dropping it would serve its long element less often than
// the others. (Another key's draw may still evict it before its long element is served: a
// draw's weight depends on what it holds.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/string_hash.h"
#include "storage/scored_member.h"

namespace sluice::storage {

// A set's member or a hash's field drawn ahead, with its value when they are short together
// (DrawAheadBounds::kShortElement): a longer value is read when the field is taken. One string
// holds both, so that an element takes 40 bytes besides them (a whole read of 100,000 fields).
class DrawnField {
 public:
  DrawnField() = default;
  DrawnField(std::string_view field, std::optional<std::string_view> value)
      : bytes_(field), field_size_(static_cast<uint32_t>(field.size())), has_value_(value) {
    if (value) bytes_.append(*value);
  }
  std::string_view field() const { return std::string_view(bytes_).substr(0, field_size_); }
  bool has_value() const { return has_value_; }
  std::string_view value() const { return std::string_view(bytes_).substr(field_size_); }
  size_t size() const { return bytes_.size(); }

 private:
  std::string bytes_;  // the field, then its value when held
  uint32_t field_size_ = 0;
  bool has_value_ = false;
};

// What an element drawn ahead weighs for the short-element rule; for picks (DrawnField,
// ScoredMember), its name (distinct in its collection) and its place in the collection.
inline size_t ElementBytes(const std::string& member) { return member.size(); }
inline size_t ElementBytes(const DrawnField& drawn) { return drawn.size(); }
inline size_t ElementBytes(const ScoredMember& scored) { return scored.member.size(); }
inline std::string_view ElementName(const DrawnField& drawn) { return drawn.field(); }
inline std::string_view ElementName(const ScoredMember& scored) { return scored.member; }
// The collection's own order: by member (field), a sorted set's by score, then member.
inline bool InCollectionOrder(const DrawnField& a, const DrawnField& b) {
  return a.field() < b.field();
}
inline bool InCollectionOrder(const ScoredMember& a, const ScoredMember& b) {
  return a.score != b.score ? a.score < b.score : a.member < b.member;
}

// The bounds every kind of draw shares.
struct DrawAheadBounds {
  // A walk past every element for each size/16 calls (about 16 steps a call), within bounds:
  // what a draw takes ahead when whole reads are off (DrawsAhead::DrawAheadCount; the draws'
  // unit tests turn them off), as a whole read's room holds more.
  static constexpr uint64_t kMinAhead = 1024;
  static constexpr uint64_t kMaxAhead = 8192;
  static uint64_t AheadCount(uint64_t size) {
    return std::clamp<uint64_t>(size / 16, kMinAhead, kMaxAhead);
  }
  static constexpr size_t kShortElement = 256;
  // The most picks a random-element call takes from draws ahead (a negative count down to
  // -kMostPicks, a positive one up to kMostPicks).
  static constexpr uint64_t kMostPicks = 1024;
  static constexpr size_t kMaxHeldBytes = 16 << 20;
  // A held draw's bookkeeping besides its elements: the map's node and the age list's.
  static constexpr size_t kHeldOverhead = sizeof(std::string) + 96;
  // Half of it, less room for a key and its bookkeeping: two collections read whole fit
  // together (keys up to about 3.9 KB); a third makes room by turning the older ones' streaks
  // to draws ahead (DrawsAhead::Hold).
  static constexpr size_t kMostWholeBytes = kMaxHeldBytes / 2 - 4096;
};

// Elements drawn ahead for one collection, next at the back (or, for picks, all of them in
// the collection's order: a whole read), and what they take.
template <typename Element>
class DrawnAhead {
 public:
  DrawnAhead() = default;
  explicit DrawnAhead(std::vector<Element> elements) : elements_(std::move(elements)) {
    elements_.shrink_to_fit();
    for (const Element& element : elements_) element_bytes_ += ElementBytes(element);
  }
  // Every element of the collection, in its order: picks are then uniform indexes into them,
  // and take nothing (random-element picks only; storage/random_draws.h, TakePicks).
  static DrawnAhead Whole(std::vector<Element> elements) {
    DrawnAhead all(std::move(elements));
    all.whole_ = true;
    return all;
  }
  bool whole() const { return whole_; }
  // The collection was found too large to hold whole: draws of it are not read whole again.
  bool too_large_for_whole() const { return too_large_for_whole_; }
  void set_too_large_for_whole() { too_large_for_whole_ = true; }

  const std::vector<Element>& elements() const { return elements_; }
  size_t size() const { return elements_.size(); }
  bool empty() const { return elements_.empty(); }
  // The elements' bytes and their objects, near enough.
  size_t bytes() const { return element_bytes_ + sizeof(Element) * elements_.capacity(); }
  // Moves the next `count` (at most size()) out, in the order drawn.
  std::vector<Element> TakeNext(size_t count) {
    // The next is at the back: the taken come out back to front.
    std::vector<Element> taken(
        std::make_move_iterator(elements_.rbegin()),
        std::make_move_iterator(elements_.rbegin() + static_cast<std::ptrdiff_t>(count)));
    elements_.resize(elements_.size() - count);
    for (const Element& element : taken) element_bytes_ -= ElementBytes(element);
    if (elements_.size() * 2 < elements_.capacity()) elements_.shrink_to_fit();
    return taken;
  }

 private:
  std::vector<Element> elements_;
  size_t element_bytes_ = 0;
  bool whole_ = false;
  bool too_large_for_whole_ = false;
};

// The draws of one kind held for every collection, by key.
template <typename Element>
class DrawsAhead : public DrawAheadBounds {
 public:
  // What is held for `key` under `version`, taken out (the caller holds back what it does not
  // take): the elements drawn ahead, none once all are taken; nullopt unless the call before
  // on the collection was of this kind, with no change since (a streak is what draws ahead).
  std::optional<DrawnAhead<Element>> Release(std::string_view key, uint64_t version) {
    auto it = draws_.find(key);
    if (it == draws_.end()) return std::nullopt;
    std::optional<DrawnAhead<Element>> ahead;
    if (it->second.version == version) ahead = std::move(it->second.ahead);
    Erase(it);
    return ahead;
  }
  // Holds `ahead` (none: the call drew nothing ahead) for `key` under `version`, in place of
  // anything before.
  void Hold(std::string_view key, uint64_t version, DrawnAhead<Element> ahead) {
    Forget(key);
    const size_t bytes = ahead.bytes() + key.size() + kHeldOverhead;
    // A draw over the budget is held alone: whether a draw is held must not depend on its
    // elements' lengths. Its excess is its last element (every one before is short).
    while (!by_age_.empty() && bytes_ + bytes > kMaxHeldBytes) MakeRoom();
    auto [it, inserted] =
        draws_.emplace(std::string(key), Held{version, std::move(ahead), bytes, {}});
    it->second.age = by_age_.insert(by_age_.end(), &it->first);
    bytes_ += bytes;
  }
  void Forget(std::string_view key) {
    if (draws_.empty()) return;
    if (auto it = draws_.find(key); it != draws_.end()) Erase(it);
  }
  void Clear() {
    draws_.clear();
    by_age_.clear();
    bytes_ = 0;
  }
  bool empty() const { return draws_.empty(); }
  size_t size() const { return draws_.size(); }
  // The most a collection read whole may take (DrawnAhead::Whole); 0: never read whole (tests
  // of the draws).
  size_t most_whole_bytes() const { return most_whole_bytes_; }
  void set_most_whole_bytes(size_t bytes) { most_whole_bytes_ = bytes; }
  // How many elements a streak's draw takes ahead of a collection of `size` too large to read
  // whole: AheadCount(size), or as many short elements as a whole read's room holds, if more
  // (every draw walks the collection: 8,192 a draw walked a set of 259,000 members 32 times
  // over to pop them all).
  uint64_t DrawAheadCount(uint64_t size) const {
    return std::max<uint64_t>(AheadCount(size),
                              most_whole_bytes_ / (sizeof(Element) + kShortElement));
  }
  // What the held draws take: their elements, keys and bookkeeping.
  size_t bytes() const { return bytes_; }
  // The elements held for `key` under `version`, next at the back (tests).
  const std::vector<Element>* Peek(std::string_view key, uint64_t version) const {
    auto it = draws_.find(key);
    if (it == draws_.end() || it->second.version != version) return nullptr;
    return &it->second.ahead.elements();
  }

 private:
  struct Held {
    uint64_t version = 0;
    DrawnAhead<Element> ahead;
    size_t bytes = 0;
    std::list<const std::string*>::iterator age;  // its place in by_age_
  };
  using Draws = StringMap<Held>;
  void Erase(typename Draws::iterator it) {
    bytes_ -= it->second.bytes;
    by_age_.erase(it->second.age);
    draws_.erase(it);
  }
  // Frees the least recently held draw's elements. One with elements stays, empty, as a key too
  // large to read whole, and becomes the most recent: its streak goes on drawing ahead rather
  // than reading its key whole again and evicting another's (keys whose wholes do not fit
  // together, sampled in turn, would evict each other on every call). An empty one goes.
  void MakeRoom() {
    auto it = draws_.find(*by_age_.front());
    Held& held = it->second;
    if (held.ahead.empty()) {
      Erase(it);
      return;
    }
    held.ahead = DrawnAhead<Element>();
    held.ahead.set_too_large_for_whole();
    const size_t bytes = it->first.size() + kHeldOverhead;
    bytes_ -= held.bytes - bytes;
    held.bytes = bytes;
    by_age_.splice(by_age_.end(), by_age_, held.age);
  }

  Draws draws_;
  std::list<const std::string*> by_age_;  // the draws' keys, least recently held first
  size_t bytes_ = 0;
  size_t most_whole_bytes_ = kMostWholeBytes;
};

// Every kind of draw the engine holds.
struct HeldDraws {
  DrawsAhead<std::string> set_pops;     // SPOP
  DrawsAhead<DrawnField> field_picks;   // SRANDMEMBER, HRANDFIELD
  DrawsAhead<ScoredMember> zset_picks;  // ZRANDMEMBER

  bool empty() const { return set_pops.empty() && field_picks.empty() && zset_picks.empty(); }
  // The collection `key`'s elements changed: whatever is held for it goes.
  void Forget(std::string_view key) {
    set_pops.Forget(key);
    field_picks.Forget(key);
    zset_picks.Forget(key);
  }
  void Clear() {
    set_pops.Clear();
    field_picks.Clear();
    zset_picks.Clear();
  }
};

}  // namespace sluice::storage
