#include "algorithms/gcra.h"

#include <algorithm>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

namespace {

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerS = 1'000'000'000;

// T = floor(period_ns / count), limit = max_burst + 1, tau = T * limit, all checked.
StatusOr<GcraRate> DeriveRate(int64_t max_burst, int64_t count, int64_t period,
                              int64_t ns_per_period_unit, std::string_view zero_message) {
  Checked ck;
  const int64_t period_ns = ck.Mul(period, ns_per_period_unit);
  const int64_t limit = ck.Add(max_burst, 1);
  if (ck.failed()) return OverflowError();
  GcraRate rate;
  rate.emission_ns = period_ns / count;
  if (rate.emission_ns == 0) return Err(std::string(zero_message));
  rate.limit = limit;
  rate.tolerance_ns = ck.Mul(rate.emission_ns, limit);
  if (ck.failed()) return OverflowError();
  return rate;
}

// redis-cell: (next.whole_microseconds() as f64 / T.whole_microseconds() as f64) as i64.
int64_t CellRemaining(int64_t next_ns, int64_t emission_ns) {
  if (next_ns <= -emission_ns) return 0;
  const int64_t next_us = next_ns / kNsPerUs;
  const int64_t emission_us = emission_ns / kNsPerUs;
  if (emission_us == 0) return std::max<int64_t>(0, next_ns / emission_ns);  // see header
  // |quotient| <= 2^63 / 1000: the conversion back to int64 is always in range.
  return static_cast<int64_t>(static_cast<double>(next_us) / static_cast<double>(emission_us));
}

int64_t CeilNsToMs(int64_t ns) { return CeilDiv(ns, kNsPerMs); }

}  // namespace

int64_t CellSeconds(int64_t duration_ns) {
  int64_t seconds = duration_ns / kNsPerS;
  if ((duration_ns % kNsPerS) / kNsPerMs > 0) ++seconds;
  return seconds;
}

StatusOr<GcraRate> MakeGcraRate(const GcraParams& params) {
  if (params.max_burst < 0) return NonNegativeIntegerError("max_burst");
  if (params.count < 1) return PositiveIntegerError("count");
  if (params.period_ms < 1) return PositiveIntegerError("period_ms");
  return DeriveRate(params.max_burst, params.count, params.period_ms, kNsPerMs,
                    kMsgGcraZeroInterval);
}

StatusOr<GcraRate> MakeGcraRate(const ThrottleParams& params) {
  if (params.max_burst < 0) return NonNegativeIntegerError("max_burst");
  if (params.count < 0) return PositiveIntegerError("count");
  if (params.period_s < 0) return PositiveIntegerError("period");
  if (params.count == 0 || params.period_s == 0) return Err(std::string(kMsgCellZeroRate));
  return DeriveRate(params.max_burst, params.count, params.period_s, kNsPerS, kMsgCellZeroRate);
}

Status Validate(const GcraParams& params) { return MakeGcraRate(params).status(); }
Status Validate(const ThrottleParams& params) { return MakeGcraRate(params).status(); }

StatusOr<GcraParams> ParseGcraParams(std::span<const std::string_view> args) {
  if (args.size() != 3) return SyntaxError();
  StatusOr<int64_t> max_burst = ParseNonNegativeArg(args[0], "max_burst");
  if (!max_burst.ok()) return max_burst.status();
  StatusOr<int64_t> count = ParsePositiveArg(args[1], "count");
  if (!count.ok()) return count.status();
  StatusOr<int64_t> period = ParsePositiveArg(args[2], "period_ms");
  if (!period.ok()) return period.status();
  GcraParams params{*max_burst, *count, *period};
  SLUICE_RETURN_IF_ERROR(Validate(params));
  return params;
}

StatusOr<ThrottleRequest> ParseThrottleArgs(std::span<const std::string_view> args) {
  if (args.size() != 3 && args.size() != 4) {
    return Err("wrong number of arguments for 'cl.throttle' command");
  }
  int64_t values[4] = {0, 0, 0, 1};
  for (size_t i = 0; i < args.size(); ++i) {
    if (!ParseInt64Lenient(args[i], &values[i])) {
      return Err(std::string(kMsgCellNotInteger) + std::string(args[i]));
    }
  }
  ThrottleRequest request;
  request.params = {values[0], values[1], values[2]};
  request.quantity = values[3];
  SLUICE_RETURN_IF_ERROR(Validate(request.params));
  if (request.quantity < 0) return NonNegativeIntegerError("quantity");
  return request;
}

