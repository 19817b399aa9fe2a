#include "algorithms/sliding_log.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "algorithms/parse.h"

namespace sluice::algorithms {

namespace {

// Version 2 writes the log's total cost and time span (newest minus oldest entry) after its
// count, so a call that leaves the log as it is reads only the front of the encoding
// (DecideOnEncoding). Version 1 logs still decode.
constexpr uint8_t kSummaryVersion = 2;

struct LogSummary {
  uint64_t total = 0;
  uint64_t span = 0;
};

// Newest minus oldest entry time, as version 2 stores it (0 for an empty log).
uint64_t SpanOf(const std::vector<SlidingLogEntry>& entries) {
  return entries.empty() ? 0
                         : static_cast<uint64_t>(entries.back().at_us) -
                               static_cast<uint64_t>(entries.front().at_us);
}

bool ReadSummary(StateReader& r, LogSummary* summary) {
  return r.Unsigned(&summary->total) && r.Unsigned(&summary->span);
}

// Reads the next entry into `e`: the first holds its absolute time, each later one its delta
// from the previous entry's time, which `e` holds. False on bad bytes.
bool ReadEntry(StateReader& r, bool first, SlidingLogEntry* e) {
  if (first) {
    if (!r.Signed(&e->at_us)) return false;
  } else {
    uint64_t delta = 0;
    if (!r.Unsigned(&delta) || delta == 0 || delta > static_cast<uint64_t>(kInt64Max) ||
        __builtin_add_overflow(e->at_us, static_cast<int64_t>(delta), &e->at_us)) {
      return false;
    }
  }
  uint64_t cost = 0;
  if (!r.Unsigned(&cost) || cost == 0 || cost > static_cast<uint64_t>(kInt64Max)) return false;
  e->cost = static_cast<int64_t>(cost);
  return true;
}

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
  uint64_t total = 0;
  for (const SlidingLogEntry& e : entries) total += static_cast<uint64_t>(e.cost);
  StateWriter w(AlgorithmTag::kSlidingLog, kSummaryVersion);
  w.Unsigned(entries.size());
  w.Unsigned(total);
  w.Unsigned(SpanOf(entries));
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
  SLUICE_RETURN_IF_ERROR(r.Header(AlgorithmTag::kSlidingLog, kSummaryVersion));
  uint64_t n = 0;
  // Each entry takes at least 2 bytes: a count beyond that is garbage, not an allocation.
  if (!r.Unsigned(&n) || n > bytes.size() / 2) return CorruptStateError();
  LogSummary summary;
  const bool has_summary = r.version() >= kSummaryVersion;
  if (has_summary && !ReadSummary(r, &summary)) return CorruptStateError();
  SlidingLogState s;
  s.entries.reserve(n);
  SlidingLogEntry e;
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (!ReadEntry(r, i == 0, &e) ||
        __builtin_add_overflow(total, static_cast<uint64_t>(e.cost), &total)) {
      return CorruptStateError();
    }
    s.entries.push_back(e);
  }
  if (!r.AtEnd()) return CorruptStateError();
  if (has_summary && (summary.total != total || summary.span != SpanOf(s.entries))) {
    return CorruptStateError();
  }
  return s;
}

