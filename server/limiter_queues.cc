#include "server/limiter_queues.h"

#include <algorithm>

#include "server/db_key.h"
#include "server/limiter_store.h"

namespace sluice::server {
namespace {

using algorithms::MsUntil;
using algorithms::Verdict;

// `ms` after `now_us`, in microseconds; kForever past the clock's range.
int64_t AfterMs(int64_t now_us, int64_t ms) {
  if (ms > (LimiterQueues::kForever - now_us) / 1000) return LimiterQueues::kForever;
  return now_us + ms * 1000;
}

}  // namespace

StatusOr<std::optional<Verdict>> LimiterQueues::Submit(uint64_t client_id, std::string_view key,
                                                       std::unique_ptr<LimiterCall>&& call,
                                                       int64_t block_ms, int64_t now_us) {
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  if (Status selected = in_its_database.status(); !selected.ok()) return selected;
  const int64_t deadline_us = block_ms == 0 ? kForever : AfterMs(now_us, block_ms);
  auto it = queues_.find(key);
  if (it != queues_.end()) {
    RefreshCalls(it->second);
    if (it->second.empty()) {
      queues_.erase(it);
      it = queues_.end();
      Reschedule(key);
    }
  }
  if (it == queues_.end() || call->cost() == 0) {
    auto outcome = DecideAndStage(**engine_, in_its_database.key(), *call, now_us, now_us / 1000);
    if (!outcome.ok()) return outcome.status();
    const Verdict& verdict = outcome->verdict;
    bool can_wait = verdict.retry_after_ms >= 0 &&
                    (block_ms == 0 || verdict.retry_after_ms <= block_ms);
    if (verdict.allowed || !can_wait) return std::optional<Verdict>(verdict);
    Queue& queue = queues_[std::string(key)];
    const int64_t retry_at_us = AfterMs(now_us, verdict.retry_after_ms);
    queue.push_back({client_id, std::move(call), deadline_us, retry_at_us, retry_at_us});
  } else {
    Queue& queue = it->second;
    if (queue.size() >= max_waiters_per_key_) {
      // Full: refused without replaying the waiters ahead (10,000 decisions, 2.4 ms), with the
      // time the last of them was expected to be served, when the queue will have drained.
      auto refused =
          RefusalAsItStands(key, *call, /*first_in_line=*/false, queue.back().serve_at_us, now_us);
      if (!refused.ok()) return refused.status();
      return std::optional<Verdict>(*refused);
    }
    auto serve_at_us = EstimateServeTimeUs(key, {queue.begin(), queue.end()}, *call, now_us);
    if (!serve_at_us.ok()) return serve_at_us.status();
    bool can_wait = *serve_at_us && (block_ms == 0 || MsUntil(**serve_at_us, now_us) <= block_ms);
    if (!can_wait) {
      auto refused = RefusalAsItStands(key, *call, /*first_in_line=*/false, *serve_at_us, now_us);
      if (!refused.ok()) return refused.status();
      return std::optional<Verdict>(*refused);
    }
    queue.push_back({client_id, std::move(call), deadline_us, kForever, **serve_at_us});
  }
  Reschedule(key);
  waiting_++;
  observe_(*queues_.find(key)->second.back().call, LimiterEvent::kBlocked);
  on_change_();
  return std::optional<Verdict>();
}

StatusOr<std::optional<int64_t>> LimiterQueues::EstimateServeTimeUs(std::string_view key,
                                                                    WaiterRange ahead,
                                                                    const LimiterCall& call,
                                                                    int64_t now_us) {
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  auto stored = ReadLimiterState(**engine_, in_its_database.key(), now_us / 1000);
  if (!stored.ok()) return stored.status();
  // A copy: the waiters ahead are served on it, and the engine is not to be touched.
  std::optional<std::string> state;
  if (*stored) state.emplace(**stored);
  int64_t t_us = now_us;
  // Serve each waiter ahead, then this request, in order, on a copy of the state.
  auto serve = [&](const LimiterCall& next) -> StatusOr<bool> {
    auto outcome = next.Decide(StateView(state), t_us);
    if (!outcome.ok()) return outcome.status();
    if (!outcome->verdict.allowed) {
      if (outcome->verdict.retry_after_ms < 0) return false;
      t_us = AfterMs(t_us, outcome->verdict.retry_after_ms);
      if (t_us == kForever) return false;
      outcome = next.Decide(StateView(state), t_us);
      if (!outcome.ok()) return outcome.status();
      if (!outcome->verdict.allowed) return false;
    }
    if (outcome->write_state) state = std::move(outcome->state);
    return true;
  };
  // A waiter ahead that can never be served (its policy lowered below its cost) is refused
  // when its turn comes: it holds up nobody behind it.
  for (auto waiter = ahead.first; waiter != ahead.second; ++waiter) {
    auto served = serve(*waiter->call);
    if (!served.ok()) return served.status();
  }
  auto served = serve(call);
  if (!served.ok()) return served.status();
  if (!*served) return std::optional<int64_t>();
  return std::optional<int64_t>(t_us);
}

StatusOr<Verdict> LimiterQueues::RefusalAsItStands(std::string_view key, const LimiterCall& call,
                                                   bool first_in_line,
                                                   std::optional<int64_t> serve_at_us,
                                                   int64_t now_us) {
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  auto stored = ReadLimiterState(**engine_, in_its_database.key(), now_us / 1000);
  if (!stored.ok()) return stored.status();
  auto as_now = call.Decide(*stored, now_us);
  if (!as_now.ok()) return as_now.status();
  Verdict refused = as_now->verdict;
  int64_t own_retry_ms = 0;  // the wait the algorithm itself gives: never reply less
  if (refused.allowed) {
    // It fits, but its turn has not come: the key as a peek sees it, nothing counted.
    auto peek = call.WithCost(0)->Decide(*stored, now_us);
    if (!peek.ok()) return peek.status();
    refused = peek->verdict;
    refused.allowed = false;
  } else if (refused.retry_after_ms < 0 || first_in_line) {
    return refused;  // never, or nobody ahead: the algorithm's own refusal
  } else {
    own_retry_ms = refused.retry_after_ms;
  }
  // (serve_at_us may be an estimate made earlier, as a full queue's is: past, or too soon.)
  refused.retry_after_ms = serve_at_us ? std::max(MsUntil(*serve_at_us, now_us), own_retry_ms) : -1;
  return refused;
}

void LimiterQueues::Finish(Waiter& waiter, const StatusOr<Verdict>& reply, bool timed_out) {
  waiting_--;
  if (reply.ok()) {
    observe_(*waiter.call, reply->allowed ? LimiterEvent::kAllowed
                           : timed_out    ? LimiterEvent::kTimedOut
                                          : LimiterEvent::kRefused);
  }
  answer_(waiter.client_id, reply);
}

void LimiterQueues::RefreshCalls(Queue& queue) {
  if (policies_ == nullptr) return;
  for (auto w = queue.begin(); w != queue.end();) {
    auto refreshed = w->call->Refreshed(*policies_);
    if (!refreshed.ok()) {
      Finish(*w, refreshed.status(), false);
      if (w == queue.begin() && queue.size() > 1) std::next(w)->retry_at_us = 0;
      w = queue.erase(w);
      continue;
    }
    if (*refreshed) w->call = std::move(refreshed).value();
    ++w;
  }
}

void LimiterQueues::Serve(const std::string& key, int64_t now_us) {
  auto it = queues_.find(key);
  if (it == queues_.end()) {
    Reschedule(key);  // nothing stays filed for a queue that is gone
    return;
  }
  Queue& queue = it->second;
  RefreshCalls(queue);
  if (writes_held_) {
    RefuseExpired(key, queue, now_us);
    if (queue.empty()) queues_.erase(it);
    Reschedule(key);
    return;
  }
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  while (!queue.empty()) {
    Waiter& head = queue.front();
    auto outcome =
        DecideAndStage(**engine_, in_its_database.key(), *head.call, now_us, now_us / 1000);
    if (!outcome.ok()) {
      Finish(head, outcome.status(), false);
    } else if (outcome->verdict.allowed || outcome->verdict.retry_after_ms < 0 ||
               now_us >= head.deadline_us) {
      Finish(head, outcome->verdict, now_us >= head.deadline_us);
    } else {
      head.retry_at_us = AfterMs(now_us, outcome->verdict.retry_after_ms);
      break;
    }
    queue.pop_front();
  }
  // Waiters behind the head whose time is up are decided as things stand: a request without
  // BLOCK (docs/notes.md).
  for (auto w = queue.begin(); w != queue.end();) {
    if (w == queue.begin() || now_us < w->deadline_us) {
      ++w;
      continue;
    }
    auto outcome =
        DecideAndStage(**engine_, in_its_database.key(), *w->call, now_us, now_us / 1000);
    Finish(*w, outcome.ok() ? StatusOr<Verdict>(outcome->verdict) : outcome.status(), true);
    w = queue.erase(w);
  }
  if (queue.empty()) queues_.erase(it);
  Reschedule(key);
}

void LimiterQueues::Reschedule(std::string_view key) {
  if (auto filed = due_us_.find(key); filed != due_us_.end()) {
    by_due_.erase({filed->second, filed->first});
    due_us_.erase(filed);
  }
  auto it = queues_.find(key);
  if (it == queues_.end()) return;
  const Queue& queue = it->second;
  int64_t due_us = kForever;
  for (const Waiter& waiter : queue) due_us = std::min(due_us, waiter.deadline_us);
  if (!writes_held_ && !queue.empty()) due_us = std::min(due_us, queue.front().retry_at_us);
  if (due_us == kForever) return;
  due_us_.emplace(it->first, due_us);
  by_due_.emplace(due_us, it->first);
}

void LimiterQueues::RefuseExpired(const std::string& key, Queue& queue, int64_t now_us) {
  for (auto w = queue.begin(); w != queue.end();) {
    if (now_us < w->deadline_us) {
      ++w;
      continue;
    }
    Finish(*w, RefusalInQueue(key, queue, w, now_us), true);
    const bool was_head = w == queue.begin();
    w = queue.erase(w);
    if (was_head && w != queue.end()) w->retry_at_us = 0;
  }
}

StatusOr<Verdict> LimiterQueues::RefusalInQueue(const std::string& key, const Queue& queue,
                                                Queue::const_iterator waiter, int64_t now_us) {
  auto serve_at_us = EstimateServeTimeUs(key, {queue.begin(), waiter}, *waiter->call, now_us);
  if (!serve_at_us.ok()) return serve_at_us.status();
  return RefusalAsItStands(key, *waiter->call, waiter == queue.begin(), *serve_at_us, now_us);
}

void LimiterQueues::CancelClient(uint64_t client_id) {
  for (auto it = queues_.begin(); it != queues_.end();) {
    Queue& queue = it->second;
    bool was_head = !queue.empty() && queue.front().client_id == client_id;
    size_t before = queue.size();
    std::erase_if(queue, [&](const Waiter& w) { return w.client_id == client_id; });
    if (queue.size() == before) {
      ++it;
      continue;
    }
    waiting_ -= before - queue.size();
    const std::string key = it->first;
    if (queue.empty()) {
      it = queues_.erase(it);
    } else {
      if (was_head) queue.front().retry_at_us = 0;  // the new head is looked at on the next wake
      ++it;
    }
    Reschedule(key);
  }
  on_change_();
}

void LimiterQueues::Poke(std::string_view key, int64_t now_us) {
  auto it = queues_.find(key);
  if (it == queues_.end()) return;
  Serve(std::string(key), now_us);  // a copy: the queue, and its key, may go
  on_change_();
}

void LimiterQueues::Wake(int64_t now_us) {
  std::vector<std::string> due;
  for (auto filed = by_due_.begin(); filed != by_due_.end() && filed->first <= now_us; ++filed) {
    due.push_back(filed->second);
  }
  for (const std::string& key : due) Serve(key, now_us);
  on_change_();
}

void LimiterQueues::PokeAll(int64_t now_us) {
  std::vector<std::string> keys;
  keys.reserve(queues_.size());
  for (const auto& [key, queue] : queues_) keys.push_back(key);
  for (const std::string& key : keys) Serve(key, now_us);
  on_change_();
}

void LimiterQueues::HoldWrites(bool held) {
  if (held == writes_held_) return;
  writes_held_ = held;
  // The heads' retry times count again, or no longer do.
  for (const auto& [key, queue] : queues_) Reschedule(key);
}

void LimiterQueues::RefuseAll(int64_t now_us) {
  for (auto& [key, queue] : queues_) {
    // Refused all at once, none waits behind another.
    for (Waiter& waiter : queue) {
      Finish(waiter, RefusalAsItStands(key, *waiter.call, /*first_in_line=*/true, now_us, now_us),
             true);
    }
  }
  queues_.clear();
  due_us_.clear();
  by_due_.clear();
}

bool LimiterQueues::Unblock(uint64_t client_id, int64_t now_us, const Status& error) {
  for (auto it = queues_.begin(); it != queues_.end(); ++it) {
    Queue& queue = it->second;
    auto waiter = std::find_if(queue.begin(), queue.end(),
                               [&](const Waiter& w) { return w.client_id == client_id; });
    if (waiter == queue.end()) continue;
    if (error.ok()) {
      Finish(*waiter, RefusalInQueue(it->first, queue, waiter, now_us), true);
    } else {
      Finish(*waiter, error, false);
    }
    const bool was_head = waiter == queue.begin();
    queue.erase(waiter);
    const std::string key = it->first;
    if (queue.empty()) {
      queues_.erase(it);
    } else if (was_head) {
      queue.front().retry_at_us = 0;  // the new head is looked at on the next wake
    }
    Reschedule(key);
    on_change_();
    return true;
  }
  return false;
}

std::optional<int64_t> LimiterQueues::NextWakeMs() const {
  if (by_due_.empty()) return std::nullopt;
  return algorithms::CeilDiv(by_due_.begin()->first, 1000);
}

}  // namespace sluice::server
