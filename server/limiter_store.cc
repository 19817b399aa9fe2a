#include "server/limiter_store.h"

#include <iterator>

#include "resp/error_messages.h"

namespace sluice::server {

StatusOr<StoredLimiter> ReadLimiterRecord(storage::Engine& engine, std::string_view key,
                                          int64_t now_ms) {
  StoredLimiter stored;
  auto record = engine.GetViewNotingExpired(key, now_ms, &stored.expired_bytes);
  if (!record.ok()) return record.status();
  if (record->has_value() && (*record)->meta.type != storage::KeyType::kLimiter) {
    return Status(Code::kWrongType, std::string(resp::kWrongTypeMsg));
  }
  stored.live = *record;
  return stored;
}

StatusOr<std::optional<std::string_view>> ReadLimiterState(storage::Engine& engine,
                                                           std::string_view key, int64_t now_ms) {
  auto record = ReadLimiterRecord(engine, key, now_ms);
  if (!record.ok()) return record.status();
  return record->state();
}

void StageLimiterState(storage::Engine& engine, std::string_view key, const LimiterOutcome& outcome,
                       uint32_t stored_bytes) {
  if (!outcome.write_state) return;
  storage::Metadata meta;
  meta.type = storage::KeyType::kLimiter;
  meta.expire_at_ms = outcome.expire_at_ms;
  meta.stored_bytes = stored_bytes;
  engine.Put(key, meta, outcome.state);
}

bool StageLimiterOutcome(storage::Engine& engine, std::string_view key, const StoredLimiter& stored,
                         const LimiterOutcome& outcome) {
  if (outcome.write_state) {
    StageLimiterState(engine, key, outcome, stored.stored_bytes());
    return true;
  }
  if (!stored.live) return false;
  storage::Metadata meta = stored.live->meta;
  // A key expiring at E ms lives through all of millisecond E (as Redis's keys), so its state
  // only has to be fresh by E + 1. A state already fresh, decided in the key's last
  // millisecond, rounds up to E + 1: no write then (that one rewrote the key, and kept it
  // alive, at every such peek or refusal).
  const bool expires_later = meta.expire_at_ms != 0 && outcome.expire_at_ms > meta.expire_at_ms + 1;
  if (expires_later) meta.expire_at_ms = outcome.expire_at_ms;
  if (!outcome.pruned_state.empty()) {
    engine.Put(key, meta, outcome.pruned_state);
    return true;
  }
  if (expires_later) {
    // A copy: the view may point into the very staged value the write replaces.
    engine.Put(key, meta, std::string(stored.live->payload));
    return true;
  }
  return false;
}

StatusOr<LimiterOutcome> DecideAndStage(storage::Engine& engine, std::string_view key,
                                        const LimiterCall& call, int64_t now_us,
                                        int64_t expiry_now_ms) {
  auto stored = ReadLimiterRecord(engine, key, expiry_now_ms);
  if (!stored.ok()) return stored.status();
  auto outcome = call.Decide(stored->state(), now_us);
  if (!outcome.ok()) return outcome.status();
  outcome->staged = StageLimiterOutcome(engine, key, *stored, *outcome);
  return outcome;
}

void ReplyVerdict(resp::ReplyBuilder& reply, const algorithms::Verdict& verdict) {
  const int64_t fields[] = {verdict.allowed ? 1 : 0, verdict.limit, verdict.remaining,
                            verdict.retry_after_ms, verdict.reset_after_ms};
  if (reply.protocol() != resp::ProtocolVersion::kResp3) {
    reply.IntArray(fields);
    return;
  }
  constexpr std::string_view kNames[] = {"allowed", "limit", "remaining", "retry_after_ms",
                                         "reset_after_ms"};
  static_assert(std::size(kNames) == std::size(fields));
  reply.Map(std::ssize(fields));
  for (size_t i = 0; i < std::size(fields); ++i) {
    reply.Bulk(kNames[i]);
    reply.Int(fields[i]);
  }
}

}  // namespace sluice::server