namespace {

// Everything but retry_after_ms for a call that finds `used` units in the window, whose newest
// entry (if any) makes the log expire at `current_expiry`. Allowed when the call fits; a
// granted call with COST > 0 still has to be logged by the caller.
SlidingLogDecision Judge(const SlidingLogParams& params, int64_t used, int64_t after,
                         int64_t current_expiry, int64_t now_us, int64_t cost) {
  SlidingLogDecision d;
  d.limit = params.limit;
  d.expire_at_us = current_expiry;
  d.reset_after_ms = MsUntil(current_expiry, now_us);
  d.remaining = std::max<int64_t>(0, params.limit - used);
  if (cost <= params.limit && after <= params.limit) {
    d.allowed = true;
    d.remaining = params.limit - after;
  }
  return d;
}

// A refused call: ms until enough of the oldest entries have left the window for `excess`
// units. `next_oldest(&entry)` yields the entries oldest first and false at their end (or on
// bad bytes); nullopt if they run out before `excess` is covered.
template <typename NextOldest>
std::optional<int64_t> RetryAfterMs(int64_t excess, int64_t window_us, int64_t now_us,
                                    NextOldest next_oldest) {
  int64_t dropped = 0;
  SlidingLogEntry e;
  while (dropped < excess) {
    if (!next_oldest(&e) || __builtin_add_overflow(dropped, e.cost, &dropped)) return {};
  }
  int64_t leaves_at = 0;
  if (__builtin_add_overflow(e.at_us, window_us, &leaves_at)) return {};
  return MsUntil(leaves_at, now_us);
}

// Where the newest entry's cost starts in `rest`, the bytes of the entries after the oldest
// kept one: its cost is their last varint, which starts after the last byte before it that
// ends a varint (high bit clear). nullopt when `rest` cannot end in an entry.
std::optional<size_t> NewestCostAt(std::string_view rest) {
  if (rest.size() < 2 || (static_cast<uint8_t>(rest.back()) & 0x80) != 0) return std::nullopt;
  size_t at = rest.size() - 1;
  while (at > 0 && (static_cast<uint8_t>(rest[at - 1]) & 0x80) != 0) --at;
  if (at == 0) return std::nullopt;  // one varint: no delta before the cost
  return at;
}

// Whether `rest` can hold the `unread` entries after the oldest kept one (`oldest`), the kept
// entries holding `kept_total` units, the newest at `newest_at`: only what is cheap to check.
// Each entry costs at least 1 and takes at least 2 bytes.
bool KeptBytesFit(std::string_view rest, uint64_t unread, uint64_t kept_total,
                  const SlidingLogEntry& oldest, int64_t newest_at) {
  const auto oldest_cost = static_cast<uint64_t>(oldest.cost);
  if (unread > rest.size() / 2 || kept_total < oldest_cost || kept_total - oldest_cost < unread) {
    return false;
  }
  return unread == 0 ? rest.empty() && newest_at == oldest.at_us : newest_at > oldest.at_us;
}

// A call that read this many entries which left the window, and at least half as many as the
// log keeps, hands back the log without them (EncodedSlidingLogDecision::pruned): writing the
// kept bytes then costs about what reading the dropped entries did, and every later call that
// counts nothing would read them again.
constexpr uint64_t kPruneFromDroppedEntries = 64;

bool WorthPruning(uint64_t dropped_entries, uint64_t kept_entries) {
  return dropped_entries >= kPruneFromDroppedEntries && 2 * dropped_entries >= kept_entries;
}

// The kept entries alone, as Encode() writes them: `oldest`, read, then the `unread` entries
// whose bytes `rest` holds, copied as they are (see EncodeWithGrant).
std::optional<std::string> EncodeKept(std::string_view rest, uint64_t unread, uint64_t kept_total,
                                      const SlidingLogEntry& oldest, int64_t newest_at) {
  if (!KeptBytesFit(rest, unread, kept_total, oldest, newest_at)) return std::nullopt;
  StateWriter w(AlgorithmTag::kSlidingLog, kSummaryVersion);
  w.Reserve(rest.size() + 48);  // the header and the oldest entry: 48 at most
  w.Unsigned(unread + 1);
  w.Unsigned(kept_total);
  w.Unsigned(static_cast<uint64_t>(newest_at) - static_cast<uint64_t>(oldest.at_us));
  w.Signed(oldest.at_us);
  w.Unsigned(static_cast<uint64_t>(oldest.cost));
  w.Raw(rest);
  return std::move(w).Finish();
}

// The log of a granted call at `now_us`, at or after the newest entry's time, written as
// Encode() writes it: the kept entries, then the call, which joins the newest entry when it
// comes in the same microsecond. `last_read` is the last entry the caller read: the oldest
// kept one, or, when `kept` is false, the newest, dropped with all the others (`dropped` is
// the dropped entries' cost).
//
// The `unread` entries after the oldest kept one, whose bytes `r` is at, are copied as they
// are (deltas from their predecessors do not change) without being read: the summary's
// `total` and `newest_at` stand for them, so a grant costs the entries it drops and a copy,
// not a walk of up to `limit` entries (at 10,000 entries the walk was 95% of a grant). A log
// is checked whole where it enters storage (RESTORE) and wherever it is decoded; here only
// what is cheap: nullopt when the bytes cannot hold `unread` such entries.
std::optional<std::string> EncodeWithGrant(const StateReader& r, uint64_t unread, uint64_t total,
                                           int64_t newest_at, const SlidingLogEntry& last_read,
                                           bool kept, int64_t dropped, int64_t now_us,
                                           int64_t cost) {
  StateWriter w(AlgorithmTag::kSlidingLog, kSummaryVersion);
  if (!kept) {  // every entry was read and dropped: the summary is checked in full
    if (!r.AtEnd() || last_read.at_us != newest_at || static_cast<uint64_t>(dropped) != total) {
      return std::nullopt;
    }
    w.Unsigned(1);
    w.Unsigned(static_cast<uint64_t>(cost));
    w.Unsigned(0);
    w.Signed(now_us);
    w.Unsigned(static_cast<uint64_t>(cost));
    return std::move(w).Finish();
  }
  const std::string_view rest = r.Rest();
  const uint64_t kept_total = total - static_cast<uint64_t>(dropped);
  if (!KeptBytesFit(rest, unread, kept_total, last_read, newest_at)) return std::nullopt;
  const auto oldest_cost = static_cast<uint64_t>(last_read.cost);
  const bool joins_newest = now_us == newest_at;
  std::optional<size_t> newest_cost_at;
  uint64_t newest_cost = oldest_cost;
  if (unread > 0) {
    newest_cost_at = NewestCostAt(rest);
    if (!newest_cost_at) return std::nullopt;
    StateReader cost_reader(rest.substr(*newest_cost_at));
    if (!cost_reader.Unsigned(&newest_cost) || !cost_reader.AtEnd() || newest_cost == 0 ||
        newest_cost > kept_total) {
      return std::nullopt;
    }
  }
  w.Reserve(rest.size() + 72);  // the header, the first kept entry and the call: 72 at most
  w.Unsigned(joins_newest ? unread + 1 : unread + 2);
  w.Unsigned(kept_total + static_cast<uint64_t>(cost));
  w.Unsigned(static_cast<uint64_t>(now_us) - static_cast<uint64_t>(last_read.at_us));
  w.Signed(last_read.at_us);
  if (joins_newest && unread == 0) {
    w.Unsigned(newest_cost + static_cast<uint64_t>(cost));
    return std::move(w).Finish();
  }
  w.Unsigned(oldest_cost);
  if (joins_newest) {
    w.Raw(rest.substr(0, *newest_cost_at));
    w.Unsigned(newest_cost + static_cast<uint64_t>(cost));
  } else {
    w.Raw(rest);
    w.Unsigned(static_cast<uint64_t>(now_us) - static_cast<uint64_t>(newest_at));
    w.Unsigned(static_cast<uint64_t>(cost));
  }
  return std::move(w).Finish();
}

}  // namespace

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

  SlidingLogDecision d = Judge(params, used, after, current_expiry, now_us, cost);
  if (cost > params.limit) return d;  // can never be allowed
  if (d.allowed) {
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

  // Refused: the pruned entries, oldest first, hold at least `after - limit` units.
  auto next = entries.begin();
  d.retry_after_ms =
      *RetryAfterMs(after - params.limit, window_us, now_us, [&](SlidingLogEntry* e) {
        if (next == entries.end()) return false;
        *e = *next++;
        return true;
      });
  return d;
}

