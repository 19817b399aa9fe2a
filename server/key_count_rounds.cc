#include "server/key_count_rounds.h"

#include <utility>

namespace sluice::server {

void KeyCountRounds::Request(uint64_t client_id) {
  next_round_.push_back(client_id);
  if (!counting_) StartRound();
}

void KeyCountRounds::StartRound() {
  this_round_ = std::exchange(next_round_, {});
  counting_ = true;
  const bool started = start_(clock_->NowMillis(), [this](StatusOr<Counts> counts) {
    post_([this, counts = std::move(counts)] { OnRoundDone(counts); });
  });
  if (!started) OnRoundDone(Err("a key count is already under way"));
}

void KeyCountRounds::OnRoundDone(const StatusOr<Counts>& counts) {
  counting_ = false;
  for (uint64_t client_id : std::exchange(this_round_, {})) answer_(client_id, counts);
  if (!next_round_.empty()) StartRound();
}

void KeyCountRounds::RefuseAll(const Status& why) {
  for (uint64_t client_id : std::exchange(this_round_, {})) answer_(client_id, why);
  for (uint64_t client_id : std::exchange(next_round_, {})) answer_(client_id, why);
}

}  // namespace sluice::server
