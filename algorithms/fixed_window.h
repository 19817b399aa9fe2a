#pragma once

// RL.FIXEDWINDOW key limit window_ms: a counter per window, where a window starts with the
// key's first counted request, as the classic INCRBY + PEXPIRE script does (redis.io, INCR,
// "Pattern: Rate limiter"). Refused requests are not counted.
//
//   W = window_ms * 1000 us; the window is [start, start + W), start = first counted request
//   live   = state && now < start + W          (otherwise the key is fresh)
//   used   = live ? count : 0
//   allow  = used + COST <= limit               (COST > limit: never; retry_after = -1)
//   retry  = start + W - now                    (the window ends; then COST <= limit fits)
//   reset  = start + W - now; the key expires at start + W
//
// Policy change (contract section 5): the units counted in the current window are kept, the
// window keeps its start, and the new limit and window length apply to them.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

struct FixedWindowParams {
  int64_t limit = 0;      // >= 1
  int64_t window_ms = 0;  // >= 1
};

// "limit must be a positive integer", "window_ms must be a positive integer", overflow.
Status Validate(const FixedWindowParams& params);
// `limit window_ms` (the arguments after the key).
StatusOr<FixedWindowParams> ParseFixedWindowParams(std::span<const std::string_view> args);

struct FixedWindowState {
  int64_t window_start_us = 0;
  int64_t count = 0;

  std::string Encode() const;
  static StatusOr<FixedWindowState> Decode(std::string_view bytes);
  bool operator==(const FixedWindowState&) const = default;
};

using FixedWindowDecision = Decision<FixedWindowState>;

StatusOr<FixedWindowDecision> Decide(const FixedWindowState* state, const FixedWindowParams& params,
                                     int64_t now_us, int64_t cost);

StatusOr<Rescaled<FixedWindowState>> Rescale(const FixedWindowState& state,
                                             const FixedWindowParams& old_params,
                                             const FixedWindowParams& new_params, int64_t now_us);

}  // namespace sluice::algorithms
