#pragma once

// Names shared by /metrics and /status.json for limiter decision series.

#include <array>
#include <string>
#include <string_view>

#include "algorithms/codec.h"
#include "common/ascii.h"
#include "server/policy_registry.h"

namespace sluice::server {

// The algorithms a decision can be counted under (CL.THROTTLE counts as gcra).
inline constexpr std::array<algorithms::AlgorithmTag, 7> kCountedAlgorithms = {
    algorithms::AlgorithmTag::kFixedWindow,   algorithms::AlgorithmTag::kSlidingLog,
    algorithms::AlgorithmTag::kSlidingWindow, algorithms::AlgorithmTag::kTokenBucket,
    algorithms::AlgorithmTag::kLeakyBucket,   algorithms::AlgorithmTag::kGcra,
    algorithms::AlgorithmTag::kSmooth};

// "tokenbucket" for kTokenBucket: label values are lower case.
inline std::string AlgorithmLabel(algorithms::AlgorithmTag tag) {
  return AsciiLowered(algorithms::AlgorithmName(tag));
}

struct ResultField {
  std::string_view name;
  uint64_t LimiterCounters::*counter;
};
inline constexpr std::array<ResultField, 4> kResultFields = {{
    {"allowed", &LimiterCounters::allowed},
    {"refused", &LimiterCounters::refused},
    {"blocked", &LimiterCounters::blocked},
    {"timed_out", &LimiterCounters::timed_out},
}};

}  // namespace sluice::server
