#include "server/dispatcher.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "common/clock.h"
#include "common/cycle_clock.h"
#include "resp/error_messages.h"
#include "resp/error_prefix.h"
#include "server/acl/check.h"
#include "server/acl/registry.h"
#include "server/arg_cursor.h"
#include "server/commands/helpers.h"
#include "server/command_context.h"
#include "server/db_key.h"
#include "server/key_waiters.h"
#include "server/limiter_queues.h"

namespace sluice::server {
namespace {

std::string ProtectedCommandError(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper +
         " command not allowed. If the enable-debug-command option is set to \"local\", you "
         "can run it from a local connection, otherwise you need to set this option in the "
         "configuration file, and then restart the server.";
}

// While a script is busy, Redis allows the kAllowBusy commands, but of SCRIPT only KILL, of
// FUNCTION only KILL and STATS, and of SHUTDOWN only NOSAVE (their other forms answer -BUSY).
bool AllowedWhileBusy(const CommandSpec& spec, Args args) {
  if (!HasFlag(spec.flags, CommandFlags::kAllowBusy)) return false;
  if (spec.name == "script") return args.size() >= 2 && EqualsIgnoreCase(args[1], "kill");
  if (spec.name == "function") {
    return args.size() >= 2 && (EqualsIgnoreCase(args[1], "kill") || EqualsIgnoreCase(args[1], "stats"));
  }
  return true;  // SHUTDOWN answers BUSY itself, after reading its arguments
}

// A RESP2 connection with subscriptions reads only messages: it may send these alone, as Redis.
bool AllowedWhileSubscribed(const CommandSpec& spec) {
  constexpr std::string_view kAllowed[] = {
      "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe",
      "ping",      "quit",        "reset"};
  return std::find(std::begin(kAllowed), std::end(kAllowed), spec.name) != std::end(kAllowed);
}

}  // namespace

void NoteLastCommand(Client& client, const CommandSpec* spec, RequestSubcommand named) {
  const bool known = spec != nullptr && (!named.given || named.sub != nullptr);
  client.last_command = known ? spec->name : std::string_view("NULL");
  client.last_subcommand = known && named.sub != nullptr ? named.sub->name : std::string_view();
}

Dispatched Dispatcher::Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) {
  // The command and its subcommand are looked up once, here, for the checks, the counts and
  // the run. A container's subcommand is looked up with the command (Redis's lookupCommand),
  // so an unknown one or its wrong arity aborts a transaction at queue time.
  const CommandSpec* spec = Lookup(args[0]);
  const RequestSubcommand named = LookupRequestSubcommand(spec, args);
  if (!Admit(client, spec, named, args, reply)) {
    if (client.in_multi) client.multi_aborted = true;  // EXEC will answer EXECABORT
    CountRejection(spec, named);
    return {};
  }
  if (client.in_multi && !HasFlag(spec->flags, CommandFlags::kNoMulti)) {
    client.multi_queue.emplace_back(args.begin(), args.end());
    reply.Simple("QUEUED");
    return {};
  }
  Execute(client, *spec, named.sub, args, reply);
  // Clients blocked on the keys it wrote are served now, after the whole command (EXEC and EVAL
  // included), never in the middle of a transaction or script.
  if (server_.key_waiters != nullptr && server_.key_waiters->HasReady() && !client.in_exec &&
      !server_.script.active) {
    ServeKeyWaiters(server_.clock->NowMicros());
  }
  return {.writes = IsWriteRequest(*spec, named)};
}

