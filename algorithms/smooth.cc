#include "algorithms/smooth.h"

#include <algorithm>
#include <cmath>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"
#include "common/ascii.h"

namespace sluice::algorithms {

namespace {

// Java's (long) cast of a double, where it stays in range; anything else is an overflow.
bool ToLong(double v, int64_t* out) {
  // 2^63 is exactly representable; every double below it converts without UB.
  if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return false;
  *out = static_cast<int64_t>(v);  // truncates toward zero, as Java
  return true;
}

// The derived constants of SmoothBursty / SmoothWarmingUp (Guava's doSetRate).
struct Model {
  bool warming = false;
  double stable_us = 0;
  double max_permits = 0;
  double cool_down_us = 0;
  double threshold = 0;  // SmoothWarmingUp
  double slope = 0;      // SmoothWarmingUp

  double PermitsToTime(double permits) const { return stable_us + permits * slope; }

  // Guava's storedPermitsToWaitTime; false on overflow.
  bool StoredPermitsToWaitTime(double stored, double take, int64_t* micros) const {
    *micros = 0;
    if (!warming) return true;
    double above = stored - threshold;
    if (above > 0.0) {
      double take_above = std::min(above, take);
      double length = PermitsToTime(above) + PermitsToTime(above - take_above);
      if (!ToLong(take_above * length / 2.0, micros)) return false;
      take -= take_above;
    }
    int64_t below = 0;
    if (!ToLong(stable_us * take, &below)) return false;
    return !__builtin_add_overflow(*micros, below, micros);
  }
};

StatusOr<Model> MakeModel(const SmoothParams& params) {
  if (!(params.permits_per_second > 0) || !std::isfinite(params.permits_per_second)) {
    return Err(std::string(kMsgSmoothRate));
  }
  Model m;
  m.stable_us = 1000000.0 / params.permits_per_second;
  if (!std::isfinite(m.stable_us)) return OverflowError();
  if (params.warmup_ms == 0) {
    if (!(params.max_burst_seconds >= 0) || !std::isfinite(params.max_burst_seconds)) {
      return Err(std::string(kMsgSmoothMaxBurst));
    }
    m.max_permits = params.max_burst_seconds * params.permits_per_second;
    m.cool_down_us = m.stable_us;
  } else {
    if (params.warmup_ms < 0) return PositiveIntegerError("warmup");
    if (!(params.cold_factor >= 1.0) || !std::isfinite(params.cold_factor)) {
      return Err(std::string(kMsgSmoothColdFactor));
    }
    int64_t warmup_us = 0;
    if (__builtin_mul_overflow(params.warmup_ms, int64_t{1000}, &warmup_us)) {
      return OverflowError();
    }
    const auto warmup = static_cast<double>(warmup_us);
    const double cold_us = m.stable_us * params.cold_factor;
    m.warming = true;
    m.threshold = 0.5 * warmup / m.stable_us;
    m.max_permits = m.threshold + 2.0 * warmup / (m.stable_us + cold_us);
    m.slope = (cold_us - m.stable_us) / (m.max_permits - m.threshold);
    m.cool_down_us = warmup / m.max_permits;
  }
  if (!std::isfinite(m.max_permits) || !std::isfinite(m.slope) || !std::isfinite(m.cool_down_us) ||
      !(m.cool_down_us > 0)) {
    return OverflowError();
  }
  return m;
}

// Guava's resync: stored permits grow while the limiter is unused.
bool Resync(const Model& m, int64_t now_us, SmoothState* s) {
  if (now_us > s->next_free_us) {
    int64_t idle = 0;
    if (__builtin_sub_overflow(now_us, s->next_free_us, &idle)) return false;
    // Java: (long) / double.
    s->stored_permits =
        std::min(m.max_permits, s->stored_permits + static_cast<double>(idle) / m.cool_down_us);
    s->next_free_us = now_us;
  }
  return true;
}

// Whether resync at `at_us` brings `s` back to maxPermits.
bool FullAt(const Model& m, const SmoothState& s, int64_t at_us, bool* full) {
  SmoothState probe = s;
  if (!Resync(m, at_us, &probe)) return false;
  *full = probe.stored_permits >= m.max_permits;
  return true;
}

// The first moment at which resync makes `s` a fresh key's state (stored == maxPermits):
// from then on Decide treats it exactly as a fresh key (resync is monotone in time).
bool FreshAt(const Model& m, const SmoothState& s, int64_t now_us, int64_t* at_us) {
  if (s.stored_permits >= m.max_permits) {
    *at_us = std::max(s.next_free_us, now_us);
    return true;
  }
  int64_t need = 0;
  if (!ToLong(std::ceil((m.max_permits - s.stored_permits) * m.cool_down_us), &need)) {
    return false;
  }
  int64_t at = 0;
  if (__builtin_add_overflow(s.next_free_us, need, &at)) return false;
  // The double estimate may be off a little either way: search for the exact first moment
  // (resync fills up monotonically in time; at next_free nothing has been added yet).
  int64_t lo = s.next_free_us;
  int64_t hi = at;
  bool full = false;
  for (int64_t step = 1;; step *= 2) {
    if (!FullAt(m, s, hi, &full)) return false;
    if (full) break;
    lo = hi;
    if (step > kInt64Max / 2 || __builtin_add_overflow(hi, step, &hi)) return false;
  }
  while (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > 1) {  // hi > lo
    int64_t mid =
        lo + static_cast<int64_t>((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
    if (!FullAt(m, s, mid, &full)) return false;
    (full ? hi : lo) = mid;
  }
  *at_us = std::max(hi, now_us);
  return true;
}

}  // namespace

Status Validate(const SmoothParams& params) { return MakeModel(params).status(); }

StatusOr<SmoothRequest> ParseSmoothArgs(std::span<const std::string_view> args) {
  if (args.empty()) return SyntaxError();
  SmoothRequest request;
  if (!ParseFiniteDouble(args[0], &request.params.permits_per_second) ||
      !(request.params.permits_per_second > 0)) {
    return Err(std::string(kMsgSmoothRate));
  }
  bool seen_maxburst = false;
  bool seen_warmup = false;
  bool seen_coldfactor = false;
  bool seen_cost = false;
  for (size_t i = 1; i < args.size(); i += 2) {
    std::string_view option = args[i];
    if (i + 1 >= args.size()) return SyntaxError();
    std::string_view value = args[i + 1];
    if (EqualsIgnoreCase(option, "MAXBURST") && !seen_maxburst) {
      seen_maxburst = true;
      if (!ParseFiniteDouble(value, &request.params.max_burst_seconds) ||
          !(request.params.max_burst_seconds >= 0)) {
        return Err(std::string(kMsgSmoothMaxBurst));
      }
    } else if (EqualsIgnoreCase(option, "WARMUP") && !seen_warmup) {
      seen_warmup = true;
      StatusOr<int64_t> warmup = ParsePositiveArg(value, "warmup");
      if (!warmup.ok()) return warmup.status();
      request.params.warmup_ms = *warmup;
    } else if (EqualsIgnoreCase(option, "COLDFACTOR") && !seen_coldfactor) {
      seen_coldfactor = true;
      if (!ParseFiniteDouble(value, &request.params.cold_factor) ||
          !(request.params.cold_factor >= 1.0)) {
        return Err(std::string(kMsgSmoothColdFactor));
      }
    } else if (EqualsIgnoreCase(option, "COST") && !seen_cost) {
      seen_cost = true;
      StatusOr<int64_t> cost = ParseNonNegativeArg(value, "cost");
      if (!cost.ok()) return cost.status();
      request.cost = *cost;
    } else if (EqualsIgnoreCase(option, "TIMEOUT") && !request.timeout_ms) {
      StatusOr<int64_t> timeout = ParseNonNegativeArg(value, "timeout");
      if (!timeout.ok()) return timeout.status();
      request.timeout_ms = *timeout;
    } else {
      return SyntaxError();
    }
  }
  // COLDFACTOR belongs to WARMUP; MAXBURST to the bursty limiter.
  if ((seen_coldfactor && !seen_warmup) || (seen_maxburst && seen_warmup)) return SyntaxError();
  SLUICE_RETURN_IF_ERROR(Validate(request.params));
  return request;
}

std::string SmoothState::Encode() const {
  StateWriter w(AlgorithmTag::kSmooth);
  w.Double(stored_permits);
  w.Signed(next_free_us);
  return std::move(w).Finish();
}

StatusOr<SmoothState> SmoothState::Decode(std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kSmooth));
  SmoothState s;
  if (!r.Double(&s.stored_permits) || !r.Signed(&s.next_free_us) || !r.AtEnd() ||
      !std::isfinite(s.stored_permits) || s.stored_permits < 0) {
    return CorruptStateError();
  }
  return s;
}

StatusOr<SmoothState> FreshSmoothState(const SmoothParams& params, int64_t now_us) {
  StatusOr<Model> m = MakeModel(params);
  if (!m.ok()) return m.status();
  return SmoothState{m->max_permits, now_us};
}

StatusOr<SmoothState> GuavaCreatedState(const SmoothParams& params, int64_t now_us) {
  StatusOr<Model> m = MakeModel(params);
  if (!m.ok()) return m.status();
  return SmoothState{m->warming ? m->max_permits : 0.0, now_us};
}

StatusOr<SmoothDecision> Decide(const SmoothState* state, const SmoothParams& params,
                                int64_t now_us, int64_t cost, std::optional<int64_t> timeout_ms) {
  StatusOr<Model> model = MakeModel(params);
  if (!model.ok()) return model.status();
  const Model& m = *model;
  if (cost < 0) return CostError();
  if (timeout_ms && *timeout_ms < 0) return NonNegativeIntegerError("timeout");
  if (state != nullptr && !(std::isfinite(state->stored_permits) && state->stored_permits >= 0)) {
    return CorruptStateError();
  }

  SmoothState s = state != nullptr ? *state : SmoothState{m.max_permits, now_us};
  s.stored_permits = std::min(s.stored_permits, m.max_permits);  // parameters may have changed

  SmoothDecision d;
  auto wait_until = [&](int64_t moment) {
    Int128 wait = std::max<Int128>(0, static_cast<Int128>(moment) - now_us);
    d.wait_us = wait > kInt64Max ? kInt64Max : static_cast<int64_t>(wait);
    d.wait_ms = static_cast<int64_t>(CeilDiv128(wait, 1000));
  };
  if (!FreshAt(m, s, now_us, &d.expire_at_us)) return OverflowError();

  if (timeout_ms) {  // tryAcquire: only when the limiter is next free counts
    Int128 timeout_us = static_cast<Int128>(*timeout_ms) * 1000;
    if (static_cast<Int128>(s.next_free_us) - timeout_us > now_us) {
      wait_until(s.next_free_us);
      return d;  // granted = false
    }
  }
  if (!Resync(m, now_us, &s)) return OverflowError();
  const int64_t moment_available = s.next_free_us;
  d.granted = true;
  wait_until(moment_available);
  if (cost == 0) return d;

  // reserveEarliestAvailable.
  const auto required = static_cast<double>(cost);
  const double spend = std::min(required, s.stored_permits);
  const double fresh = required - spend;
  int64_t stored_wait = 0;
  int64_t fresh_wait = 0;
  int64_t wait = 0;
  if (!m.StoredPermitsToWaitTime(s.stored_permits, spend, &stored_wait) ||
      !ToLong(fresh * m.stable_us, &fresh_wait) ||
      __builtin_add_overflow(stored_wait, fresh_wait, &wait) ||
      __builtin_add_overflow(s.next_free_us, wait, &s.next_free_us)) {
    return OverflowError();
  }
  s.stored_permits -= spend;
  d.write_state = true;
  d.state = s;
  if (!FreshAt(m, s, now_us, &d.expire_at_us)) return OverflowError();
  return d;
}

StatusOr<Rescaled<SmoothState>> Rescale(const SmoothState& state, const SmoothParams& old_params,
                                        const SmoothParams& new_params, int64_t now_us) {
  StatusOr<Model> old_model = MakeModel(old_params);
  if (!old_model.ok()) return old_model.status();
  StatusOr<Model> new_model = MakeModel(new_params);
  if (!new_model.ok()) return new_model.status();
  if (!(std::isfinite(state.stored_permits) && state.stored_permits >= 0)) {
    return CorruptStateError();
  }
  SmoothState s = state;
  s.stored_permits = std::min(s.stored_permits, old_model->max_permits);
  if (!Resync(*old_model, now_us, &s)) return OverflowError();
  // Guava's doSetRate (an old maximum of 0 is Guava's "initial state").
  const double old_max = old_model->max_permits;
  const double new_max = new_model->max_permits;
  if (old_max == 0.0) {
    s.stored_permits = new_model->warming ? new_max : 0.0;
  } else {
    s.stored_permits = s.stored_permits * new_max / old_max;
  }
  Rescaled<SmoothState> r;
  if (s.stored_permits >= new_max && s.next_free_us <= now_us) return r;  // fresh
  r.keep = true;
  r.state = s;
  if (!FreshAt(*new_model, s, now_us, &r.expire_at_us)) return OverflowError();
  return r;
}

}  // namespace sluice::algorithms
