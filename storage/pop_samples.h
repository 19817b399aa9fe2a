#pragma once

// Members of sets drawn ahead for SPOP. A set's sub-entries have no positional index, so a
// uniform draw walks to its positions: O(n) steps for every SPOP of a large set (the stock
// redis-benchmark SPOP, of a 63,000-member set, ran at 101 pops a second). A pop that follows
// a pop of the same set draws, in the same walk, DrawAhead(size) members more, in a random
// order: a uniform random ordered sample, whose order is what successive draws without
// replacement would give. While the set changes only by the pops that take them, later SPOPs
// take them in that order, exactly as uniform as a fresh draw each. A pop after any other
// change draws only what it pops, as one walk to its positions costs about a quarter of one
// past all the draw's: an SADD between every two pops never pays for a draw it cannot use.
//
// Any other change of the set (SADD, SREM, SMOVE) forgets what is held (Forget), and so does
// a batch dropped unlogged (Engine::DiscardStaged, a failed Commit: Clear), whose pops the
// sample has gone past, or whose additions it may hold. A key under a new version (DEL and a
// new set, RENAME, STORE) has none. Bounded: a draw holds members while those drawn before
// them are at most kShortMember bytes long (storage/random_sample.h, DrawForPop), so a set's
// take at most kMaxDrawAhead * kShortMember bytes plus one member; past kMaxHeldBytes in all,
// other sets' make room.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_hash.h"

namespace sluice::storage {

// Members drawn ahead for one set, next at the back, and their length in all.
class DrawnAhead {
 public:
  DrawnAhead() = default;
  explicit DrawnAhead(std::vector<std::string> members);
  const std::vector<std::string>& members() const { return members_; }
  size_t size() const { return members_.size(); }
  size_t member_bytes() const { return member_bytes_; }
  // Moves the next `count` (at most size()) out.
  std::vector<std::string> TakeNext(size_t count);

 private:
  std::vector<std::string> members_;
  size_t member_bytes_ = 0;
};

class PopSamples {
 public:
  // A walk past every member for each size/16 pops: about 16 steps a pop, within bounds.
  static constexpr uint64_t kMinDrawAhead = 1024;
  static constexpr uint64_t kMaxDrawAhead = 8192;
  static uint64_t DrawAhead(uint64_t size) {
    return std::clamp<uint64_t>(size / 16, kMinDrawAhead, kMaxDrawAhead);
  }
  static constexpr size_t kShortMember = 256;
  static constexpr size_t kMaxHeldBytes = 16 << 20;

  // What is held for `key` under `version`, taken out (the caller holds back what it does not
  // pop): the members drawn ahead, none once they are all popped; nullopt when the set's last
  // change was not a pop (or it is another version's).
  std::optional<DrawnAhead> Release(std::string_view key, uint64_t version);
  // Holds `ahead` (none: the set was just popped) for `key` under `version`, in place of
  // anything before; other sets' make room past kMaxHeldBytes.
  void Hold(std::string_view key, uint64_t version, DrawnAhead ahead);
  void Forget(std::string_view key) {
    if (samples_.empty()) return;
    if (auto it = samples_.find(key); it != samples_.end()) Erase(it);
  }
  void Clear() {
    samples_.clear();
    bytes_ = 0;
  }
  size_t size() const { return samples_.size(); }
  // What the held samples take: their members and keys, and some bookkeeping each.
  size_t bytes() const { return bytes_; }
  // The members held for `key` under `version`, next at the back (tests).
  const std::vector<std::string>* Peek(std::string_view key, uint64_t version) const;

 private:
  struct Sample {
    uint64_t version = 0;
    DrawnAhead ahead;
    size_t bytes = 0;
  };
  using Samples = StringMap<Sample>;
  void Erase(Samples::iterator it) {
    bytes_ -= it->second.bytes;
    samples_.erase(it);
  }

  Samples samples_;
  size_t bytes_ = 0;
};

}  // namespace sluice::storage