std::optional<EncodedSlidingLogDecision> DecideOnEncoding(std::string_view encoded,
                                                          const SlidingLogParams& params,
                                                          int64_t now_us, int64_t cost) {
  StateReader r(encoded);
  if (!r.Header(AlgorithmTag::kSlidingLog, kSummaryVersion).ok() || r.version() < kSummaryVersion ||
      !Validate(params).ok() || cost < 0) {
    return std::nullopt;
  }
  uint64_t count = 0;
  LogSummary summary;
  SlidingLogEntry oldest;
  if (!r.Unsigned(&count) || count == 0 || !ReadSummary(r, &summary) ||
      !ReadEntry(r, /*first=*/true, &oldest) || summary.total > static_cast<uint64_t>(kInt64Max) ||
      summary.span > static_cast<uint64_t>(kInt64Max)) {
    return std::nullopt;
  }
  Checked ck;
  const int64_t window_us = params.window_ms * 1000;
  const int64_t cutoff = ck.Sub(now_us, window_us);
  const int64_t newest_at = ck.Add(oldest.at_us, static_cast<int64_t>(summary.span));
  if (ck.failed()) return std::nullopt;

  // Drop the entries that left the window, oldest first.
  uint64_t entries_read = 1;
  int64_t dropped = 0;
  SlidingLogEntry e = oldest;
  while (e.at_us <= cutoff) {
    if (__builtin_add_overflow(dropped, e.cost, &dropped)) return std::nullopt;
    if (entries_read == count) break;
    if (!ReadEntry(r, /*first=*/false, &e)) return std::nullopt;
    ++entries_read;
  }
  const bool kept = e.at_us > cutoff;  // then `e` is the oldest entry kept
  const int64_t used = static_cast<int64_t>(summary.total) - dropped;
  if (used < 0) return std::nullopt;
  const int64_t after = ck.Add(used, cost);
  const int64_t current_expiry = kept ? ck.Add(newest_at, window_us) : now_us;
  const int64_t window_end_now = ck.Add(now_us, window_us);
  if (ck.failed()) return std::nullopt;

  EncodedSlidingLogDecision out;
  SlidingLogDecision& d = out.decision;
  d = Judge(params, used, after, current_expiry, now_us, cost);
  const uint64_t unread = count - entries_read;
  if (cost > 0 && kept && WorthPruning(entries_read - 1, unread + 1)) {
    std::optional<std::string> pruned =
        EncodeKept(r.Rest(), unread, summary.total - static_cast<uint64_t>(dropped), e, newest_at);
    if (!pruned) return std::nullopt;
    out.pruned = std::move(*pruned);
  }
  if (cost > params.limit) return out;
  if (d.allowed) {
    if (cost == 0) return out;
    if (now_us < newest_at) return std::nullopt;  // the clock moved back: Decide places it
    std::optional<std::string> logged =
        EncodeWithGrant(r, unread, summary.total, newest_at, e, kept, dropped, now_us, cost);
    if (!logged) return std::nullopt;
    out.encoded = std::move(*logged);
    d.write_state = true;
    d.expire_at_us = std::max(current_expiry, window_end_now);
    d.reset_after_ms = MsUntil(d.expire_at_us, now_us);
    return out;
  }
  // Refused: the kept entries, oldest first, hold at least `after - limit` units. (None kept
  // and still refused: the summary's total is wrong, which Decode reports.)
  if (!kept) return std::nullopt;
  bool at_oldest_kept = true;
  std::optional<int64_t> retry =
      RetryAfterMs(after - params.limit, window_us, now_us, [&](SlidingLogEntry* next) {
        if (!std::exchange(at_oldest_kept, false) && !ReadEntry(r, /*first=*/false, &e)) {
          return false;
        }
        *next = e;
        return true;
      });
  if (!retry) return std::nullopt;
  d.retry_after_ms = *retry;
  return out;
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
