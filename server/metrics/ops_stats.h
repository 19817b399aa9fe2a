#pragma once

// What /metrics and the status page report beyond INFO's counters: calls per command and
// their time, limiter decisions per algorithm, the time decisions take, and the most
// throttled keys.
// Touched on the loop thread only; each update is a handful of instructions.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "algorithms/codec.h"
#include "server/command_table.h"
#include "server/metrics/command_latency.h"
#include "server/metrics/latency_histogram.h"
#include "server/metrics/top_keys.h"
#include "server/policy_registry.h"

namespace sluice::server {

// A command's (or subcommand's) calls and the time they took, for INFO commandstats.
struct CallStats {
  uint64_t calls = 0;
  uint64_t nanos = 0;
  uint64_t rejected = 0;  // refused before running (arity, NOAUTH...): not in `calls`
  uint64_t failed = 0;    // ran and answered (or caused) an error

  void Add(uint64_t call_nanos) {
    ++calls;
    nanos += call_nanos;
  }
};

struct OpsStats {
  static constexpr size_t kTopKeysCapacity = 32;

  // By CommandSpec::index: an array slot per command on the hot path.
  std::vector<CallStats> command_calls;
  // A container's calls by subcommand (CommandSpec::index, then the subcommand's position),
  // for INFO's cmdstat_config|get; they count in command_calls too.
  std::vector<std::vector<CallStats>> subcommand_calls;
  // Decisions of calls that name no policy (RL.*, CL.THROTTLE, RL.SMOOTH), by AlgorithmTag.
  std::array<LimiterCounters, 16> by_algorithm{};
  LatencyHistogram decision_latency;
  TopKeys throttled_keys{kTopKeysCapacity};
  // Redis's latency tracking (INFO latencystats, LATENCY HISTOGRAM): by CommandSpec::index,
  // and a container's calls by subcommand alone, as Redis keeps them (config|get, no config).
  std::vector<CommandLatency> command_latency;
  std::vector<std::vector<CommandLatency>> subcommand_latency;

  // One call that took `nanos`: its command's count, its subcommand's, and (`track_latency`)
  // the latency histogram of the subcommand, or of the command without one, as Redis's.
  void CountCall(const CommandSpec& spec, const Subcommand* sub, uint64_t nanos,
                 bool track_latency) {
    if (spec.index >= command_calls.size()) GrowFor(spec);
    command_calls[spec.index].Add(nanos);
    if (sub != nullptr) {
      CountSubcommandCall(spec, *sub, nanos, track_latency);
    } else if (track_latency) {
      command_latency[spec.index].Record(nanos);
    }
  }
  // A subcommand's rejections and failures count for it alone, as Redis's config|get.
  void CountRejected(const CommandSpec& spec, const Subcommand* sub) {
    ++(sub != nullptr ? Of(spec, *sub) : Of(spec)).rejected;
  }
  void CountFailed(const CommandSpec& spec, const Subcommand* sub) {
    ++(sub != nullptr ? Of(spec, *sub) : Of(spec)).failed;
  }
  CallStats CallsOf(const CommandSpec& spec) const {
    return spec.index < command_calls.size() ? command_calls[spec.index] : CallStats{};
  }
  // CONFIG RESETSTAT: every count and the decision times start over.
  void Reset() {
    command_calls.clear();
    subcommand_calls.clear();
    by_algorithm = {};
    decision_latency = LatencyHistogram{};
    throttled_keys.Clear();
    command_latency.clear();
    subcommand_latency.clear();
  }
  void CountSubcommandCall(const CommandSpec& spec, const Subcommand& sub, uint64_t nanos,
                           bool track_latency) {
    Of(spec, sub).Add(nanos);
    if (!track_latency) return;
    if (spec.index >= subcommand_latency.size()) subcommand_latency.resize(spec.index + 1);
    std::vector<CommandLatency>& by_sub = subcommand_latency[spec.index];
    by_sub.resize(spec.subcommands.size());
    by_sub[static_cast<size_t>(&sub - spec.subcommands.data())].Record(nanos);
  }
  CallStats CallsOf(const CommandSpec& spec, const Subcommand& sub) const {
    if (spec.index >= subcommand_calls.size()) return {};
    const std::vector<CallStats>& calls = subcommand_calls[spec.index];
    const auto at = static_cast<size_t>(&sub - spec.subcommands.data());
    return at < calls.size() ? calls[at] : CallStats{};
  }

  CallStats& Of(const CommandSpec& spec) {
    if (spec.index >= command_calls.size()) GrowFor(spec);
    return command_calls[spec.index];
  }
  // command_calls and command_latency grow together: one bounds check serves both.
  void GrowFor(const CommandSpec& spec) {
    command_calls.resize(spec.index + 1);
    command_latency.resize(spec.index + 1);
  }
  CallStats& Of(const CommandSpec& spec, const Subcommand& sub) {
    if (spec.index >= subcommand_calls.size()) subcommand_calls.resize(spec.index + 1);
    std::vector<CallStats>& calls = subcommand_calls[spec.index];
    calls.resize(spec.subcommands.size());
    return calls[static_cast<size_t>(&sub - spec.subcommands.data())];
  }

  // Nothing when no call was tracked.
  const CommandLatency* LatencyOf(const CommandSpec& spec, const Subcommand* sub) const {
    const CommandLatency* found = nullptr;
    if (sub == nullptr) {
      if (spec.index < command_latency.size()) found = &command_latency[spec.index];
    } else if (spec.index < subcommand_latency.size()) {
      const std::vector<CommandLatency>& by_sub = subcommand_latency[spec.index];
      const auto at = static_cast<size_t>(sub - spec.subcommands.data());
      if (at < by_sub.size()) found = &by_sub[at];
    }
    return found != nullptr && found->calls() > 0 ? found : nullptr;
  }

  LimiterCounters& ForAlgorithm(algorithms::AlgorithmTag tag) {
    return by_algorithm[static_cast<size_t>(tag) % by_algorithm.size()];
  }
};

}  // namespace sluice::server
