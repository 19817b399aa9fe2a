#pragma once

// Named policies (contract section 5): an algorithm and its arguments defined once, by
// RL.POLICY SET or the config file, stored durably, with per-policy decision counters.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/codec.h"
#include "common/status.h"
#include "server/policy_change_hold.h"
#include "storage/record.h"

namespace sluice::server {

struct LimiterCounters {
  uint64_t allowed = 0;
  uint64_t refused = 0;
  uint64_t blocked = 0;    // parked by BLOCK
  uint64_t timed_out = 0;  // BLOCK deadline passed before the request fit
};

struct PolicyDefinition {
  std::string name;
  algorithms::AlgorithmTag algorithm;
  std::vector<std::string> args;  // the algorithm's positional arguments

  // "TOKENBUCKET 100 10 1000": stored with each key's state to notice a changed policy.
  std::string Canonical() const;
  bool operator==(const PolicyDefinition&) const = default;
};

// A definition that a later one replaced (RL.POLICY SET, or the config file at start). Kept
// until it settles, so that a key's state written under it is carried over as of the moment
// of the change, not of the key's next call (contract section 5: never a silent reset).
struct PolicyChange {
  int64_t at_us = 0;     // when the replacement took effect
  std::string replaced;  // the replaced definition's Canonical()
  bool operator==(const PolicyChange&) const = default;
};

// A policy as RL.TAKE applies it: the definition in force and its unsettled changes.
struct PolicyInForce {
  PolicyDefinition definition;
  std::vector<PolicyChange> changes;  // oldest first
};

// A name users may give a new policy (RL.POLICY SET, the config file): not COST or BLOCK,
// which RL.TAKE reads as its options. Stored policies are read back whatever their names.
Status ValidateNewPolicyName(std::string_view name);

// Parses `ALGORITHM ARGS...` for `name`, validating the arguments exactly as the RL.* command
// of that algorithm would. SMOOTH is not a policy algorithm.
StatusOr<PolicyDefinition> ParsePolicyDefinition(std::string_view name,
                                                 std::span<const std::string_view> words);
// The inverse of Canonical().
StatusOr<PolicyDefinition> ParseCanonicalPolicy(std::string_view name, std::string_view text);

class PolicyRegistry {
 public:
  static constexpr size_t kMaxPolicies = 10000;
  // A policy changed more often than this before its changes settle forgets the oldest: a
  // state written under that one is then carried over at its next call.
  static constexpr size_t kMaxChanges = 16;

  struct Entry {
    PolicyDefinition definition;
    std::vector<PolicyChange> changes;  // oldest first
    // When every state written under a replaced definition is fresh under any definition
    // since (the changes can then be forgotten); 0 without changes.
    int64_t settles_at_ms = 0;
    LimiterCounters counters;

    PolicyInForce InForce() const { return {definition, changes}; }
  };
  // Whether `entry` has changes and all of them have settled at `now_ms`: they can go.
  static bool ChangesSettled(const Entry& entry, int64_t now_ms) {
    return !entry.changes.empty() && now_ms > entry.settles_at_ms;
  }

  // Many changes in a row (the stored policies at start or after a refused commit, the config
  // file's lines) build the hold once, as the outermost batch ends, instead of after each
  // change: each build is O(policies), and 10,000 changed policies took 17 s to start.
  class Batch {
   public:
    explicit Batch(PolicyRegistry& registry) : registry_(registry) { ++registry_.batch_depth_; }
    ~Batch() {
      if (--registry_.batch_depth_ == 0) registry_.UpdateHold();
    }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    PolicyRegistry& registry_;
  };

  // Adds or replaces; a replaced definition is remembered as a change at `now_us`, and the
  // counters of a replaced policy are kept.
  Status Set(PolicyDefinition definition, int64_t now_us);
  // Replaces a policy's changes (restored from storage at start).
  void RestoreChanges(std::string_view name, std::vector<PolicyChange> changes);
  bool Delete(std::string_view name);
  const Entry* Find(std::string_view name) const;
  Entry* FindMutable(std::string_view name);
  std::vector<std::string> Names() const;
  // CONFIG RESETSTAT: every policy's decision counters back to zero.
  void ResetCounters() {
    for (auto& [name, entry] : policies_) entry.counters = LimiterCounters{};
  }
  size_t size() const { return policies_.size(); }
  const std::map<std::string, Entry, std::less<>>& all() const { return policies_; }
  // Counts every Set and Delete: a request built from older definitions is out of date.
  uint64_t generation() const { return generation_; }

  // While some policy has unsettled changes: the states of those policies to keep past their
  // expiry (PolicyChangeHold), and the storage hold that keeps their keys; else null/nullopt.
  const std::shared_ptr<const PolicyChangeHold>& change_hold() const { return change_hold_; }
  std::optional<storage::ExpiryHold> hold() const;
  // Forgets the changes that have settled by `now_ms`; the names of the policies whose changes
  // were forgotten (to store again).
  std::vector<std::string> ForgetSettledChanges(int64_t now_ms);

 private:
  // After `entry`'s changes changed: its settling time, and the hold.
  void ChangesChanged(Entry& entry);
  void UpdateHold();

  std::map<std::string, Entry, std::less<>> policies_;
  uint64_t generation_ = 0;
  std::shared_ptr<const PolicyChangeHold> change_hold_;  // null without unsettled changes
  int batch_depth_ = 0;  // inside a Batch the hold is built when the outermost one ends
};

}  // namespace sluice::server
