#include "server/limiter_queues.h"

#include <algorithm>

#include "server/db_key.h"
#include "server/limiter_store.h"

namespace sluice::server {
namespace {

using algorithms::Verdict;

// A verdict turned into a refusal (a request that would fit but has waiters ahead).
Verdict Refused(Verdict verdict, std::optional<int64_t> retry_after_ms) {
  verdict.allowed = false;
  verdict.retry_after_ms = retry_after_ms.value_or(-1);
  return verdict;
}

std::optional<std::string_view> AsView(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}

}  // namespace

StatusOr<std::optional<Verdict>> LimiterQueues::Submit(uint64_t client_id, std::string_view key,
                                                       std::unique_ptr<LimiterCall>&& call,
                                                       int64_t block_ms, int64_t now_us) {
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  if (Status selected = in_its_database.status(); !selected.ok()) return selected;
  const int64_t now_ms = now_us / 1000;
  const int64_t deadline_ms = block_ms == 0 ? kForever : now_ms + block_ms;
  auto it = queues_.find(key);
  if (it != queues_.end()) {
    RefreshCalls(it->second);
    if (it->second.empty()) {
      queues_.erase(it);
      it = queues_.end();
    }
  }
  if (it == queues_.end()) {
    auto outcome = DecideAndStage(**engine_, in_its_database.key(), *call, now_us);
    if (!outcome.ok()) return outcome.status();
    const Verdict& verdict = outcome->verdict;
    bool can_wait = verdict.retry_after_ms >= 0 &&
                    (block_ms == 0 || verdict.retry_after_ms <= block_ms);
    if (verdict.allowed || !can_wait) return std::optional<Verdict>(verdict);
    Queue& queue = queues_[std::string(key)];
    queue.push_back({client_id, std::move(call), deadline_ms, now_ms + verdict.retry_after_ms});
  } else {
    Queue& queue = it->second;
    auto peek = ReadLimiterState(**engine_, in_its_database.key(), now_ms);
    if (!peek.ok()) return peek.status();
    auto as_now = call->Decide(*peek, now_us);
    if (!as_now.ok()) return as_now.status();
    auto serve_at = EstimateServeTimeMs(key, queue, *call, now_us);
    if (!serve_at.ok()) return serve_at.status();
    std::optional<int64_t> wait_ms;
    if (*serve_at) wait_ms = std::max<int64_t>(**serve_at - now_ms, 0);
    bool can_wait = wait_ms && (block_ms == 0 || *wait_ms <= block_ms) &&
                    queue.size() < kMaxWaitersPerKey;
    if (!can_wait) return std::optional<Verdict>(Refused(as_now->verdict, wait_ms));
    queue.push_back({client_id, std::move(call), deadline_ms});
  }
  waiting_++;
  observe_(*queues_.find(key)->second.back().call, LimiterEvent::kBlocked);
  on_change_();
  return std::optional<Verdict>();
}

StatusOr<std::optional<int64_t>> LimiterQueues::EstimateServeTimeMs(std::string_view key,
                                                                    const Queue& queue,
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
    auto outcome = next.Decide(AsView(state), t_us);
    if (!outcome.ok()) return outcome.status();
    if (!outcome->verdict.allowed) {
      if (outcome->verdict.retry_after_ms < 0) return false;
      t_us += outcome->verdict.retry_after_ms * 1000;
      outcome = next.Decide(AsView(state), t_us);
      if (!outcome.ok()) return outcome.status();
      if (!outcome->verdict.allowed) return false;
    }
    if (outcome->write_state) state = std::move(outcome->state);
    return true;
  };
  for (const Waiter& waiter : queue) {
    auto served = serve(*waiter.call);
    if (!served.ok()) return served.status();
    if (!*served) return std::optional<int64_t>();
  }
  auto served = serve(call);
  if (!served.ok()) return served.status();
  if (!*served) return std::optional<int64_t>();
  return std::optional<int64_t>((t_us + 999) / 1000);
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
      if (w == queue.begin() && queue.size() > 1) std::next(w)->retry_at_ms = 0;
      w = queue.erase(w);
      continue;
    }
    if (*refreshed) w->call = std::move(refreshed).value();
    ++w;
  }
}

