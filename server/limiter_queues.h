#pragma once

// BLOCK: each limiter key has a first-come-first-served queue of parked requests. A request
// that is refused, or that has waiters ahead of it, is parked when it can be served within
// its BLOCK time (counting the waiters ahead); it is answered when its turn comes and it
// fits, or with its refused reply at its deadline. A refused reply is the key as it stands
// (what a COST 0 peek sees: nothing counted) with the wait behind the waiters ahead as its
// retry_after. A COST 0 request never waits: it counts nothing, so nothing is ahead of it.
// Time is the server clock (the test clock included), kept in microseconds so that a deadline
// is never early; the server arms one timer for NextWakeMs() and calls Wake() when it fires
// or when DEBUG CLOCK moves time. No Asio here, so the queue logic is testable on its own.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "algorithms/decision.h"
#include "common/status.h"
#include "server/limiter_call.h"
#include "storage/engine.h"

namespace sluice::server {

class LimiterQueues {
 public:
  static constexpr size_t kMaxWaitersPerKey = 10000;
  static constexpr int64_t kForever = INT64_MAX;

  // Delivers a parked request's reply to its client.
  using Answer = std::function<void(uint64_t client_id, const StatusOr<algorithms::Verdict>&)>;
  // Counts what became of a request (parked, then allowed, refused or timed out).
  using Observe = std::function<void(const LimiterCall& call, LimiterEvent event)>;

  // `policies` (optional) brings the requests of RL.TAKE up to date with the named policies
  // before each decision, so a redefinition or RL.POLICY DEL reaches the waiters.
  // `max_waiters_per_key`: kMaxWaitersPerKey but in tests.
  LimiterQueues(storage::Engine** engine, Answer answer, Observe observe,
                std::function<void()> on_change, const PolicyRegistry* policies = nullptr,
                size_t max_waiters_per_key = kMaxWaitersPerKey)
      : engine_(engine),
        answer_(std::move(answer)),
        observe_(std::move(observe)),
        on_change_(std::move(on_change)),
        policies_(policies),
        max_waiters_per_key_(max_waiters_per_key) {}

  // Keys are DbKeys (server/db_key.h): a request is decided in its key's database.
  // A BLOCK request: decided at once when it fits (and nobody waits) or can never be served
  // within `block_ms` (0: no limit); the verdict to reply now, or nullopt when it was parked,
  // and only then is `call` moved from.
  StatusOr<std::optional<algorithms::Verdict>> Submit(uint64_t client_id, std::string_view key,
                                                      std::unique_ptr<LimiterCall>&& call,
                                                      int64_t block_ms, int64_t now_us);
  // The client disconnected: forget its request.
  void CancelClient(uint64_t client_id);
  // `key` changed outside the queue (DEL, another command): serve what now fits.
  void Poke(std::string_view key, int64_t now_us);
  // Time moved: serve the queues whose head may fit by now or whose waiter's deadline came
  // (the others are not looked at: with one waiter on each of 10,000 keys, a wake that served
  // every queue cost 6 ms).
  void Wake(int64_t now_us);
  // Keys may have changed anywhere (FLUSHALL, a policy changed): serve every queue.
  void PokeAll(int64_t now_us);
  // Shutdown: every waiter gets its refused reply as it stands.
  void RefuseAll(int64_t now_us);
  // CLIENT UNBLOCK: the client's request leaves its queue with its refused reply as it stands
  // (as at its deadline), or with `error` when that is not ok. False if it is not waiting.
  bool Unblock(uint64_t client_id, int64_t now_us, const Status& error);

  // CLIENT PAUSE (WRITE or ALL): while held, no waiter is served (that would write); one whose
  // deadline comes gets its refused reply as it stands. After `false`, Wake serves what fits.
  void HoldWrites(bool held);

  // Earliest server-clock ms (rounded up) at which something may change; nullopt when nobody
  // waits.
  std::optional<int64_t> NextWakeMs() const;
  size_t waiting() const { return waiting_; }
  bool HasWaiters(std::string_view key) const { return queues_.count(std::string(key)) > 0; }

 private:
  struct Waiter {
    uint64_t client_id;
    std::unique_ptr<LimiterCall> call;
    int64_t deadline_us;             // kForever for BLOCK 0
    int64_t retry_at_us = kForever;  // for the head: when it may fit next
    int64_t serve_at_us = kForever;  // when its turn was estimated to come, as it parked
  };
  using Queue = std::deque<Waiter>;
  using WaiterRange = std::pair<Queue::const_iterator, Queue::const_iterator>;  // in order

  void Serve(const std::string& key, int64_t now_us);
  // Files `key`'s queue under the time it next needs a look, after any change to it.
  void Reschedule(std::string_view key);
  // While writes are held: the waiters of `queue` past their deadline leave it, refused.
  void RefuseExpired(const std::string& key, Queue& queue, int64_t now_us);
  // The refused reply of `waiter` as things stand, behind the waiters ahead of it in `queue`.
  StatusOr<algorithms::Verdict> RefusalInQueue(const std::string& key, const Queue& queue,
                                               Queue::const_iterator waiter, int64_t now_us);
  // Brings the waiters' requests up to date with the policies; a waiter whose policy is gone
  // gets that error as its reply and leaves the queue.
  void RefreshCalls(Queue& queue);
  // When (server-clock us) the request would be served behind the waiters `ahead`, simulated
  // on the stored state; nullopt if never.
  StatusOr<std::optional<int64_t>> EstimateServeTimeUs(std::string_view key, WaiterRange ahead,
                                                       const LimiterCall& call, int64_t now_us);
  // The refused reply of `call` as things stand on `key`: the algorithm's own when nobody is
  // ahead of it (`first_in_line`) and it does not fit; else the key as a COST 0 peek sees it,
  // with the wait until `serve_at_us` (nullopt: never) as its retry_after.
  StatusOr<algorithms::Verdict> RefusalAsItStands(std::string_view key, const LimiterCall& call,
                                                  bool first_in_line,
                                                  std::optional<int64_t> serve_at_us,
                                                  int64_t now_us);
  void Finish(Waiter& waiter, const StatusOr<algorithms::Verdict>& reply, bool timed_out);

  storage::Engine** engine_;
  Answer answer_;
  Observe observe_;
  std::function<void()> on_change_;
  const PolicyRegistry* policies_;
  size_t max_waiters_per_key_;
  std::map<std::string, Queue, std::less<>> queues_;
  // Each queue's next look (server-clock us), and the queues in that order; a queue that
  // only a change of its key can serve is in neither.
  std::map<std::string, int64_t, std::less<>> due_us_;
  std::set<std::pair<int64_t, std::string>> by_due_;
  size_t waiting_ = 0;
  bool writes_held_ = false;
};

}  // namespace sluice::server
