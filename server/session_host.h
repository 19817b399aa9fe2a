#pragma once

// What a Session needs from the server: dispatching, group commit, limits and bookkeeping.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "resp/reply_builder.h"
#include "server/client.h"
#include "server/command_table.h"
#include "server/server_context.h"

namespace sluice::server {

class Session;

class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual ServerContext& context() = 0;
  virtual Dispatched Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) = 0;
  // A hint before a pipelined batch is dispatched: the keys it will look up (Engine::PrefetchKeys).
  virtual void PrefetchKeys(std::span<const std::string_view> keys) = 0;
  // Writes the staged batch to the WAL (syncing it under appendfsync always), and then
  // releases the expiry horizon.
  virtual Status CommitWrites() = 0;
  // A session's batch is answered with nothing left staged: compactions may take the clock's
  // time again, unless other writes are staged or a script runs (Engine::HoldExpiryHorizon).
  virtual void ReleaseExpiryHorizon() = 0;

  // Group commit across sessions. Commits are numbered; the writes staged now go to the WAL
  // with commit number NextCommitNumber(). A session that leaves staged writes behind yields
  // to the loop once, so the other sessions with input ready stage theirs too, and the first
  // one back commits them all with one WAL write (Session::CommitBatch).
  virtual bool HasStagedWrites() const = 0;
  virtual uint64_t NextCommitNumber() const = 0;
  // Whether the writes staged before commit `number` are no longer pending: committed (or
  // dropped by a failed commit, or discarded).
  virtual bool CommitDone(uint64_t number) const = 0;
  // Not ok if commit `number` was made and failed (ok for one not made yet).
  virtual Status CommitOutcome(uint64_t number) const = 0;
  virtual void OnSessionClosed(uint64_t client_id) = 0;
};

}  // namespace sluice::server