bool Dispatcher::Admit(Client& client, const CommandSpec* spec, RequestSubcommand named, Args args,
                       resp::ReplyBuilder& reply) {
  // Every refusal below goes through here; it is Redis's rejectCommand.
  auto refuse = [&](const CommandSpec& refused, Code code, std::string_view message) {
    if (!HasFlag(refused.flags, CommandFlags::kRunsTransaction)) {
      ReplyRefusal(reply, code, message);
      return false;
    }
    // A refused EXEC discards its transaction and says why. Redis's own -ERR refusals
    // (rejectCommandFormat) carry no prefix in the reason.
    DiscardTransaction(client);
    std::string reason = "Transaction discarded because of: ";
    if (code != Code::kErr) reason.append(resp::ErrorPrefix(code)).append(" ");
    ReplyRefusal(reply, Code::kExecAbort, reason.append(message));
    return false;
  };
  // redis.call gets Redis's script texts and gates instead of the checks below.
  if (IsScriptClient(client)) return AdmitFromScript(spec, named, args, reply);
  const Subcommand* sub = named.sub;
  if (!client.in_exec) NoteLastCommand(client, spec, named);
  if (spec == nullptr) {
    ReplyRefusal(reply, Code::kErr, resp::UnknownCommand(args[0], args.subspan(1)));
    return false;
  }
  if (!ArityMatches(spec->arity, args.size())) {
    return refuse(*spec, Code::kErr, resp::WrongArity(spec->name));
  }
  if (named.given) {
    if (Status checked = CheckSubcommand(args, sub); !checked.ok()) {
      return refuse(*spec, Code::kErr, checked.message());
    }
  }
  // Protected commands before authentication, as Redis 7.0's processCommand.
  if (HasFlag(spec->flags, CommandFlags::kProtected) && !ProtectedAllowed(client)) {
    return refuse(*spec, Code::kErr, ProtectedCommandError(spec->name));
  }
  if (!client.authenticated && !HasFlag(spec->flags, CommandFlags::kNoAuth) &&
      !DefaultUserNeedsNoAuth()) {
    return refuse(*spec, Code::kNoAuth, resp::kNoAuthMsg);
  }
  if (client.in_multi && HasFlag(spec->flags, CommandFlags::kNotInMulti)) {
    return refuse(*spec, Code::kErr, resp::kNotInMulti);
  }
  // The ACL, as Redis after the authentication: a user that may do everything (the default)
  // costs this one branch. Inside MULTI a command is checked as it is queued, and again when
  // EXEC runs it (its user's rules may have changed since).
  if (!client.user->unrestricted) {
    const bool in_transaction = client.in_multi || client.in_exec;
    const AclVerdict verdict =
        CheckAclLogged(client, *spec, sub, args, in_transaction ? "multi" : "toplevel");
    if (!verdict.ok()) {
      return refuse(*spec, Code::kNoPerm,
                    client.in_exec ? AclDeniedInExecMessage(verdict)
                                   : AclDeniedMessage(verdict, *spec, sub));
    }
  }
  // While RocksDB cannot write, writes (and PING, as Redis) are refused up front; reads go on.
  // StorageFailing first: while the disk is well that is one virtual call and an atomic load,
  // and no Status is built.
  const bool refusable =
      IsWriteRequest(*spec, named) || HasFlag(spec->flags, CommandFlags::kRefusedOnDiskError);
  if (refusable && StorageFailing()) {
    if (Status refusal = StorageRefusal(); !refusal.ok() && RefusedOnDiskError(client, *spec)) {
      return refuse(*spec, refusal.code(), refusal.message());
    }
  }
  // Checked as a command arrives (EXEC runs what was queued before it subscribed), as Redis.
  if (client.protocol == resp::ProtocolVersion::kResp2 && client.Subscriptions() > 0 &&
      !client.in_exec && !AllowedWhileSubscribed(*spec)) {
    return refuse(*spec, Code::kErr,
                  "Can't execute '" + FullName(*spec, sub) +
                      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                      "allowed in this context");
  }
  if (server_.script.busy && !AllowedWhileBusy(*spec, args)) {
    return refuse(*spec, Code::kBusy, server_.script.BusyMessage());
  }
  // A monitor is a replica to Redis, which keeps replicas' hands off the key space.
  if (client.monitor && (HasFlag(spec->flags, CommandFlags::kWrite) ||
                         HasFlag(spec->flags, CommandFlags::kReadOnly))) {
    return refuse(*spec, Code::kErr, "Replica can't interact with the keyspace");
  }
  return true;
}

bool Dispatcher::DefaultUserNeedsNoAuth() const {
  // As Redis's authRequired: a client that connected while the default user needed a password
  // is let through once it needs none again (CONFIG SET requirepass "").
  return server_.acl != nullptr && server_.acl->DefaultNeedsNoAuth();
}

const CommandSpec* Dispatcher::Lookup(std::string_view name) {
  if (const CommandSpec* recent = recent_commands_.Find(name)) return recent;
  const CommandSpec* spec = server_.commands->Find(name);
  if (spec != nullptr) recent_commands_.Add(name, spec);
  return spec;
}

