#include "algorithms/sliding_window.h"

#include <algorithm>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

namespace {

// The counts as seen from `now`: the state rolled forward onto now's window.
struct Counts {
  int64_t start = 0;  // start of now's window
  int64_t curr = 0;
  int64_t prev = 0;
};

Counts Roll(const SlidingWindowState* state, int64_t window_us, int64_t now_us, Checked& ck) {
  Counts c;
  c.start = ck.Mul(FloorDiv(now_us, window_us), window_us);
  if (state == nullptr) return c;
  const int64_t s = state->window_start_us;
  if (s >= c.start) {  // this window
    c.curr = state->curr;
    c.prev = state->prev;
  } else if (s >= ck.Sub(c.start, window_us)) {  // the previous window
    c.prev = state->curr;
  }
  return c;
}

// When counts (curr, prev) in the window starting at `start` become a fresh key's.
Int128 FreshAt(const Counts& c, int64_t window_us, int64_t now_us) {
  if (c.curr > 0) return static_cast<Int128>(c.start) + 2 * static_cast<Int128>(window_us);
  if (c.prev > 0) return static_cast<Int128>(c.start) + window_us;
  return now_us;
}

}  // namespace

Status Validate(const SlidingWindowParams& params) {
  if (params.limit < 1) return PositiveIntegerError("limit");
  if (params.window_ms < 1) return PositiveIntegerError("window_ms");
  if (params.window_ms > kInt64Max / 1000) return OverflowError();
  return Status::Ok();
}

StatusOr<SlidingWindowParams> ParseSlidingWindowParams(std::span<const std::string_view> args) {
  if (args.size() != 2) return SyntaxError();
  StatusOr<int64_t> limit = ParsePositiveArg(args[0], "limit");
  if (!limit.ok()) return limit.status();
  StatusOr<int64_t> window = ParsePositiveArg(args[1], "window_ms");
  if (!window.ok()) return window.status();
  SlidingWindowParams params{*limit, *window};
  SLUICE_RETURN_IF_ERROR(Validate(params));
  return params;
}

std::string SlidingWindowState::Encode() const {
  StateWriter w(AlgorithmTag::kSlidingWindow);
  w.Signed(window_start_us);
  w.Signed(curr);
  w.Signed(prev);
  return std::move(w).Finish();
}

StatusOr<SlidingWindowState> SlidingWindowState::Decode(std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kSlidingWindow));
  SlidingWindowState s;
  if (!r.Signed(&s.window_start_us) || !r.Signed(&s.curr) || !r.Signed(&s.prev) || !r.AtEnd() ||
      s.curr < 0 || s.prev < 0) {
    return CorruptStateError();
  }
  return s;
}

StatusOr<SlidingWindowDecision> Decide(const SlidingWindowState* state,
                                       const SlidingWindowParams& params, int64_t now_us,
                                       int64_t cost) {
  SLUICE_RETURN_IF_ERROR(Validate(params));
  if (cost < 0) return CostError();
  if (state != nullptr && (state->curr < 0 || state->prev < 0)) return CorruptStateError();
  Checked ck;
  const int64_t window_us = params.window_ms * 1000;
  // A clock moved back (the test clock, a system clock stepped back) decides as at the start
  // of the state's window, as the buckets decide no earlier than their last update: what that
  // window counted still counts, and every time below is still measured from now.
  const int64_t at_us = state != nullptr ? std::max(now_us, state->window_start_us) : now_us;
  const Counts c = Roll(state, window_us, at_us, ck);
  if (ck.failed()) return OverflowError();

  // Every product is a count (< 2^64) times at most W (< 2^63): unsigned 128-bit sums of
  // two of them cannot overflow.
  const UInt128 w = static_cast<uint64_t>(window_us);
  const UInt128 elapsed = static_cast<uint64_t>(at_us - c.start);  // in [0, W)
  const UInt128 limit_w = static_cast<uint64_t>(params.limit) * w;
  const UInt128 prev_w = static_cast<uint64_t>(c.prev) * (w - elapsed);
  auto fits = [&](UInt128 curr) { return prev_w + curr * w <= limit_w; };
  auto remaining = [&](UInt128 curr) -> int64_t {
    const UInt128 used = prev_w + curr * w;
    return used < limit_w ? static_cast<int64_t>((limit_w - used) / w) : 0;  // <= limit
  };

  SlidingWindowDecision d;
  d.limit = params.limit;
  d.remaining = remaining(static_cast<uint64_t>(c.curr));
  const Int128 fresh_at = FreshAt(c, window_us, now_us);
  d.reset_after_ms = MsUntil(fresh_at, now_us);
  d.expire_at_us = ck.Narrow(fresh_at);
  if (cost > params.limit) {
    if (ck.failed()) return OverflowError();
    return d;  // can never be allowed
  }

  const UInt128 after = static_cast<UInt128>(c.curr) + static_cast<uint64_t>(cost);  // < 2^64
  if (fits(after)) {
    d.allowed = true;
    d.remaining = remaining(after);
    if (cost > 0) {
      Counts next = c;
      next.curr = ck.Narrow(static_cast<Int128>(after));
      d.write_state = true;
      d.state = {c.start, next.curr, c.prev};
      const Int128 next_fresh_at = FreshAt(next, window_us, now_us);
      d.expire_at_us = ck.Narrow(next_fresh_at);
      d.reset_after_ms = MsUntil(next_fresh_at, now_us);
    }
    if (ck.failed()) return OverflowError();
    return d;
  }

  // Refused with COST <= limit: the earliest time the rule holds without new requests.
  const Int128 sw = window_us;
  const Int128 headroom = static_cast<Int128>(params.limit) - c.curr - cost;  // > -2^64
  Int128 retry_at = 0;
  if (headroom >= 0 && c.prev > 0 && headroom * sw / c.prev >= 1) {
    retry_at = static_cast<Int128>(c.start) + sw - headroom * sw / c.prev;  // in this window
  } else {
    Int128 e = 0;  // in the next window, where curr becomes prev
    if (c.curr > 0) {
      e = std::max<Int128>(0, sw - (static_cast<Int128>(params.limit) - cost) * sw / c.curr);
    }
    retry_at = static_cast<Int128>(c.start) + sw + e;
  }
  d.retry_after_ms = MsUntil(retry_at, now_us);
  if (ck.failed()) return OverflowError();
  return d;
}

StatusOr<Rescaled<SlidingWindowState>> Rescale(const SlidingWindowState& state,
                                               const SlidingWindowParams& old_params,
                                               const SlidingWindowParams& new_params,
                                               int64_t now_us) {
  SLUICE_RETURN_IF_ERROR(Validate(old_params));
  SLUICE_RETURN_IF_ERROR(Validate(new_params));
  if (state.curr < 0 || state.prev < 0) return CorruptStateError();
  Checked ck;
  const int64_t at_us = std::max(now_us, state.window_start_us);  // as Decide: a clock moved back
  Counts c = Roll(&state, old_params.window_ms * 1000, at_us, ck);
  const int64_t new_window_us = new_params.window_ms * 1000;
  c.start = ck.Mul(FloorDiv(at_us, new_window_us), new_window_us);
  if (ck.failed()) return OverflowError();
  Rescaled<SlidingWindowState> r;
  if (c.curr == 0 && c.prev == 0) return r;  // fresh
  r.keep = true;
  r.state = {c.start, c.curr, c.prev};
  r.expire_at_us = ck.Narrow(FreshAt(c, new_window_us, now_us));
  if (ck.failed()) return OverflowError();
  return r;
}

}  // namespace sluice::algorithms
