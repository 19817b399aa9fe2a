#pragma once

// Everything one command execution sees: the server, the calling client, where to reply,
// and the time, read once so a command sees one instant (as Redis's cached command time).

#include <cstdint>

#include "resp/reply_builder.h"
#include "server/client.h"
#include "server/server_context.h"

namespace sluice::server {

struct CommandContext {
  ServerContext& server;
  Client& client;
  resp::ReplyBuilder& reply;
  int64_t now_us = 0;  // the server clock (the test clock under DEBUG CLOCK)
  // The time keys expire as of: now, or the start of the script or EXEC running the command,
  // so that all of it sees the same keys (Redis 7.0's fixed expiry time).
  int64_t now_ms = 0;
  // Set by a limiter command that reached its decision: the dispatcher, which times every
  // command, counts that time in the decision-latency histogram too (one clock pair a call).
  bool decided = false;

  storage::Engine& engine() const { return *server.engine; }
  // The server clock in ms, moving inside a script or EXEC too: what relative times (SET PX,
  // PEXPIRE, PTTL) count from, as Redis 7.0's mstime() in those commands.
  int64_t clock_ms() const { return now_us / 1000; }
};

}  // namespace sluice::server
