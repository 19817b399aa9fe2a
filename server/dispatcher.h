#pragma once

// Runs one command: every generic check happens here, once, before the handler (lookup,
// arity, authentication, DEBUG gating by flags), so network clients and, later, Lua's
// redis.call get identical behaviour.

#include "resp/reply_builder.h"
#include "server/client.h"
#include "server/command_table.h"
#include "server/server_context.h"

namespace sluice::server {

class Dispatcher {
 public:
  explicit Dispatcher(ServerContext& server) : server_(server) {}

  // Executes `args` (args[0] is the command name) for `client`, replying through `reply`.
  // Returns the command's table entry, or nullptr when it was refused before running.
  const CommandSpec* Dispatch(Client& client, Args args, resp::ReplyBuilder& reply);

 private:
  bool ProtectedAllowed(const Client& client) const;

  ServerContext& server_;
};

}  // namespace sluice::server