void LimiterQueues::Serve(const std::string& key, int64_t now_us) {
  auto it = queues_.find(key);
  if (it == queues_.end()) return;
  Queue& queue = it->second;
  RefreshCalls(queue);
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  const int64_t now_ms = now_us / 1000;
  while (!queue.empty()) {
    Waiter& head = queue.front();
    auto outcome = DecideAndStage(**engine_, in_its_database.key(), *head.call, now_us);
    if (!outcome.ok()) {
      Finish(head, outcome.status(), false);
    } else if (outcome->verdict.allowed || outcome->verdict.retry_after_ms < 0 ||
               now_ms >= head.deadline_ms) {
      Finish(head, outcome->verdict, now_ms >= head.deadline_ms);
    } else {
      head.retry_at_ms = now_ms + outcome->verdict.retry_after_ms;
      break;
    }
    queue.pop_front();
  }
  // Waiters behind the head whose time is up are answered as things stand.
  for (auto w = queue.begin(); w != queue.end();) {
    if (w == queue.begin() || now_ms < w->deadline_ms) {
      ++w;
      continue;
    }
    auto outcome = DecideAndStage(**engine_, in_its_database.key(), *w->call, now_us);
    Finish(*w, outcome.ok() ? StatusOr<Verdict>(outcome->verdict) : outcome.status(), true);
    w = queue.erase(w);
  }
  if (queue.empty()) queues_.erase(it);
}

void LimiterQueues::CancelClient(uint64_t client_id) {
  for (auto it = queues_.begin(); it != queues_.end();) {
    Queue& queue = it->second;
    bool was_head = !queue.empty() && queue.front().client_id == client_id;
    size_t before = queue.size();
    std::erase_if(queue, [&](const Waiter& w) { return w.client_id == client_id; });
    waiting_ -= before - queue.size();
    if (queue.empty()) {
      it = queues_.erase(it);
      continue;
    }
    if (was_head) queue.front().retry_at_ms = 0;  // the new head is looked at on the next wake
    ++it;
  }
  on_change_();
}

void LimiterQueues::Poke(std::string_view key, int64_t now_us) {
  auto it = queues_.find(key);
  if (it == queues_.end()) return;
  Serve(it->first, now_us);
  on_change_();
}

void LimiterQueues::Wake(int64_t now_us) {
  std::vector<std::string> keys;
  keys.reserve(queues_.size());
  for (const auto& [key, queue] : queues_) keys.push_back(key);
  for (const std::string& key : keys) Serve(key, now_us);
  on_change_();
}

void LimiterQueues::RefuseNow(const std::string& key, Waiter& waiter, int64_t now_us) {
  const InKeysDatabase in_its_database(**engine_, key);  // queues are keyed by DbKey
  auto stored = ReadLimiterState(**engine_, in_its_database.key(), now_us / 1000);
  if (!stored.ok()) {
    Finish(waiter, stored.status(), false);
    return;
  }
  auto outcome = waiter.call->Decide(*stored, now_us);
  Finish(waiter,
         outcome.ok()
             ? StatusOr<Verdict>(Refused(outcome->verdict, outcome->verdict.retry_after_ms))
             : outcome.status(),
         true);
}

void LimiterQueues::RefuseAll(int64_t now_us) {
  for (auto& [key, queue] : queues_) {
    for (Waiter& waiter : queue) RefuseNow(key, waiter, now_us);
  }
  queues_.clear();
}

bool LimiterQueues::Unblock(uint64_t client_id, int64_t now_us, const Status& error) {
  for (auto it = queues_.begin(); it != queues_.end(); ++it) {
    Queue& queue = it->second;
    auto waiter = std::find_if(queue.begin(), queue.end(),
                               [&](const Waiter& w) { return w.client_id == client_id; });
    if (waiter == queue.end()) continue;
    if (error.ok()) {
      RefuseNow(it->first, *waiter, now_us);
    } else {
      Finish(*waiter, error, false);
    }
    const bool was_head = waiter == queue.begin();
    queue.erase(waiter);
    if (queue.empty()) {
      queues_.erase(it);
    } else if (was_head) {
      queue.front().retry_at_ms = 0;  // the new head is looked at on the next wake
    }
    on_change_();
    return true;
  }
  return false;
}

std::optional<int64_t> LimiterQueues::NextWakeMs() const {
  std::optional<int64_t> next;
  for (const auto& [key, queue] : queues_) {
    for (size_t i = 0; i < queue.size(); ++i) {
      int64_t at = queue[i].deadline_ms;
      if (i == 0) at = std::min(at, queue[i].retry_at_ms);
      if (at != kForever && (!next || at < *next)) next = at;
    }
  }
  return next;
}

}  // namespace sluice::server
