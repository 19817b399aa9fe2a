#pragma once

// What a Session needs from the server: dispatching, group commit, limits and bookkeeping.

#include <cstdint>
#include <string>

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
  virtual const CommandSpec* Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) = 0;
  // Writes the staged batch to the WAL (syncing it under appendfsync always).
  virtual Status CommitWrites() = 0;
  virtual void OnSessionClosed(uint64_t client_id) = 0;
};

}  // namespace sluice::server
