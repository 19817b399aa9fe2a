#include "server/dispatcher.h"

#include <cctype>
#include <string>

#include "resp/error_messages.h"
#include "server/command_context.h"

namespace sluice::server {
namespace {

bool ArityMatches(int arity, size_t argc) {
  return arity > 0 ? argc == static_cast<size_t>(arity) : argc >= static_cast<size_t>(-arity);
}

std::string ProtectedCommandError(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper +
         " command not allowed. If the enable-debug-command option is set to \"local\", you "
         "can run it from a local connection, otherwise you need to set this option in the "
         "configuration file, and then restart the server.";
}

}  // namespace

bool Dispatcher::ProtectedAllowed(const Client& client) const {
  switch (server_.config->enable_debug_command) {
    case DebugCommandMode::kYes: return true;
    case DebugCommandMode::kLocal: return client.is_local;
    case DebugCommandMode::kNo: return false;
  }
  return false;
}

const CommandSpec* Dispatcher::Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) {
  ServerStats& stats = server_.stats;
  const CommandSpec* spec = server_.commands->Find(args[0]);
  if (spec == nullptr) {
    stats.total_error_replies++;
    reply.Error(Code::kErr, resp::UnknownCommand(args[0], args.subspan(1)));
    return nullptr;
  }
  if (!ArityMatches(spec->arity, args.size())) {
    stats.total_error_replies++;
    reply.Error(Code::kErr, resp::WrongArity(spec->name));
    return nullptr;
  }
  if (!client.authenticated && !HasFlag(spec->flags, CommandFlags::kNoAuth)) {
    stats.total_error_replies++;
    reply.Error(Code::kNoAuth, resp::kNoAuthMsg);
    return nullptr;
  }

  if (HasFlag(spec->flags, CommandFlags::kProtected) && !ProtectedAllowed(client)) {
    stats.total_error_replies++;
    reply.Error(Code::kErr, ProtectedCommandError(spec->name));
    return nullptr;
  }

  int64_t now_us = server_.clock->NowMicros();
  CommandContext ctx{server_, client, reply, now_us, now_us / 1000};
  client.last_command = spec->name;
  spec->handler(ctx, args);
  stats.total_commands_processed++;
  return spec;
}

}  // namespace sluice::server
