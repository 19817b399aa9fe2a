#pragma once

// One limiter request (algorithm, parameters, cost) with the algorithm's types erased, so the
// commands, BLOCK queues and named policies treat every algorithm alike. The math stays in
// algorithms/; this only decodes the stored state, decides, and encodes the result.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/codec.h"
#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::server {

class PolicyRegistry;

struct LimiterOutcome {
  algorithms::Verdict verdict;
  bool write_state = false;  // something was counted: store `state` until `expire_at_ms`
  std::string state;         // encoded, tag first
  int64_t expire_at_ms = 0;
  // When nothing was counted: the stored state without what no longer counts, worth storing
  // (a sliding log's entries that left the window, when there were many). Empty otherwise.
  std::string pruned_state;
  bool staged = false;  // DecideAndStage staged a write of the key (keyspace events)
};

// How a limiter request ended, for the decision counters (INFO limiters, RL.POLICY GET).
enum class LimiterEvent { kAllowed, kRefused, kBlocked, kTimedOut };

// An owned encoded state (nullopt: a fresh key) as LimiterCall::Decide takes it.
inline std::optional<std::string_view> StateView(const std::optional<std::string>& state) {
  return state ? std::optional<std::string_view>(*state) : std::nullopt;
}

class LimiterCall {
 public:
  virtual ~LimiterCall() = default;
  virtual int64_t cost() const = 0;
  // The named policies this request takes from (RL.TAKE); empty for the RL.* commands.
  virtual std::vector<std::string_view> PolicyNames() const { return {}; }
  // The algorithm of a call that names no policy (for the per-algorithm counters).
  virtual std::optional<algorithms::AlgorithmTag> algorithm() const { return std::nullopt; }
  // Decides against `stored` (the key's encoded state; nullopt for a fresh key). A state of
  // another algorithm is WRONGTYPE.
  virtual StatusOr<LimiterOutcome> Decide(std::optional<std::string_view> stored,
                                          int64_t now_us) const = 0;
  // The same request with another cost (COST 0 peeks for RL.STATUS).
  virtual std::unique_ptr<LimiterCall> WithCost(int64_t cost) const = 0;
  // The same request under the named policies as `registry` has them now, for a request that
  // waited (BLOCK); nullptr when nothing changed since it was made, and always for a call that
  // names no policy. An error when one of its policies is gone.
  virtual StatusOr<std::unique_ptr<LimiterCall>> Refreshed(const PolicyRegistry& registry) const {
    return std::unique_ptr<LimiterCall>();
  }
};

// Builds a call from an algorithm's positional arguments (those after the key, e.g.
// `capacity tokens period_ms`), validated with the algorithm's own error texts.
// GCRA here is RL.GCRA (period in ms). SMOOTH is not a LimiterCall (its reply differs).
StatusOr<std::unique_ptr<LimiterCall>> MakeLimiterCall(algorithms::AlgorithmTag tag,
                                                       std::span<const std::string_view> params,
                                                       int64_t cost);

// How many positional arguments each algorithm takes (3 for TOKENBUCKET...).
size_t LimiterParamCount(algorithms::AlgorithmTag tag);

// The longest a state under these parameters takes to become fresh again: the expiry of a
// fresh key that has just taken all it can, since no state (carried over or not) is fuller.
StatusOr<int64_t> LimiterFreshWithinMs(algorithms::AlgorithmTag tag,
                                       std::span<const std::string_view> params);

// A key's state carried over to changed parameters of the same algorithm (a policy change,
// contract section 5): `keep == false` means the result equals a fresh key's.
struct RescaledState {
  bool keep = false;
  std::string state;
  int64_t expire_at_ms = 0;
};
StatusOr<RescaledState> RescaleLimiterState(algorithms::AlgorithmTag tag,
                                            std::span<const std::string_view> old_params,
                                            std::span<const std::string_view> new_params,
                                            std::string_view state, int64_t now_us);

}  // namespace sluice::server
