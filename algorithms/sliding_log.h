#pragma once

// RL.SLIDINGLOG key limit window_ms: the exact sliding window, as the sorted-set log pattern
// (ZREMRANGEBYSCORE + ZCARD + ZADD) computes it, with costs.
//
//   W = window_ms * 1000 us; the log holds (time, cost) of the granted requests
//   in_window(e) = e.time > now - W           (the window is (now - W, now])
//   used  = sum of cost over in_window entries
//   allow = used + COST <= limit              (COST > limit: never; retry_after = -1)
//   retry = the least t >= now at which the entries still in (t - W, t] sum to at most
//           limit - COST: walking the log from the oldest entry, the first e_k with
//           e_1.cost + ... + e_k.cost >= used + COST - limit gives t = e_k.time + W
//   reset = newest.time + W - now; the key expires at newest.time + W
//
// Every call prunes the entries that left the window and a counted call stores the pruned
// log, so a stored log holds at most `limit` entries (each costs >= 1; requests in the same
// microsecond share one entry). limit is at most 1,000,000.
//
// Encoding: 2 header bytes (version 2), a varint count, the total cost and the time span
// (newest minus oldest entry, varint us), the first entry's time (zigzag varint, 8 bytes
// for today's clock), then per entry a varint microsecond delta from the previous entry
// (1 byte under 128 us, 3 under 2.1 s, 4 under 268 s, at most 9) and a varint cost (1 byte
// under 128, at most 3 up to 1,000,000): 2 to 12 bytes, typically 4-5, per entry.
//
// Policy change: the logged units are kept; the new window and limit apply to them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/decision.h"
#include "common/status.h"

namespace sluice::algorithms {

inline constexpr int64_t kSlidingLogMaxLimit = 1'000'000;

struct SlidingLogParams {
  int64_t limit = 0;      // 1 .. 1,000,000
  int64_t window_ms = 0;  // >= 1
};

Status Validate(const SlidingLogParams& params);
// `limit window_ms` (the arguments after the key).
StatusOr<SlidingLogParams> ParseSlidingLogParams(std::span<const std::string_view> args);

struct SlidingLogEntry {
  int64_t at_us = 0;
  int64_t cost = 0;
  bool operator==(const SlidingLogEntry&) const = default;
};

struct SlidingLogState {
  std::vector<SlidingLogEntry> entries;  // strictly ascending at_us, cost >= 1

  std::string Encode() const;
  static StatusOr<SlidingLogState> Decode(std::string_view bytes);
  bool operator==(const SlidingLogState&) const = default;
};

using SlidingLogDecision = Decision<SlidingLogState>;

StatusOr<SlidingLogDecision> Decide(const SlidingLogState* state, const SlidingLogParams& params,
                                    int64_t now_us, int64_t cost);

// A decision taken on the encoded log, and the log it logs, encoded.
struct EncodedSlidingLogDecision {
  SlidingLogDecision decision;  // its `state` stays empty: `encoded` holds the new log
  std::string encoded;          // Encode() of the new log, when decision.write_state
  // Encode() of the log without the entries that left the window, when the call read many of
  // them (COST > 0 only): for a caller that counts nothing (a refusal, or RL.TAKE refused by
  // another policy) to store, so that the next calls do not read them again. Empty otherwise.
  std::string pruned;
};

// Decide on an encoded log without decoding it into entries: the calls of a limiter in use.
// Entries that left the window are read from the front and dropped; a granted call copies the
// bytes of the entries still in the window without reading them (the summary's total and
// span stand for them) and appends itself, or adds its cost to the newest entry when it comes
// in the same microsecond; a refusal reads only the oldest entries, for its retry time. So a
// call costs the entries it drops, not the log's length (up to `limit` entries). nullopt where
// the call needs Decide: a log in version 1, bad bytes where they are read, a call before the
// newest entry's time (the clock moved back), an empty log. Where it answers, the answer
// equals Decide's on the decoded log, and the encoding Encode's, byte for byte when the kept
// entries were written by Encode (one stored with longer varints than needed, as RESTORE can,
// keeps them: it decodes to the same log). Entries it does not read are trusted: a log whose
// summary disagrees with them fails Decode, which RESTORE runs on every log it stores.
std::optional<EncodedSlidingLogDecision> DecideOnEncoding(std::string_view encoded,
                                                          const SlidingLogParams& params,
                                                          int64_t now_us, int64_t cost);

StatusOr<Rescaled<SlidingLogState>> Rescale(const SlidingLogState& state,
                                            const SlidingLogParams& old_params,
                                            const SlidingLogParams& new_params, int64_t now_us);

}  // namespace sluice::algorithms
