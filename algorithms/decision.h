#pragma once

// What every limiter returns (contract section 4). A `Verdict` is the five reply fields; a
// `Decision<State>` adds what the server must store:
//
//   if (d.write_state) put(key, d.state.Encode()) with PEXPIREAT d.ExpireAtMs();
//   otherwise leave the key exactly as it is (or absent).
//
// `write_state` is true only when something was counted (an allowed request with COST > 0),
// so COST 0 and refused requests never create or touch a key. `expire_at_us` is the moment the
// stored state becomes equivalent to a fresh key's: from then on, Decide on that state and
// Decide on nullptr give the same result, so the key can be dropped at any time >= it.
// ExpireAtMs() rounds it up, which matches reset_after_ms (a key set to expire at X ms is
// still alive at X, as in Redis, and behaves as fresh there).

#include <cstdint>
#include <optional>

#include "algorithms/checked.h"

namespace sluice::algorithms {

struct Verdict {
  bool allowed = false;         // let through and counted (COST 0: allowed, nothing counted)
  int64_t limit = 0;            // the most that could ever be allowed at once
  int64_t remaining = 0;        // units allowed right now after this request, floor, >= 0
  int64_t retry_after_ms = -1;  // refused: ms until this same request fits, ceil; else -1
  int64_t reset_after_ms = 0;   // ms until the key is back to fresh, ceil; 0 if fresh

  bool operator==(const Verdict&) const = default;
};

template <typename State>
struct Decision : Verdict {
  bool write_state = false;  // store `state` (something was counted)
  State state{};             // the new state; meaningful only when write_state
  int64_t expire_at_us = 0;  // when the (new or unchanged) state equals a fresh key's

  const Verdict& verdict() const { return *this; }
  int64_t ExpireAtMs() const { return CeilUsToMs(expire_at_us); }
};

// Milliseconds from `now_us` until `at_us`, rounded up, never negative (no overflow: 128-bit,
// which also takes the bucket algorithms' 128-bit instants).
inline int64_t MsUntil(Int128 at_us, int64_t now_us) {
  Int128 diff = at_us - now_us;
  if (diff <= 0) return 0;
  return static_cast<int64_t>(CeilDiv128(diff, 1000));
}

// The result of carrying a key's state over to changed parameters (policy change, contract
// section 5). `keep == false` means the carried state equals a fresh key's: delete the key.
template <typename State>
struct Rescaled {
  bool keep = false;
  State state{};
  int64_t expire_at_us = 0;

  int64_t ExpireAtMs() const { return CeilUsToMs(expire_at_us); }
};

}  // namespace sluice::algorithms
