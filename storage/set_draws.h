#pragma once

// Members of sets drawn ahead, for SPOP and for SRANDMEMBER (storage/set_type.cc). A set's
// sub-entries have no positional index, so a uniform draw walks to its positions: O(n) steps
// for every call on a large set (the stock redis-benchmark SPOP, of a 63,000-member set, ran
// at 101 pops a second). A call that follows a call of the same kind on the same set draws,
// in the same walk, AheadCount(size) members more, and the calls after it take them in order:
//   - SPOP's draw is a uniform random ordered sample, whose order is what successive draws
//     without replacement would give: while the set changes only by the pops that take them,
//     each pop is exactly as uniform as a fresh draw;
//   - SRANDMEMBER's (without a count, or with a negative one down to -1,024) are independent
//     uniform picks: exact while the set does not change at all.
// A call after any other change draws only what it takes, as one walk to its positions costs
// about a quarter of one past all the draw's: an SADD between every two calls never pays for a
// draw it cannot use.
//
// What is held goes with any other change of the set's members: SADD, SREM, SMOVE and (for the
// picks) SPOP forget it (Engine::ForgetSetDraws), and every other change writes the set under
// a fresh version (the STORE forms, RESTORE, RENAME, COPY, the copy that sheds tombstones, DEL
// or expiry and a new set), which what is held does not match; MOVE and SWAPDB keep the
// version with the same members. A batch dropped (Engine::DiscardStaged, a failed Commit, a
// reopen: Clear) takes everything held, as its pops may never land and its additions may be
// in a draw.
//
// Bounded: a draw holds members while every one drawn before them is at most kShortMember
// bytes long, and the draws of all sets held by one SetDraws (the engine has one for each
// kind) take at most kMaxHeldBytes: the least recently held make room, and a draw larger than
// that is not held.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_hash.h"

namespace sluice::storage {

// Members drawn ahead for one set, next at the back, and what they take.
class DrawnAhead {
 public:
  DrawnAhead() = default;
  explicit DrawnAhead(std::vector<std::string> members);
  const std::vector<std::string>& members() const { return members_; }
  size_t size() const { return members_.size(); }
  // The members' bytes and their strings' objects, near enough.
  size_t bytes() const { return member_bytes_ + sizeof(std::string) * members_.capacity(); }
  // Moves the next `count` (at most size()) out, in the order drawn.
  std::vector<std::string> TakeNext(size_t count);

 private:
  std::vector<std::string> members_;
  size_t member_bytes_ = 0;
};

class SetDraws {
 public:
  // A walk past every member for each size/16 calls (about 16 steps a call), within bounds.
  static constexpr uint64_t kMinAhead = 1024;
  static constexpr uint64_t kMaxAhead = 8192;
  static uint64_t AheadCount(uint64_t size) {
    return std::clamp<uint64_t>(size / 16, kMinAhead, kMaxAhead);
  }
  static constexpr size_t kShortMember = 256;
  static constexpr size_t kMaxHeldBytes = 16 << 20;

  // What is held for `key` under `version`, taken out (the caller holds back what it does not
  // take): the members drawn ahead, none once all are taken; nullopt unless the call before
  // on the set was of this kind, with no change since (a streak is what draws ahead).
  std::optional<DrawnAhead> Release(std::string_view key, uint64_t version);
  // Holds `ahead` (none: the call drew nothing ahead) for `key` under `version`, in place of
  // anything before.
  void Hold(std::string_view key, uint64_t version, DrawnAhead ahead);
  void Forget(std::string_view key) {
    if (draws_.empty()) return;
    if (auto it = draws_.find(key); it != draws_.end()) Erase(it);
  }
  void Clear() {
    draws_.clear();
    by_age_.clear();
    bytes_ = 0;
  }
  size_t size() const { return draws_.size(); }
  // What the held draws take: their members, keys and bookkeeping.
  size_t bytes() const { return bytes_; }
  // The members held for `key` under `version`, next at the back (tests).
  const std::vector<std::string>* Peek(std::string_view key, uint64_t version) const;

 private:
  struct Held {
    uint64_t version = 0;
    DrawnAhead ahead;
    size_t bytes = 0;
    std::list<const std::string*>::iterator age;  // its place in by_age_
  };
  using Draws = StringMap<Held>;
  void Erase(Draws::iterator it);

  Draws draws_;
  std::list<const std::string*> by_age_;  // the draws' keys, least recently held first
  size_t bytes_ = 0;
};

}  // namespace sluice::storage
