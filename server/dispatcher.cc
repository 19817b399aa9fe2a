#include "server/dispatcher.h"

#include <cctype>
#include <string>

#include "resp/error_messages.h"
#include "server/command_context.h"
#include "server/limiter_queues.h"

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

const CommandSpec* Dispatcher::Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) {
  const CommandSpec* spec = Admit(client, args, reply);
  if (spec == nullptr) {
    server_.stats.total_error_replies++;
    if (client.in_multi) client.multi_aborted = true;  // EXEC will answer EXECABORT
    return nullptr;
  }
  if (client.in_multi && !HasFlag(spec->flags, CommandFlags::kNoMulti)) {
    client.multi_queue.emplace_back(args.begin(), args.end());
    reply.Simple("QUEUED");
    return nullptr;
  }
  Execute(client, *spec, args, reply);
  return spec;
}

const CommandSpec* Dispatcher::Admit(const Client& client, Args args, resp::ReplyBuilder& reply) {
  const CommandSpec* spec = server_.commands->Find(args[0]);
  if (spec == nullptr) {
    reply.Error(Code::kErr, resp::UnknownCommand(args[0], args.subspan(1)));
    return nullptr;
  }
  if (!ArityMatches(spec->arity, args.size())) {
    reply.Error(Code::kErr, resp::WrongArity(spec->name));
    return nullptr;
  }
  if (!client.authenticated && !HasFlag(spec->flags, CommandFlags::kNoAuth)) {
    reply.Error(Code::kNoAuth, resp::kNoAuthMsg);
    return nullptr;
  }
  if (HasFlag(spec->flags, CommandFlags::kProtected) && !ProtectedAllowed(client)) {
    reply.Error(Code::kErr, ProtectedCommandError(spec->name));
    return nullptr;
  }
  // While RocksDB cannot write, writes (and PING, as Redis) are refused up front; reads go on.
  if ((HasFlag(spec->flags, CommandFlags::kWrite) || spec->name == "ping") &&
      server_.engine != nullptr) {
    Status background = server_.engine->BackgroundError();
    if (!background.ok()) {
      reply.Error(Code::kMisconf,
                  std::string(resp::kMisconfMsg) + " Cause: " + background.message());
      return nullptr;
    }
  }
  return spec;
}

void Dispatcher::Execute(Client& client, const CommandSpec& spec, Args args,
                         resp::ReplyBuilder& reply) {
  int64_t now_us = server_.clock->NowMicros();
  CommandContext ctx{server_, client, reply, now_us, now_us / 1000};
  client.last_command = spec.name;
  spec.handler(ctx, args);
  server_.stats.total_commands_processed++;
  if (HasFlag(spec.flags, CommandFlags::kWrite)) TouchKeys(spec, args, now_us);
}

bool Dispatcher::ProtectedAllowed(const Client& client) const {
  switch (server_.config->enable_debug_command) {
    case DebugCommandMode::kYes: return true;
    case DebugCommandMode::kLocal: return client.is_local;
    case DebugCommandMode::kNo: return false;
  }
  return false;
}

void Dispatcher::TouchKeys(const CommandSpec& spec, Args args, int64_t now_us) {
  bool limiter_waiters = server_.limiter_queues && server_.limiter_queues->waiting() > 0;
  if (spec.first_key <= 0 || (server_.watches.empty() && !limiter_waiters)) return;
  int argc = static_cast<int>(args.size());
  int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
  int step = spec.key_step > 0 ? spec.key_step : 1;
  for (int i = spec.first_key; i <= last && i < argc; i += step) {
    server_.watches.Touch(args[i]);
    // A written key may now let its BLOCK waiters through (DEL, RL.RESET, a refund...).
    if (limiter_waiters) server_.limiter_queues->Poke(args[i], now_us);
  }
}

}  // namespace sluice::server
