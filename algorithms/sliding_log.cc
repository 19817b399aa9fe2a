#include "algorithms/sliding_log.h"

#include <algorithm>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

namespace {

// The entries of `entries` still inside the window (now - window_us, now].
std::vector<SlidingLogEntry> Prune(const std::vector<SlidingLogEntry>& entries, int64_t cutoff) {
  auto first = std::upper_bound(entries.begin(), entries.end(), cutoff,
                                [](int64_t c, const SlidingLogEntry& e) { return c < e.at_us; });
  return {first, entries.end()};
}

// The invariant Decode guarantees: strictly ascending times, costs >= 1.
bool WellFormed(const SlidingLogState& state) {
  for (size_t i = 0; i < state.entries.size(); ++i) {
    if (state.entries[i].cost < 1) return false;
    if (i > 0 && state.entries[i].at_us <= state.entries[i - 1].at_us) return false;
  }
  return true;
}

}  // namespace

Status Validate(const SlidingLogParams& params) {
  if (params.limit < 1) return PositiveIntegerError("limit");
  if (params.limit > kSlidingLogMaxLimit) return Err(std::string(kMsgSlidingLogTooLarge));
  if (params.window_ms < 1) return PositiveIntegerError("window_ms");
  if (params.window_ms > kInt64Max / 1000) return OverflowError();
  return Status::Ok();
}

StatusOr<SlidingLogParams> ParseSlidingLogParams(std::span<const std::string_view> args) {
  if (args.size() != 2) return SyntaxError();
  StatusOr<int64_t> limit = ParsePositiveArg(args[0], "limit");
  if (!limit.ok()) return limit.status();
  StatusOr<int64_t> window = ParsePositiveArg(args[1], "window_ms");
  if (!window.ok()) return window.status();
  SlidingLogParams params{*limit, *window};
  SLUICE_RETURN_IF_ERROR(Validate(params));
  return params;
}

std::string SlidingLogState::Encode() const {
  StateWriter w(AlgorithmTag::kSlidingLog);
  w.Unsigned(entries.size());
  int64_t prev = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 0) {
      w.Signed(entries[i].at_us);
    } else {
      w.Unsigned(static_cast<uint64_t>(entries[i].at_us) - static_cast<uint64_t>(prev));
    }
    w.Unsigned(static_cast<uint64_t>(entries[i].cost));
    prev = entries[i].at_us;
  }
  return std::move(w).Finish();
}

StatusOr<SlidingLogState> SlidingLogState::Decode(std::string_view bytes) {
  StateReader r(bytes);
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kSlidingLog));
  uint64_t n = 0;
  // Each entry takes at least 2 bytes: a count beyond that is garbage, not an allocation.
  if (!r.Unsigned(&n) || n > bytes.size() / 2) return CorruptStateError();
  SlidingLogState s;
  s.entries.reserve(n);
  int64_t at = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t cost = 0;
    if (i == 0) {
      if (!r.Signed(&at)) return CorruptStateError();
    } else {
      uint64_t delta = 0;
      if (!r.Unsigned(&delta) || delta == 0 || delta > static_cast<uint64_t>(kInt64Max) ||
          __builtin_add_overflow(at, static_cast<int64_t>(delta), &at)) {
        return CorruptStateError();
      }
    }
    if (!r.Unsigned(&cost) || cost == 0 || cost > static_cast<uint64_t>(kInt64Max)) {
      return CorruptStateError();
    }
    s.entries.push_back({at, static_cast<int64_t>(cost)});
  }
  if (!r.AtEnd()) return CorruptStateError();
  return s;
}

StatusOr<SlidingLogDecision> Decide(const SlidingLogState* state, const SlidingLogParams& params,
                                    int64_t now_us, int64_t cost) {
  SLUICE_RETURN_IF_ERROR(Validate(params));
  if (cost < 0) return CostError();
  if (state != nullptr && !WellFormed(*state)) return CorruptStateError();
  Checked ck;
  const int64_t window_us = params.window_ms * 1000;
  const int64_t cutoff = ck.Sub(now_us, window_us);
  const int64_t window_end_now = ck.Add(now_us, window_us);  // expiry if we log now
  if (ck.failed()) return OverflowError();

  std::vector<SlidingLogEntry> entries;
  if (state != nullptr) entries = Prune(state->entries, cutoff);
  int64_t used = 0;
  for (const SlidingLogEntry& e : entries) used = ck.Add(used, e.cost);
  const int64_t after = ck.Add(used, cost);
  const int64_t current_expiry = entries.empty() ? now_us : ck.Add(entries.back().at_us, window_us);
  if (ck.failed()) return OverflowError();

  SlidingLogDecision d;
  d.limit = params.limit;
  d.expire_at_us = current_expiry;
  d.reset_after_ms = MsUntil(current_expiry, now_us);
  d.remaining = std::max<int64_t>(0, params.limit - used);
  if (cost > params.limit) return d;  // can never be allowed

  if (after <= params.limit) {
    d.allowed = true;
    d.remaining = params.limit - after;
    if (cost == 0) return d;
    // Insert in time order (the clock may have been moved back); one entry per microsecond.
    auto pos = std::upper_bound(entries.begin(), entries.end(), now_us,
                                [](int64_t t, const SlidingLogEntry& e) { return t < e.at_us; });
    if (pos != entries.begin() && std::prev(pos)->at_us == now_us) {
      std::prev(pos)->cost += cost;  // <= limit: no overflow
    } else {
      entries.insert(pos, {now_us, cost});
    }
    d.write_state = true;
    d.expire_at_us = std::max(current_expiry, window_end_now);
    d.reset_after_ms = MsUntil(d.expire_at_us, now_us);
    d.state.entries = std::move(entries);
    return d;
  }

  // Refused: wait until enough of the oldest entries have left the window.
  const int64_t excess = after - params.limit;
  int64_t dropped = 0;
  for (const SlidingLogEntry& e : entries) {
    dropped += e.cost;  // <= used: no overflow
    if (dropped >= excess) {
      d.retry_after_ms = MsUntil(e.at_us + window_us, now_us);  // <= current_expiry
      break;
    }
  }
  return d;
}

StatusOr<Rescaled<SlidingLogState>> Rescale(const SlidingLogState& state,
                                            const SlidingLogParams& old_params,
                                            const SlidingLogParams& new_params, int64_t now_us) {
  SLUICE_RETURN_IF_ERROR(Validate(old_params));
  SLUICE_RETURN_IF_ERROR(Validate(new_params));
  if (!WellFormed(state)) return CorruptStateError();
  Checked ck;
  const int64_t new_window_us = new_params.window_ms * 1000;
  // Entries that already left the old window are gone, whatever the new window.
  const int64_t old_cutoff = ck.Sub(now_us, old_params.window_ms * 1000);
  const int64_t new_cutoff = ck.Sub(now_us, new_window_us);
  if (ck.failed()) return OverflowError();
  Rescaled<SlidingLogState> r;
  r.state.entries = Prune(state.entries, std::max(old_cutoff, new_cutoff));
  if (r.state.entries.empty()) return Rescaled<SlidingLogState>{};
  r.expire_at_us = ck.Add(r.state.entries.back().at_us, new_window_us);
  if (ck.failed()) return OverflowError();
  r.keep = true;
  return r;
}

}  // namespace sluice::algorithms