// Redis's scriptCall: unknown command, arity, noscript, then the write gates; a write that
// passes them marks the script as written (SCRIPT KILL refuses it from then on).
bool Dispatcher::AdmitFromScript(const CommandSpec* spec, RequestSubcommand named, Args args,
                                 resp::ReplyBuilder& reply) {
  if (spec == nullptr) {
    ReplyRefusal(reply, Code::kErr, resp::kScriptUnknownCommand);
    return false;
  }
  const Subcommand* sub = named.sub;
  if (named.given) {
    if (sub == nullptr) {
      ReplyRefusal(reply, Code::kErr, resp::kScriptUnknownCommand);
      return false;
    }
    if (!ArityMatches(sub->arity, args.size())) {
      ReplyRefusal(reply, Code::kErr, resp::kScriptWrongArity);
      return false;
    }
  }
  if (!ArityMatches(spec->arity, args.size())) {
    ReplyRefusal(reply, Code::kErr, resp::kScriptWrongArity);
    return false;
  }
  if (HasFlag(spec->flags, CommandFlags::kNoScript)) {
    ReplyRefusal(reply, Code::kErr, resp::kScriptNoScriptCommand);
    return false;
  }
  // The script runs as its caller's user (the script client carries it).
  const Client& script_client = *server_.script.client;
  if (!script_client.user->unrestricted) {
    const AclVerdict verdict = CheckAclLogged(script_client, *spec, sub, args, "lua");
    if (!verdict.ok()) {
      ReplyRefusal(reply, Code::kErr, AclDeniedScriptMessage(verdict));
      return false;
    }
  }
  if (HasFlag(spec->flags, CommandFlags::kMayReplicate) && server_.script.read_only) {
    ReplyRefusal(reply, Code::kErr, resp::kScriptWriteInReadOnly);
    return false;
  }
  if (HasFlag(spec->flags, CommandFlags::kWrite)) {
    if (server_.script.read_only) {
      ReplyRefusal(reply, Code::kErr, resp::kScriptWriteInReadOnly);
      return false;
    }
    if (Status refusal = StorageRefusal(); !refusal.ok()) {
      ReplyRefusal(reply, refusal.code(), refusal.message());
      return false;
    }
    server_.script.wrote = true;
  }
  return true;
}

Status Dispatcher::StorageRefusal() const {
  if (!StorageFailing()) return Status::Ok();
  Status background = server_.engine->BackgroundError();
  if (background.ok()) return Status::Ok();
  return {Code::kMisconf, std::string(resp::kMisconfMsg) + " Cause: " + background.message()};
}

bool Dispatcher::RefusedOnDiskError(const Client& client, const CommandSpec& spec) {
  // A script's writes are refused as they run, not the script.
  if (HasFlag(spec.flags, CommandFlags::kRunsScript)) return false;
  if (!HasFlag(spec.flags, CommandFlags::kRunsTransaction)) return true;
  return std::any_of(client.multi_queue.begin(), client.multi_queue.end(),
                     [&](const std::vector<std::string>& queued) {
                       const CommandSpec* each = Lookup(queued.front());
                       return each != nullptr && HasFlag(each->flags, CommandFlags::kWrite) &&
                              RefusedOnDiskError(client, *each);
                     });
}

void Dispatcher::DiscardTransaction(Client& client) {
  client.in_multi = false;
  client.multi_aborted = false;
  client.multi_queue.clear();
  server_.watches.UnwatchAll(&client);
}

bool Dispatcher::IsScriptClient(const Client& client) const {
  return server_.script.active && &client == server_.script.client;
}

