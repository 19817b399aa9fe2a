#pragma once

// DBSIZE on a key space too large to count on the loop thread (a third of a microsecond a key:
// seconds at ten million keys, during which no other client would be served). The clients
// that ask wait, blocked as in BLOCK, and one count on the engine's counter thread answers
// every client that asked before it started; those that ask while it runs go with the next
// one. Every count starts after its clients asked (their writes committed) and ends before
// they are answered, so each answer is the exact size of the key space at a moment between
// the request and its reply, as Redis's. A count is of one database: clients that asked about
// another wait for a round of their own.

#include <cstdint>
#include <functional>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "storage/engine.h"

namespace sluice::server {

class KeyCountRounds {
 public:
  using Counts = storage::Engine::KeyCounts;
  // Starts a count of database `db` as of `now_ms` that calls `done` on its own thread
  // (Engine::StartKeyCount).
  using StartCount =
      std::function<bool(int db, int64_t now_ms, storage::Engine::KeyCountDone done)>;
  // Called on the loop thread with each waiting client's answer.
  using Answer = std::function<void(uint64_t client_id, const StatusOr<Counts>& counts)>;
  // Runs a callable on the loop thread.
  using Post = std::function<void(std::function<void()>)>;

  KeyCountRounds(StartCount start, const Clock* clock, Answer answer, Post post)
      : start_(std::move(start)),
        clock_(clock),
        answer_(std::move(answer)),
        post_(std::move(post)) {}

  // The client waits for a count of database `db` that starts from now on; the caller has
  // committed its writes.
  void Request(uint64_t client_id, int db);
  // Answers every waiting client with `why` (shutdown); a count under way is dropped.
  void RefuseAll(const Status& why);
  size_t waiting() const { return next_round_.size() + this_round_.size(); }

 private:
  void StartRound();
  void OnRoundDone(const StatusOr<Counts>& counts);

  StartCount start_;
  const Clock* clock_;
  Answer answer_;
  Post post_;
  struct Asked {
    uint64_t client_id;
    int db;
  };
  std::vector<Asked> this_round_;  // the clients the running count answers
  std::vector<Asked> next_round_;  // the clients who asked while it runs (or about another db)
  bool counting_ = false;
};

}  // namespace sluice::server
