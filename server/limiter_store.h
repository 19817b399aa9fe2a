#pragma once

// Limiter state in storage: a key of type `limiter` whose payload is one encoded state.
// Shared by the RL.* commands and the BLOCK queues so both decide exactly alike.

#include <optional>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"
#include "resp/reply_builder.h"
#include "server/limiter_call.h"
#include "storage/engine.h"

namespace sluice::server {

// A limiter key as read: its live record (nullopt: fresh), and for a fresh one the size of
// the expired record it may replace.
struct StoredLimiter {
  std::optional<storage::RecordView> live;
  uint32_t expired_bytes = 0;  // Engine::GetViewNotingExpired

  // The size a new state keeps when it fits (StageLimiterState): a sliding log whose key
  // expired between bursts would otherwise start a size class down, and each time it grew
  // back into its old size be a new memtable entry rather than an in-place rewrite.
  uint32_t stored_bytes() const { return live ? live->meta.stored_bytes : expired_bytes; }
  // The encoded state, nullopt for a fresh key.
  std::optional<std::string_view> state() const {
    return live ? std::optional<std::string_view>(live->payload) : std::nullopt;
  }
};

// The limiter record under `key`. WRONGTYPE for a key of another type. Its payload (the
// encoded state) is a view valid until the next call on `engine` (Engine::GetView): decode or
// decide from it first.
StatusOr<StoredLimiter> ReadLimiterRecord(storage::Engine& engine, std::string_view key,
                                          int64_t now_ms);
// The same, the encoded state alone.
StatusOr<std::optional<std::string_view>> ReadLimiterState(storage::Engine& engine,
                                                           std::string_view key, int64_t now_ms);

// Stages `outcome`'s state under `key` when it counted something; otherwise leaves the key.
// `stored_bytes` is the size of the key's record as read (StoredLimiter::stored_bytes; 0 if
// none), which the new state keeps when it fits.
void StageLimiterState(storage::Engine& engine, std::string_view key, const LimiterOutcome& outcome,
                       uint32_t stored_bytes);

// Stages a decision taken on `stored`: its state when it counted something; otherwise its
// pruned state, if it has one, and, when these parameters take the unchanged state longer to
// become fresh than the key's expiry says (a call with a longer window), that later expiry,
// so the key does not vanish early, as if reset.
// Returns whether it staged a write.
bool StageLimiterOutcome(storage::Engine& engine, std::string_view key, const StoredLimiter& stored,
                         const LimiterOutcome& outcome);

// Reads, decides and stages: one limiter request against the stored state, decided at
// `now_us`. The key is read as live or expired as of `expiry_now_ms`: inside a script or EXEC
// their start, as every key there (the limiter's own clock still moves).
StatusOr<LimiterOutcome> DecideAndStage(storage::Engine& engine, std::string_view key,
                                        const LimiterCall& call, int64_t now_us,
                                        int64_t expiry_now_ms);

// The five fields: a flat array in RESP2, a map in RESP3 (contract section 4).
void ReplyVerdict(resp::ReplyBuilder& reply, const algorithms::Verdict& verdict);

}  // namespace sluice::server