void Dispatcher::Execute(Client& client, const CommandSpec& spec, const Subcommand* sub, Args args,
                         resp::ReplyBuilder& reply) {
  // Before the time is read: compactions drop nothing that expires after it until the batch
  // is committed.
  if (server_.engine != nullptr) server_.engine->HoldExpiryHorizon();
  int64_t now_us = server_.clock->NowMicros();
  // Inside a script or EXEC keys expire as of its start, so all of it sees the same keys, as
  // Redis 7.0's fixed expiry time (TIME and the limiters' clock still move).
  int64_t now_ms = IsScriptClient(client) ? server_.script.start_ms
                   : client.in_exec       ? client.exec_start_ms
                                          : now_us / 1000;
  CommandContext ctx{server_, client, reply, now_us, now_ms};
  // Every command works in its client's database (a script's SELECT changes its own client's).
  if (server_.engine != nullptr) {
    if (Status selected = server_.engine->SelectDatabase(client.db); !selected.ok()) {
      ReplyCountedError(server_.stats.errors, reply, selected);
      return;
    }
  }
  const bool shown_before = HasFlag(spec.flags, CommandFlags::kSkipMonitor);
  if (shown_before) FeedMonitors(client, spec, sub, args);
  const bool write = HasFlag(spec.flags, CommandFlags::kWrite);
  // Counted only when a touch can matter, so a write nobody watches asks the engine nothing.
  const std::optional<uint64_t> writes_before =
      write && KeysAreWatched() && server_.engine != nullptr
          ? std::optional<uint64_t>(server_.engine->StagedWriteCount())
          : std::nullopt;
  // Redis counts keyspace hits and misses in its read lookups: those of read-only commands
  // (and the few reads of write commands that say so, LookupCounting).
  const bool counting_before =
      std::exchange(server_.stats.keyspace.on, HasFlag(spec.flags, CommandFlags::kReadOnly));
  const uint64_t started = CycleClock::Now();
  if (sub != nullptr) {
    sub->handler(ctx, args);
  } else {
    spec.handler(ctx, args);
  }
  const uint64_t nanos = CycleClock::NanosSince(started);
  if (ctx.decided) server_.ops.decision_latency.Observe(nanos);
  // Back from a script's (or EXEC's) SELECTs: what follows concerns this client's keys.
  if (server_.engine != nullptr) (void)server_.engine->SelectDatabase(client.db);
  server_.stats.keyspace.on = counting_before;
  server_.stats.total_commands_processed++;
  server_.ops.CountCall(spec, sub, nanos, server_.config->latency_tracking);
  server_.latency.AddIfNeeded(HasFlag(spec.flags, CommandFlags::kFast) ? "fast-command" : "command",
                              nanos, server_.config->latency_monitor_threshold, *server_.clock);
  CountFailure(spec, sub);
  if (!HasFlag(spec.flags, CommandFlags::kSkipSlowLog)) {
    const SlowCall call{.command = spec.name,
                        .duration_us = static_cast<int64_t>(nanos / 1000),
                        .unix_seconds = now_us / 1'000'000,
                        .peer = client.addr,
                        .client_name = client.name,
                        .from_script = IsScriptClient(client)};
    server_.slow_log.MaybePush(args, call, server_.config->slowlog_log_slower_than,
                               static_cast<uint64_t>(server_.config->slowlog_max_len));
  }
  // A read pays no test for client-side caching when no client tracks keys: the write test
  // takes it in.
  const bool tracking = server_.tracking.clients() != 0;
  if (write | tracking) {
    if (write) {
      TouchKeys(client, spec, args, now_us, writes_before);
    } else if (HasFlag(spec.flags, CommandFlags::kReadOnly)) {
      RememberReadKeys(client, spec, args);
    }
  }
  if (!shown_before) FeedMonitors(client, spec, sub, args);
}

void Dispatcher::RememberReadKeys(Client& client, const CommandSpec& spec, Args args) {
  if (IsScriptClient(client)) {
    // Redis 7.0 looks up the keys of its caller's command, EVAL or FCALL: the declared keys.
    if (Client* caller = server_.tracking.TrackedClient(server_.script.caller_id)) {
      server_.tracking.RememberKeys(*caller, server_.script.keys);
    }
    return;
  }
  // A client whose reads are not remembered (most, when one client tracks) costs one test.
  Tracking& tracking = server_.tracking;
  if (!tracking.RemembersReads(client)) return;
  // The read-only scripts remember only what their commands read, as Redis.
  if (HasFlag(spec.flags, CommandFlags::kRunsScript)) return;
  if (spec.first_key > 0) {
    const KeyRange range = RangeKeys(spec, args.size());
    for (int i = range.first; i <= range.last; i += range.step) {
      tracking.RememberKey(client, args[i]);
    }
  }
  if (HasFlag(spec.flags, CommandFlags::kMovableKeys)) {
    for (std::string_view key : CountedKeys(spec, args)) tracking.RememberKey(client, key);
  }
}

uint64_t Dispatcher::WriterId(const Client& writer) const {
  return IsScriptClient(writer) ? server_.script.caller_id : writer.id;
}

void Dispatcher::FeedMonitors(const Client& client, const CommandSpec& spec, const Subcommand* sub,
                              Args args) {
  // Administrative commands (CONFIG, DEBUG, CLIENT KILL, MONITOR itself...) are never shown,
  // as in Redis.
  if (server_.monitors.empty() || HasFlag(spec.flags, CommandFlags::kAdmin)) return;
  if (sub != nullptr && sub->admin) return;
  // The wall clock, as Redis's: the lines are a log, also while the test clock is frozen.
  server_.monitors.Feed(client, IsScriptClient(client), args, SystemClock().NowMicros());
}