std::string GcraState::Encode() const {
  StateWriter w(AlgorithmTag::kGcra);
  w.Signed(tat_ns);
  return std::move(w).Finish();
}

StatusOr<GcraState> GcraState::Decode(std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kGcra));
  GcraState s;
  if (!r.Signed(&s.tat_ns) || !r.AtEnd()) return CorruptStateError();
  return s;
}

StatusOr<GcraDecision> DecideGcra(const GcraState* state, const GcraRate& rate, int64_t now_us,
                                  int64_t cost) {
  if (cost < 0) return CostError();
  Checked ck;
  const int64_t now_ns = ck.Mul(now_us, kNsPerUs);
  const int64_t tat = state != nullptr ? std::max(state->tat_ns, now_ns) : now_ns;
  const int64_t increment = ck.Mul(rate.emission_ns, cost);
  const int64_t new_tat = ck.Add(tat, increment);
  const int64_t allow_at = ck.Sub(new_tat, rate.tolerance_ns);
  const int64_t diff = ck.Sub(now_ns, allow_at);
  if (ck.failed()) return OverflowError();

  GcraDecision d;
  const bool limited = diff < 0;
  // tat - now (limited) or new_tat - now (allowed): >= 0, and <= tau when allowed.
  const int64_t ttl = ck.Sub(limited ? tat : new_tat, now_ns);
  if (limited) d.retry_after_ns = increment <= rate.tolerance_ns ? ck.Sub(0, diff) : -1;
  const int64_t next = ck.Sub(rate.tolerance_ns, ttl);
  const int64_t expire_ns = limited || cost == 0 ? tat : new_tat;
  if (ck.failed()) return OverflowError();

  d.allowed = !limited;
  d.limit = rate.limit;
  d.remaining = next > -rate.emission_ns ? std::max<int64_t>(0, next / rate.emission_ns) : 0;
  d.retry_after_ms = d.retry_after_ns >= 0 ? CeilNsToMs(d.retry_after_ns) : -1;
  d.reset_after_ns = ttl;
  d.reset_after_ms = CeilNsToMs(ttl);
  d.expire_at_us = CeilDiv(expire_ns, kNsPerUs);
  if (!limited && cost > 0) {
    d.write_state = true;
    d.state.tat_ns = new_tat;
  }

  d.throttle.limited = limited ? 1 : 0;
  d.throttle.limit = rate.limit;
  d.throttle.remaining = CellRemaining(next, rate.emission_ns);
  d.throttle.retry_after_s = d.retry_after_ns >= 0 ? CellSeconds(d.retry_after_ns) : -1;
  d.throttle.reset_after_s = CellSeconds(ttl);
  return d;
}

StatusOr<GcraDecision> Decide(const GcraState* state, const GcraParams& params, int64_t now_us,
                              int64_t cost) {
  StatusOr<GcraRate> rate = MakeGcraRate(params);
  if (!rate.ok()) return rate.status();
  return DecideGcra(state, *rate, now_us, cost);
}

StatusOr<GcraDecision> Decide(const GcraState* state, const ThrottleParams& params, int64_t now_us,
                              int64_t quantity) {
  StatusOr<GcraRate> rate = MakeGcraRate(params);
  if (!rate.ok()) return rate.status();
  return DecideGcra(state, *rate, now_us, quantity);
}

StatusOr<Rescaled<GcraState>> Rescale(const GcraState& state, const GcraParams& old_params,
                                      const GcraParams& new_params, int64_t now_us) {
  StatusOr<GcraRate> old_rate = MakeGcraRate(old_params);
  if (!old_rate.ok()) return old_rate.status();
  StatusOr<GcraRate> new_rate = MakeGcraRate(new_params);
  if (!new_rate.ok()) return new_rate.status();
  Checked ck;
  const int64_t now_ns = ck.Mul(now_us, kNsPerUs);
  if (ck.failed()) return OverflowError();
  Rescaled<GcraState> r;
  if (state.tat_ns <= now_ns) return r;  // fresh
  // The debt tat - now is the consumed part of tau: keep its fraction.
  const Int128 debt = static_cast<Int128>(state.tat_ns) - now_ns;
  const Int128 scaled = CeilDiv128(debt * new_rate->tolerance_ns, old_rate->tolerance_ns);
  r.keep = true;
  r.state.tat_ns = ck.Narrow(static_cast<Int128>(now_ns) + scaled);
  r.expire_at_us = CeilDiv(r.state.tat_ns, kNsPerUs);
  if (ck.failed()) return OverflowError();
  return r;
}

}  // namespace sluice::algorithms
