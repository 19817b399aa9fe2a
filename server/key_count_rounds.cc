#include "server/key_count_rounds.h"

#include <utility>

namespace sluice::server {

void KeyCountRounds::Request(uint64_t client_id, int db) {
  next_round_.push_back({client_id, db});
  if (!counting_) StartRound();
}

void KeyCountRounds::StartRound() {
  // The database of the client that has waited longest, and every client asking about it.
  const int db = next_round_.front().db;
  std::vector<Asked> others;
  for (const Asked& asked : std::exchange(next_round_, {})) {
    (asked.db == db ? this_round_ : others).push_back(asked);
  }
  next_round_ = std::move(others);
  counting_ = true;
  const bool started = start_(db, clock_->NowMillis(), [this](StatusOr<Counts> counts) {
    post_([this, counts = std::move(counts)] { OnRoundDone(counts); });
  });
  if (!started) OnRoundDone(Err("a key count is already under way"));
}

void KeyCountRounds::OnRoundDone(const StatusOr<Counts>& counts) {
  counting_ = false;
  for (const Asked& asked : std::exchange(this_round_, {})) answer_(asked.client_id, counts);
  if (!next_round_.empty()) StartRound();
}

void KeyCountRounds::RefuseAll(const Status& why) {
  for (const Asked& asked : std::exchange(this_round_, {})) answer_(asked.client_id, why);
  for (const Asked& asked : std::exchange(next_round_, {})) answer_(asked.client_id, why);
}

}  // namespace sluice::server