AclVerdict Dispatcher::CheckAclLogged(const Client& client, const CommandSpec& spec,
                                      const Subcommand* sub, Args args,
                                      std::string_view context) {
  const AclVerdict verdict = CheckAcl(*client.user, server_.acl->ids(), spec, sub, args);
  if (!verdict.ok()) LogAclDenial(client, verdict, FullName(spec, sub), args, context);
  return verdict;
}

void Dispatcher::LogAclDenial(const Client& client, const AclVerdict& verdict,
                              std::string full_name, Args args, std::string_view context) {
  // A script's refusal is logged with its caller's connection, as Redis.
  const Client* shown = &client;
  if (IsScriptClient(client) && server_.actions != nullptr) {
    for (const Client* each : server_.actions->ListClients()) {
      if (each->id == server_.script.caller_id) shown = each;
    }
  }
  const int64_t now_ms = server_.clock->NowMicros() / 1000;
  AclLogEntry entry{.reason = std::string(AclDeniedReason(verdict)),
                    .context = std::string(context),
                    .object = verdict.denied == AclVerdict::Denied::kCommand
                                  ? std::move(full_name)
                                  : std::string(args[verdict.arg]),
                    .username = client.user->name,
                    .created_ms = now_ms,
                    .client_info = DescribeClient(*shown, now_ms)};
  server_.acl->log.Add(std::move(entry));
}

void Dispatcher::ReplyRefusal(resp::ReplyBuilder& reply, Code code, std::string_view message) {
  ReplyCountedError(server_.stats.errors, reply, Status(code, std::string(message)));
}

// Redis's incrCommandStatsOnError: a command (or subcommand) that was looked up and then
// refused is rejected; one that ran and added to the error count since the last command ended
// (inner commands of EXEC and scripts included) failed.
void Dispatcher::CountRejection(const CommandSpec* spec, RequestSubcommand named) {
  const bool counted = server_.stats.errors.total() > errors_seen_;  // (RESETSTAT lowers it)
  errors_seen_ = server_.stats.errors.total();
  // An unknown subcommand is no entry of the stats, as an unknown command.
  if (spec == nullptr || !counted || (named.given && named.sub == nullptr)) return;
  server_.ops.CountRejected(*spec, named.sub);
}

void Dispatcher::CountFailure(const CommandSpec& spec, const Subcommand* sub) {
  const bool repeated_error = server_.stats.errors.TakeRepeated();
  const bool failed = server_.stats.errors.total() > errors_seen_ || repeated_error;
  errors_seen_ = server_.stats.errors.total();
  if (failed) server_.ops.CountFailed(spec, sub);
}

bool Dispatcher::KeysAreWatched() const {
  return !server_.watches.empty() || server_.tracking.Active() ||
         (server_.limiter_queues != nullptr && server_.limiter_queues->waiting() > 0) ||
         (server_.key_waiters != nullptr && server_.key_waiters->size() > 0);
}

bool Dispatcher::WroteSince(std::optional<uint64_t> writes_before) const {
  // Not counted (nobody watched before the command; it may have parked a BLOCK waiter), or no
  // engine (the dispatcher's unit tests): every write command counts as a change.
  return !writes_before || server_.engine == nullptr ||
         server_.engine->StagedWriteCount() != *writes_before;
}

bool Dispatcher::ProtectedAllowed(const Client& client) const {
  switch (server_.config->enable_debug_command) {
    case DebugCommandMode::kYes: return true;
    case DebugCommandMode::kLocal: return client.is_local;
    case DebugCommandMode::kNo: return false;
  }
  return false;
}

