#pragma once

// RL.SLIDINGWINDOW key limit window_ms: the sliding window counter (Cloudflare, "How we built
// rate limiting capable of scaling to millions of domains", 2017), computed exactly in
// integers with microsecond resolution.
//
//   W = window_ms * 1000 us; windows are [k*W, (k+1)*W), aligned to the epoch
//   start = floor(now / W) * W, e = now - start (0 <= e < W)
//   curr = units counted in this window, prev = in the one before (0 if that was not the last)
//   allow iff prev * (W - e) + (curr + COST) * W <= limit * W      (128-bit products)
//   remaining = floor((limit * W - prev * (W - e) - curr * W) / W), at least 0
//   retry (refused, COST <= limit), the least t >= now that satisfies the rule:
//     in this window, if R = (limit - curr - COST) * W >= 0 and k = floor(R / prev) >= 1:
//       t = start + W - k                       (prev * (W - e) <= R  <=>  e >= W - k)
//     else in the next window, where prev' = curr and curr' = 0:
//       t = start + W + (curr == 0 ? 0 : max(0, W - floor((limit - COST) * W / curr)))
//     (the rule, once true, stays true: it is monotone in t without new requests)
//   reset: the state is fresh at start + 2W if curr > 0, at start + W if only prev > 0
//
// Policy change: the counts of the current and previous windows are kept and re-stamped on
// the new window grid; the new limit applies to them.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

struct SlidingWindowParams {
  int64_t limit = 0;      // >= 1
  int64_t window_ms = 0;  // >= 1
};

Status Validate(const SlidingWindowParams& params);
// `limit window_ms` (the arguments after the key).
StatusOr<SlidingWindowParams> ParseSlidingWindowParams(std::span<const std::string_view> args);

struct SlidingWindowState {
  int64_t window_start_us = 0;  // start of the window `curr` belongs to
  int64_t curr = 0;
  int64_t prev = 0;  // the window before window_start_us

  std::string Encode() const;
  static StatusOr<SlidingWindowState> Decode(std::string_view bytes);
  bool operator==(const SlidingWindowState&) const = default;
};

using SlidingWindowDecision = Decision<SlidingWindowState>;

StatusOr<SlidingWindowDecision> Decide(const SlidingWindowState* state,
                                       const SlidingWindowParams& params, int64_t now_us,
                                       int64_t cost);

StatusOr<Rescaled<SlidingWindowState>> Rescale(const SlidingWindowState& state,
                                               const SlidingWindowParams& old_params,
                                               const SlidingWindowParams& new_params,
                                               int64_t now_us);

}  // namespace sluice::algorithms
