#pragma once

// Redis 7's command tips, which COMMAND INFO and COMMAND show for each command and subcommand:
// what a client should know of a reply (it may differ between calls with the same data, or
// only in its order) and, for a cluster, which shards a request goes to and how their replies
// are merged. sluice is one node, but shows Redis 7.0's tips so that the clients and tools
// reading them (cluster clients route by the request policy) treat both alike.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::server {

enum class CommandTip : uint8_t {
  kNondeterministicOutput,       // may differ with the same data (SPOP, TTL, INFO)
  kNondeterministicOutputOrder,  // only its order may differ (SMEMBERS, HGETALL)
  kRequestAllNodes,
  kRequestAllShards,
  kRequestMultiShard,
  kRequestSpecial,
  kResponseAggLogicalAnd,
  kResponseAggMin,
  kResponseAggSum,
  kResponseAllSucceeded,
  kResponseOneSucceeded,
  kResponseSpecial,
};

// Redis's text of a tip, as COMMAND INFO shows it.
constexpr std::string_view CommandTipName(CommandTip tip) {
  switch (tip) {
    case CommandTip::kNondeterministicOutput:
      return "nondeterministic_output";
    case CommandTip::kNondeterministicOutputOrder:
      return "nondeterministic_output_order";
    case CommandTip::kRequestAllNodes:
      return "request_policy:all_nodes";
    case CommandTip::kRequestAllShards:
      return "request_policy:all_shards";
    case CommandTip::kRequestMultiShard:
      return "request_policy:multi_shard";
    case CommandTip::kRequestSpecial:
      return "request_policy:special";
    case CommandTip::kResponseAggLogicalAnd:
      return "response_policy:agg_logical_and";
    case CommandTip::kResponseAggMin:
      return "response_policy:agg_min";
    case CommandTip::kResponseAggSum:
      return "response_policy:agg_sum";
    case CommandTip::kResponseAllSucceeded:
      return "response_policy:all_succeeded";
    case CommandTip::kResponseOneSucceeded:
      return "response_policy:one_succeeded";
    case CommandTip::kResponseSpecial:
      return "response_policy:special";
  }
  return "";
}

// A command's tips in the order COMMAND INFO lists them. That is Redis's order for each
// command, not one order for all (SLOWLOG GET's request policy comes before
// nondeterministic_output, INFO's after it), so a list rather than a bitmask.
class CommandTips {
 public:
  static constexpr size_t kMax = 3;  // Redis 7.0's most

  constexpr CommandTips() = default;
  // Implicit, for {tip, ...} in a registration.
  template <std::same_as<CommandTip>... Tips>
  constexpr CommandTips(Tips... tips) : tips_{tips...}, size_(sizeof...(Tips)) {
    static_assert(sizeof...(Tips) <= kMax);
  }

  constexpr std::span<const CommandTip> list() const { return {tips_.data(), size_}; }

 private:
  std::array<CommandTip, kMax> tips_{};
  uint8_t size_ = 0;
};

// The tips many commands share.
// The reply may differ between calls on the same data (SPOP, TTL, the limiters: the time).
inline constexpr CommandTips kNondeterministic{CommandTip::kNondeterministicOutput};
// Only the reply's order may differ (SMEMBERS, HGETALL, COMMAND LIST).
inline constexpr CommandTips kInAnyOrder{CommandTip::kNondeterministicOutputOrder};
// A change for every shard, or every node, that must succeed on all (FUNCTION LOAD, SCRIPT
// FLUSH).
inline constexpr CommandTips kOnAllShards{CommandTip::kRequestAllShards,
                                          CommandTip::kResponseAllSucceeded};
inline constexpr CommandTips kOnAllNodes{CommandTip::kRequestAllNodes,
                                         CommandTip::kResponseAllSucceeded};

}  // namespace sluice::server
