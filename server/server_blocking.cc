// The server's side of clients that wait: BLOCK requests (server/limiter_queues.h), clients
// blocked on keys (server/key_waiters.h) and requests held by CLIENT PAUSE
// (server/client_pause.h). One timer serves them all: it is armed for the earliest
// moment something is due on the server clock; while the test clock is frozen, DEBUG CLOCK
// wakes the waiters instead.

#include <algorithm>

#include "resp/error_messages.h"
#include "server/server.h"
#include "server/session.h"

namespace sluice::server {

void Server::AnswerBlocked(uint64_t client_id,
                           const std::function<void(resp::ReplyBuilder&)>& reply) {
  auto it = sessions_.find(client_id);
  if (it == sessions_.end()) return;
  it->second->Answer(reply);
}

namespace {

void ReplyTimedOut(resp::ReplyBuilder& reply, KeyWaiters::TimeoutReply timeout_reply) {
  switch (timeout_reply) {
    case KeyWaiters::TimeoutReply::kNullArray:
      reply.NullArray();
      break;
    case KeyWaiters::TimeoutReply::kZero:
      reply.Int(0);
      break;
  }
}

}  // namespace

bool Server::UnblockClient(uint64_t client_id, bool error) {
  auto it = sessions_.find(client_id);
  if (it == sessions_.end() || !it->second->client().blocked) return false;
  const Status unblocked(Code::kRaw, std::string(resp::kUnblockedMsg));
  if (std::optional<KeyWaiters::TimeoutReply> timeout_reply = key_waiters_.Remove(client_id)) {
    AnswerBlocked(client_id, [&](resp::ReplyBuilder& reply) {
      if (error) {
        ReplyCountedError(ctx_.stats.errors, reply, unblocked);
      } else {
        ReplyTimedOut(reply, *timeout_reply);  // what its timeout answers
      }
    });
    return true;
  }
  // A DBSIZE count cannot be cut short (Redis: a module command without a timeout).
  return limiter_queues_.Unblock(client_id, clock_.NowMicros(), error ? unblocked : Status::Ok());
}

void Server::StartClientPause(PauseMode mode, int64_t end_ms) {
  ctx_.pause.Extend(mode, end_ms);
  limiter_queues_.HoldWrites(true);  // both modes hold writes, and serving a waiter writes
  ArmWakeTimer();
}

void Server::EndClientPause() {
  ctx_.pause = ClientPause{};
  limiter_queues_.HoldWrites(false);
  limiter_queues_.Wake(clock_.NowMicros());
  // In the order they were held, as Redis resumes its postponed clients.
  std::vector<Session*> held;
  for (const auto& [id, session] : sessions_) {
    if (session->client().paused != 0) held.push_back(session.get());
  }
  std::sort(held.begin(), held.end(), [](const Session* a, const Session* b) {
    return a->client().paused < b->client().paused;
  });
  for (Session* session : held) session->EndPause();
}

void Server::OnClockChanged() { WakeWaiters(); }

void Server::WakeWaiters() {
  const int64_t now_us = clock_.NowMicros();
  if (ctx_.pause.Set() && !ctx_.pause.InForce(now_us / 1000)) EndClientPause();
  limiter_queues_.Wake(now_us);
  for (const KeyWaiters::Expired& expired : key_waiters_.TakeExpired(now_us / 1000)) {
    AnswerBlocked(expired.client_id,
                  [&](resp::ReplyBuilder& reply) { ReplyTimedOut(reply, expired.reply); });
  }
  ArmWakeTimer();
}

void Server::ArmWakeTimer() {
  wake_timer_.cancel();
  if (shutting_down_ || clock_.frozen()) return;
  std::optional<int64_t> next_ms = limiter_queues_.NextWakeMs();
  const std::optional<int64_t> deadline_ms = key_waiters_.NextDeadlineMs();
  if (deadline_ms && (!next_ms || *deadline_ms < *next_ms)) next_ms = deadline_ms;
  if (ctx_.pause.Set() && (!next_ms || ctx_.pause.end_ms < *next_ms)) {
    next_ms = ctx_.pause.end_ms;
  }
  if (!next_ms) return;
  // At most an hour: a far deadline (BLOCK may reach the end of the clock's range) would
  // overflow the timer's nanoseconds; a wake that finds nothing due arms the timer again.
  constexpr int64_t kMaxDelayMs = 3'600'000;
  int64_t delay_ms = std::clamp<int64_t>(*next_ms - clock_.NowMillis(), 0, kMaxDelayMs);
  wake_timer_.expires_after(std::chrono::milliseconds(delay_ms));
  wake_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    if (ctx_.script.active) {  // no decisions in the middle of a busy script
      wake_after_script_ = true;
      return;
    }
    WakeWaiters();
  });
}

void Server::OnScriptFinished() {
  if (!wake_after_script_) return;
  wake_after_script_ = false;
  ArmWakeTimer();
}

}  // namespace sluice::server