void Dispatcher::TouchKeys(const Client& client, const CommandSpec& spec, Args args, int64_t now_us,
                           std::optional<uint64_t> staged_writes_before) {
  const bool movable = HasFlag(spec.flags, CommandFlags::kMovableKeys);
  if ((spec.first_key <= 0 && !movable) || !KeysAreWatched()) return;
  // As Redis's signalModifiedKey, only a write that changed something breaks a WATCH (a DEL of
  // a missing key, a ZREMRANGEBYSCORE that removed nothing, a WRONGTYPE error do not).
  if (!WroteSince(staged_writes_before)) return;
  const bool counted = staged_writes_before && server_.engine != nullptr;
  auto written = [&](std::string_view key) {
    return server_.engine->KeyWrittenSince(key, *staged_writes_before);
  };
  if (spec.first_key > 0) {
    const KeyRange range = RangeKeys(spec, args.size());
    // A command that names several keys touches the ones whose record it wrote (DEL a b with
    // only a present, COPY's source, GEORADIUS's source beside its STORE key). Every multi-key
    // write rewrites or deletes the record of each key it changes; a one-key write may change a
    // hash field alone, and is its key's. A command that finds more keys itself (SORT ... STORE)
    // names several too.
    const bool several_keys =
        range.several() || spec.key_finder != nullptr || !spec.keyword_keys.empty();
    const bool per_key = several_keys && counted;
    auto touch = [&](int i) {
      if (!per_key || written(args[i])) KeyWritten(client, args[i], now_us);
    };
    if (HasFlag(spec.flags, CommandFlags::kListMove)) {
      // The push's key before the pop's, as Redis signals them (the order invalidations
      // reach a client that tracks both).
      touch(range.first + 1);
      touch(range.first);
    } else {
      for (int i = range.first; i <= range.last; i += range.step) touch(i);
    }
  }
  // The keys after a count: the ones written (the list LMPOP popped; EVAL's, whose commands
  // touched them already).
  if (movable) {
    for (std::string_view key : CountedKeys(spec, args)) {
      if (counted && !written(key)) continue;
      KeyWritten(client, key, now_us);
    }
  }
}

void Dispatcher::KeyWritten(const Client& writer, std::string_view key, int64_t now_us) {
  const int db = server_.engine != nullptr ? server_.engine->database() : 0;
  server_.watches.Touch(db, key);
  if (server_.tracking.Active()) server_.tracking.KeyModified(key, WriterId(writer));
  const bool limiter_waiters =
      server_.limiter_queues != nullptr && server_.limiter_queues->waiting() > 0;
  const bool key_waiters = server_.key_waiters != nullptr && server_.key_waiters->size() > 0;
  if (!limiter_waiters && !key_waiters) return;
  const std::string qualified = DbKey(db, key);
  // A written key may now let its BLOCK waiters through (DEL, RL.RESET, a refund...).
  if (limiter_waiters) PokeWaiters(qualified, now_us);
  if (key_waiters) server_.key_waiters->Signal(qualified);
}

void Dispatcher::WakeAfterSwap(int a, int b, int64_t now_us) {
  if (server_.key_waiters != nullptr) {
    for (const std::string& qualified : server_.key_waiters->Keys()) {
      const int db = SplitDbKey(qualified).db;
      if (db == a || db == b) server_.key_waiters->Signal(qualified);
    }
  }
  PokeWaiters(std::nullopt, now_us);
}

void Dispatcher::ServeKeyWaiters(int64_t now_us) {
  const int64_t now_ms = now_us / 1000;
  server_.key_waiters->ServeReady(
      [&](const KeyWaiters::Waiter& waiter, std::string_view qualified) -> KeyWaiters::Outcome {
        const InKeysDatabase in_its_database(*server_.engine, qualified);
        const std::string_view key = in_its_database.key();
        auto meta = server_.engine->GetMetadata(key, now_ms);
        // (A read error leaves the waiters waiting, as for a key that holds nothing.)
        if (!meta.ok() || !meta->has_value()) return KeyWaiters::Outcome::kKeyEmpty;
        // Redis 7.0 serves only the clients that pop what the key holds; the others wait on.
        if ((*meta)->type != waiter.type) return KeyWaiters::Outcome::kNotServed;
        server_.actions->AnswerBlocked(waiter.client_id, [&](resp::ReplyBuilder& reply) {
          CommandContext ctx{server_, *waiter.client, reply, now_us, now_ms};
          waiter.serve(ctx, key);
        });
        server_.watches.Touch(in_its_database.db(), key);  // the pop is a write of its own
        // Tracking heard of the key from the push that readied it, as Redis 7.0 signals it
        // once: noting the pop too would make it the waiter's own write (NOLOOP's).
        return KeyWaiters::Outcome::kServed;
      });
}

void Dispatcher::PokeWaiters(std::optional<std::string_view> key, int64_t now_us) {
  if (server_.limiter_queues == nullptr) return;
  if (server_.script.active) {  // a script's writes let them through once it is over
    if (key) {
      server_.script.poked_keys.emplace_back(*key);
    } else {
      server_.script.poked_all = true;
    }
  } else if (key) {
    server_.limiter_queues->Poke(*key, now_us);
  } else {
    server_.limiter_queues->PokeAll(now_us);
  }
}

}  // namespace sluice::server
