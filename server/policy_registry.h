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

// Parses `ALGORITHM ARGS...` for `name`, validating the arguments exactly as the RL.* command
// of that algorithm would. SMOOTH is not a policy algorithm.
StatusOr<PolicyDefinition> ParsePolicyDefinition(std::string_view name,
                                                 std::span<const std::string_view> words);
// The inverse of Canonical().
StatusOr<PolicyDefinition> ParseCanonicalPolicy(std::string_view name, std::string_view text);

class PolicyRegistry {
 public:
  static constexpr size_t kMaxPolicies = 10000;

  struct Entry {
    PolicyDefinition definition;
    LimiterCounters counters;
  };

  // Adds or replaces; the counters of a replaced policy are kept.
  Status Set(PolicyDefinition definition);
  bool Delete(std::string_view name);
  const Entry* Find(std::string_view name) const;
  Entry* FindMutable(std::string_view name);
  std::vector<std::string> Names() const;
  size_t size() const { return policies_.size(); }
  const std::map<std::string, Entry, std::less<>>& all() const { return policies_; }

 private:
  std::map<std::string, Entry, std::less<>> policies_;
};

}  // namespace sluice::server
