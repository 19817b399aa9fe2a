#pragma once

// Runs one command: every generic check happens here, once, before the handler (lookup,
// arity, authentication, DEBUG gating by flags, MULTI queueing), so network clients, EXEC
// and, later, Lua's redis.call get identical behaviour.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "resp/reply_builder.h"
#include "server/acl/check.h"
#include "server/client.h"
#include "server/command_table.h"
#include "server/recent_commands.h"
#include "server/server_context.h"

namespace sluice::server {

// CLIENT LIST's cmd=, as Redis's processCommand sets it: the command as looked up, before any
// refusal, queueing or hold by CLIENT PAUSE; "NULL" when unknown, an unknown subcommand
// included.
void NoteLastCommand(Client& client, const CommandSpec* spec, RequestSubcommand named);

class Dispatcher {
 public:
  explicit Dispatcher(ServerContext& server) : server_(server) {}

  // Executes `args` (args[0] is the command name) for `client`, replying through `reply`;
  // inside MULTI most commands are queued instead. Says whether a write request ran.
  Dispatched Dispatch(Client& client, Args args, resp::ReplyBuilder& reply);
  // Leaves MULTI (if in it), forgetting the queued commands and every WATCH.
  void DiscardTransaction(Client& client);
  // A write changed `key` (a DbKey; nullopt: every key, as FLUSHALL): BLOCK waiters that now
  // fit are served, after the script when one runs.
  void PokeWaiters(std::optional<std::string_view> key, int64_t now_us);
  // A write changed `key` in the selected database: it breaks its WATCHes, lets its BLOCK waiters
  // try again, and marks it ready for the clients blocked on it (BLPOP and kin), served once the
  // command, transaction or script that wrote it is over (BLMOVE's push when it is served, too).
  // `writer`: the client whose command wrote it (for client-side caching's NOLOOP).
  void KeyWritten(const Client& writer, std::string_view key, int64_t now_us);
  // SWAPDB traded databases a and b: the clients blocked on their keys, and BLOCK's waiters,
  // try again.
  void WakeAfterSwap(int a, int b, int64_t now_us);

 private:
  // The generic checks of a request naming `spec` (nullptr: an unknown command) and `named`;
  // on failure replies the error and returns false. A refused EXEC also discards the client's
  // transaction (Redis answers EXECABORT). Admit and Execute are Dispatch's alone, and inlined
  // into it: passed on as arguments, the request's command, subcommand and arguments went
  // through the stack, some 35 instructions a command (docs/performance.md).
  [[gnu::always_inline]] inline bool Admit(Client& client, const CommandSpec* spec,
                                           RequestSubcommand named, Args args,
                                           resp::ReplyBuilder& reply);
  // The table's entry for `name`, the recent commands' first.
  const CommandSpec* Lookup(std::string_view name);
  // The checks for a script's redis.call (the script gates); `spec` may be null.
  bool AdmitFromScript(const CommandSpec* spec, RequestSubcommand named, Args args,
                       resp::ReplyBuilder& reply);
  bool IsScriptClient(const Client& client) const;
  // Whether the default user needs no password now (Redis's authRequired, for a client that
  // did not authenticate).
  bool DefaultUserNeedsNoAuth() const;
  // Runs the request: the handler of `sub`, the subcommand it names, which Admit checked (a
  // container's handler would look it up again), else that of `spec`.
  [[gnu::always_inline]] inline void Execute(Client& client, const CommandSpec& spec,
                                             const Subcommand* sub, Args args,
                                             resp::ReplyBuilder& reply);
  bool ProtectedAllowed(const Client& client) const;
  // While RocksDB cannot write: -MISCONF with its cause; else ok.
  Status StorageRefusal() const;
  // Whether RocksDB reports a background error (StorageRefusal may still find it cleared).
  bool StorageFailing() const {
    return server_.engine != nullptr && server_.engine->HasBackgroundError();
  }
  // Whether a write-flagged command (or PING) meets that refusal up front, as Redis's
  // is_write_command decides: not EVAL, EVALSHA and FCALL, whose writes meet it in
  // redis.call, and EXEC only when a queued command writes. So read-only scripts and
  // transactions keep working.
  bool RefusedOnDiskError(const Client& client, const CommandSpec& spec);
  // After a write command: breaks the WATCH of the keys it names and lets their BLOCK waiters
  // try again, if it staged a write (the engine's count of staged writes moved since
  // `staged_writes_before`; nullopt: not counted, taken as written).
  void TouchKeys(const Client& client, const CommandSpec& spec, Args args, int64_t now_us,
                 std::optional<uint64_t> staged_writes_before);
  // By WATCH, by BLOCK waiters, by clients blocked on keys, or by client-side caching.
  bool KeysAreWatched() const;
  // After a read-only command while clients track keys: its keys are remembered for its client
  // (for a script's command, the script's declared keys for its caller, as Redis 7.0).
  void RememberReadKeys(Client& client, const CommandSpec& spec, Args args);
  // Who modified keys, for NOLOOP: the command's client, or a script's caller for the script's
  // commands.
  uint64_t WriterId(const Client& writer) const;
  // After a command that is not part of a transaction or script: the clients blocked on keys
  // it made ready are served, in Redis's order (server/key_waiters.h).
  void ServeKeyWaiters(int64_t now_us);
  bool WroteSince(std::optional<uint64_t> staged_writes_before) const;
  // The ACL's verdict on a restricted user's command, logged in ACL LOG when it refuses it.
  AclVerdict CheckAclLogged(const Client& client, const CommandSpec& spec, const Subcommand* sub,
                            Args args, std::string_view context);
  // ACL LOG's entry for a refusal, in `context` ("toplevel", "multi", "lua").
  void LogAclDenial(const Client& client, const AclVerdict& verdict, std::string full_name,
                    Args args, std::string_view context);
  // Writes a refusal and counts it (INFO errorstats).
  void ReplyRefusal(resp::ReplyBuilder& reply, Code code, std::string_view message);
  // INFO commandstats' rejected_calls and failed_calls. A rejection is counted under the
  // command and subcommand Dispatch looked up.
  void CountRejection(const CommandSpec* spec, RequestSubcommand named);
  void CountFailure(const CommandSpec& spec, const Subcommand* sub);
  void FeedMonitors(const Client& client, const CommandSpec& spec, const Subcommand* sub,
                    Args args);

  ServerContext& server_;
  RecentCommands recent_commands_;
  uint64_t errors_seen_ = 0;  // the error count when the last command ended
};

}  // namespace sluice::server
