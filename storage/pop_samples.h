#pragma once

// Members of sets drawn ahead for SPOP. A set's sub-entries have no positional index, so a
// uniform draw walks to its positions: O(n) steps for every SPOP of a large set (the stock
// redis-benchmark SPOP, of a 63,000-member set, took minutes). A pop that follows a pop of the
// same set draws, in the same walk, up to kDrawAhead members more, in a random order: a uniform
// random ordered sample, whose order is what successive draws without replacement would give.
// While the set changes only by the pops that take them, later SPOPs take them in that order,
// exactly as uniform as a fresh draw each. A pop after any other change draws only what it
// pops, as one walk to its positions costs about a quarter of one past all the draw's: an SADD
// between every two pops never pays for a draw it cannot use.
//
// Any other change of the set (SADD, SREM, SMOVE) forgets what is held (Forget), and so does
// a batch dropped unlogged (Engine::DiscardStaged, a failed Commit: Clear), whose pops the
// sample has gone past, or whose additions it may hold. A key under a new version (DEL and a
// new set, RENAME, STORE) has none. Bounded: kMaxSets sets, and per set the members drawn
// ahead up to the first longer than kSmallMember (storage/random_sample.h, DrawForPop): at
// most kDrawAhead * kSmallMember bytes plus one member.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_hash.h"

namespace sluice::storage {

class PopSamples {
 public:
  static constexpr size_t kDrawAhead = 1024;
  static constexpr size_t kSmallMember = 256;
  static constexpr size_t kMaxSets = 64;

  // What is held for `key` under `version`, taken out: the members drawn ahead, next at the
  // back (the caller holds back what it does not pop), none once they are all popped; nullopt
  // when the set's last change was not a pop (or under another version).
  std::optional<std::vector<std::string>> Release(std::string_view key, uint64_t version);
  // Holds `members` (next at the back; none: the set was just popped) for `key` under
  // `version`, in place of anything before; another set's makes room when kMaxSets are held.
  void Hold(std::string_view key, uint64_t version, std::vector<std::string> members);
  void Forget(std::string_view key) {
    if (samples_.empty()) return;
    if (auto it = samples_.find(key); it != samples_.end()) samples_.erase(it);
  }
  void Clear() { samples_.clear(); }
  size_t size() const { return samples_.size(); }
  // The members held for `key` under `version`, next at the back (tests).
  const std::vector<std::string>* Peek(std::string_view key, uint64_t version) const;

 private:
  struct Sample {
    uint64_t version = 0;
    std::vector<std::string> members;
  };
  StringMap<Sample> samples_;
};

}  // namespace sluice::storage
