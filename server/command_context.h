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
  int64_t now_us = 0;
  int64_t now_ms = 0;

  storage::Engine& engine() const { return *server.engine; }
};

}  // namespace sluice::server
