#include "server/key_waiters.h"

#include <algorithm>

namespace sluice::server {

void KeyWaiters::Block(Waiter waiter) {
  const uint64_t id = waiter.client_id;
  Entry entry;
  std::vector<std::string> keys;
  keys.reserve(waiter.keys.size());
  for (std::string& key : waiter.keys) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;  // BLPOP k k 0
    Queue& queue = by_key_[key];
    entry.places.push_back(queue.insert(queue.end(), id));
    keys.push_back(std::move(key));
  }
  waiter.keys = std::move(keys);
  if (waiter.deadline_ms != kForever) deadlines_.emplace(waiter.deadline_ms, id);
  entry.waiter = std::move(waiter);
  waiters_.insert_or_assign(id, std::move(entry));
  DeadlinesChanged();
}

void KeyWaiters::Unlink(Entry& entry) {
  const Waiter& waiter = entry.waiter;
  for (size_t i = 0; i < waiter.keys.size(); ++i) {
    auto queue = by_key_.find(waiter.keys[i]);
    if (queue == by_key_.end()) continue;
    queue->second.erase(entry.places[i]);
    if (queue->second.empty()) by_key_.erase(queue);
  }
  if (waiter.deadline_ms != kForever) deadlines_.erase({waiter.deadline_ms, waiter.client_id});
}

std::optional<KeyWaiters::TimeoutReply> KeyWaiters::Remove(uint64_t client_id) {
  auto it = waiters_.find(client_id);
  if (it == waiters_.end()) return std::nullopt;
  const TimeoutReply reply = it->second.waiter.timeout_reply;
  Unlink(it->second);
  waiters_.erase(it);
  DeadlinesChanged();
  return reply;
}

void KeyWaiters::Signal(std::string_view key) {
  if (!HasWaiters(key) || ready_set_.count(key) > 0) return;
  ready_set_.emplace(key);
  ready_.emplace_back(key);
}

void KeyWaiters::ServeReady(const TryServe& try_serve) {
  // Serving may signal more keys (BLMOVE's destination): ready_ grows while it is walked.
  for (size_t i = 0; i < ready_.size(); ++i) {
    const std::string key = ready_[i];
    // Signalled again from here on (a waiter's push back onto this key), it comes round again.
    ready_set_.erase(key);
    auto queue = by_key_.find(key);
    if (queue == by_key_.end()) continue;
    const std::vector<uint64_t> in_order(queue->second.begin(), queue->second.end());
    for (uint64_t id : in_order) {
      auto it = waiters_.find(id);
      if (it == waiters_.end()) continue;  // served from another key of this pass
      const Outcome outcome = try_serve(it->second.waiter, key);
      if (outcome == Outcome::kKeyEmpty) break;
      if (outcome == Outcome::kServed) Remove(id);
    }
  }
  ready_.clear();
  ready_set_.clear();
}

std::vector<KeyWaiters::Expired> KeyWaiters::TakeExpired(int64_t now_ms) {
  std::vector<Expired> expired;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    const uint64_t id = deadlines_.begin()->second;
    auto it = waiters_.find(id);
    if (it == waiters_.end()) {  // (never: every deadline belongs to a waiter)
      deadlines_.erase(deadlines_.begin());
      continue;
    }
    expired.push_back({id, it->second.waiter.timeout_reply});
    Unlink(it->second);
    waiters_.erase(it);
  }
  if (!expired.empty()) DeadlinesChanged();
  return expired;
}

std::optional<int64_t> KeyWaiters::NextDeadlineMs() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace sluice::server
