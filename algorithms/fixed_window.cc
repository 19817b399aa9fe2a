#include "algorithms/fixed_window.h"

#include <algorithm>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

Status Validate(const FixedWindowParams& params) {
  if (params.limit < 1) return PositiveIntegerError("limit");
  if (params.window_ms < 1) return PositiveIntegerError("window_ms");
  if (params.window_ms > kInt64Max / 1000) return OverflowError();
  return Status::Ok();
}

StatusOr<FixedWindowParams> ParseFixedWindowParams(std::span<const std::string_view> args) {
  if (args.size() != 2) return SyntaxError();
  FixedWindowParams params;
  StatusOr<int64_t> limit = ParsePositiveArg(args[0], "limit");
  if (!limit.ok()) return limit.status();
  StatusOr<int64_t> window = ParsePositiveArg(args[1], "window_ms");
  if (!window.ok()) return window.status();
  params.limit = *limit;
  params.window_ms = *window;
  SLUICE_RETURN_IF_ERROR(Validate(params));
  return params;
}

std::string FixedWindowState::Encode() const {
  StateWriter w(AlgorithmTag::kFixedWindow);
  w.Signed(window_start_us);
  w.Signed(count);
  return std::move(w).Finish();
}

StatusOr<FixedWindowState> FixedWindowState::Decode(std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kFixedWindow));
  FixedWindowState s;
  if (!r.Signed(&s.window_start_us) || !r.Signed(&s.count) || !r.AtEnd() || s.count < 0) {
    return CorruptStateError();
  }
  return s;
}

StatusOr<FixedWindowDecision> Decide(const FixedWindowState* state, const FixedWindowParams& params,
                                     int64_t now_us, int64_t cost) {
  SLUICE_RETURN_IF_ERROR(Validate(params));
  if (cost < 0) return CostError();
  if (state != nullptr && state->count < 0) return CorruptStateError();
  Checked ck;
  const int64_t window_us = params.window_ms * 1000;
  bool live = false;
  int64_t start = now_us;
  int64_t used = 0;
  if (state != nullptr) {
    int64_t end = ck.Add(state->window_start_us, window_us);
    if (now_us < end) {
      live = true;
      start = state->window_start_us;
      used = state->count;
    }
  }
  const int64_t end = ck.Add(start, window_us);
  if (ck.failed()) return OverflowError();
  // Compared without the sum, which a limit near 2^63 can overflow where the answer cannot.
  const bool fits = cost <= params.limit - used;

  FixedWindowDecision d;
  d.limit = params.limit;
  d.expire_at_us = live ? end : now_us;
  d.reset_after_ms = live ? MsUntil(end, now_us) : 0;
  if (cost > params.limit) {  // can never be allowed
    d.remaining = std::max<int64_t>(0, params.limit - used);
    return d;
  }
  if (fits) {
    const int64_t after = used + cost;
    d.allowed = true;
    d.remaining = params.limit - after;
    if (cost > 0) {
      d.write_state = true;
      d.state = {start, after};
      d.expire_at_us = end;
      d.reset_after_ms = MsUntil(end, now_us);
    }
    return d;
  }
  d.remaining = std::max<int64_t>(0, params.limit - used);
  d.retry_after_ms = MsUntil(end, now_us);
  return d;
}

StatusOr<Rescaled<FixedWindowState>> Rescale(const FixedWindowState& state,
                                             const FixedWindowParams& old_params,
                                             const FixedWindowParams& new_params, int64_t now_us) {
  SLUICE_RETURN_IF_ERROR(Validate(old_params));
  SLUICE_RETURN_IF_ERROR(Validate(new_params));
  if (state.count < 0) return CorruptStateError();
  Checked ck;
  const int64_t old_end = ck.Add(state.window_start_us, old_params.window_ms * 1000);
  const int64_t new_end = ck.Add(state.window_start_us, new_params.window_ms * 1000);
  if (ck.failed()) return OverflowError();
  Rescaled<FixedWindowState> r;
  if (now_us >= old_end || now_us >= new_end || state.count == 0) return r;  // fresh
  r.keep = true;
  r.state = state;
  r.expire_at_us = new_end;
  return r;
}

}  // namespace sluice::algorithms
