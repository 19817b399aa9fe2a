#pragma once

// Clients blocked on keys (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX,
// BZMPOP), as Redis 7.0's blocking_keys and ready_keys, and clients that only wait for their
// deadline (WAIT: no replica will ever acknowledge). Each waiting client names one or more
// keys and a deadline. A write to a key someone waits on marks it ready (Signal); once the
// command, transaction or script that wrote it is over, the dispatcher serves the ready keys in
// the order they were signalled, each key's clients in the order they blocked, until the key
// has nothing left (ServeReady). Serving may write other keys (BLMOVE's destination), which are
// served in the same pass. Deadlines are server-clock ms (the test clock included): the server
// arms one timer for NextDeadlineMs() and answers TakeExpired()'s clients with a timeout.
// No Asio and no storage here, so the queue logic is testable on its own; what serving does is
// each waiter's `serve` and the caller's TryServe.

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/record.h"

namespace sluice::server {

struct Client;
struct CommandContext;

class KeyWaiters {
 public:
  static constexpr int64_t kForever = INT64_MAX;

  // Pops from `key` (which holds a value of the waiter's type) for the waiting client and
  // writes its reply through `ctx`, as the command would have at once.
  using ServeFn = std::function<void(CommandContext& ctx, std::string_view key)>;

  // What a waiter is answered when its deadline passes or CLIENT UNBLOCK ends its wait.
  enum class TimeoutReply {
    kNullArray,  // the pops: nothing came
    kZero,       // WAIT: no replica acknowledged
  };

  struct Waiter {
    Client* client = nullptr;  // lives until the session closes, which removes the waiter first
    uint64_t client_id = 0;
    std::vector<std::string> keys;  // DbKeys (server/db_key.h), distinct, in argument order; none for WAIT
    int64_t deadline_ms = kForever;
    storage::KeyType type = storage::KeyType::kList;  // what it pops: a list or a sorted set
    ServeFn serve;
    TimeoutReply timeout_reply = TimeoutReply::kNullArray;
  };

  struct Expired {
    uint64_t client_id;
    TimeoutReply reply;
  };

  // What became of one try to serve a waiter from a ready key.
  enum class Outcome {
    kServed,     // answered: it leaves every queue
    kNotServed,  // the key holds nothing for this waiter (another type): the next one is tried
    kKeyEmpty,   // the key holds nothing at all: its remaining waiters keep waiting
  };
  using TryServe = std::function<Outcome(const Waiter& waiter, std::string_view key)>;

  // `on_deadlines_changed` is called when the earliest deadline may have moved.
  explicit KeyWaiters(std::function<void()> on_deadlines_changed = {})
      : on_deadlines_changed_(std::move(on_deadlines_changed)) {}

  // Parks a client (not already waiting) on its keys; duplicate keys count once.
  void Block(Waiter waiter);
  // Forgets the client (answered by a timeout or CLIENT UNBLOCK, or gone): what its timeout
  // answers, or nothing if it was not waiting.
  std::optional<TimeoutReply> Remove(uint64_t client_id);
  bool IsWaiting(uint64_t client_id) const { return waiters_.count(client_id) > 0; }
  bool HasWaiters(std::string_view key) const { return by_key_.find(key) != by_key_.end(); }
  // Every key someone waits on.
  std::vector<std::string> Keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, queue] : by_key_) keys.push_back(key);
    return keys;
  }

  // A write changed `key`: if someone waits on it, it is ready to be served (once, however
  // often it is signalled before ServeReady).
  void Signal(std::string_view key);
  bool HasReady() const { return !ready_.empty(); }
  // Serves the ready keys in the order they were signalled; keys signalled meanwhile are
  // served too. `try_serve` must not call Block or Remove.
  void ServeReady(const TryServe& try_serve);

  // Removes and returns the clients whose deadline is at or before `now_ms`, earliest first.
  std::vector<Expired> TakeExpired(int64_t now_ms);
  // The earliest deadline; nullopt when nobody waits with one.
  std::optional<int64_t> NextDeadlineMs() const;
  size_t size() const { return waiters_.size(); }
  // How many wait with a deadline (INFO's clients_in_timeout_table).
  size_t WithDeadline() const { return deadlines_.size(); }

 private:
  using Queue = std::list<uint64_t>;  // client ids in the order they blocked
  struct Entry {
    Waiter waiter;
    std::vector<Queue::iterator> places;  // its place in each key's queue, as waiter.keys
  };

  void Unlink(Entry& entry);
  void DeadlinesChanged() {
    if (on_deadlines_changed_) on_deadlines_changed_();
  }

  std::function<void()> on_deadlines_changed_;
  std::unordered_map<uint64_t, Entry> waiters_;
  std::map<std::string, Queue, std::less<>> by_key_;
  std::set<std::pair<int64_t, uint64_t>> deadlines_;  // (deadline_ms, client id), kForever left out
  std::vector<std::string> ready_;                    // signalled, not served yet
  std::set<std::string, std::less<>> ready_set_;
};

}  // namespace sluice::server
