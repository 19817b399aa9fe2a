#pragma once

// What command handlers may reach of the server: storage, the clock, configuration, the
// command table, statistics and a few server-level actions. Handlers get it through their
// CommandContext, never through globals; it has no Asio types, so command files stay light.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "resp/error_messages.h"
#include "resp/reply_builder.h"
#include "server/client_pause.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/latency_monitor.h"
#include "server/metrics/buffer_peaks.h"
#include "server/metrics/error_stats.h"
#include "server/metrics/instantaneous_rate.h"
#include "server/metrics/memory_marks.h"
#include "server/metrics/ops_stats.h"
#include "server/monitor_feed.h"
#include "server/policy_registry.h"
#include "server/pubsub.h"
#include "server/scan_cursors.h"
#include "server/slow_log.h"
#include "server/tracking.h"
#include "server/watch_registry.h"
#include "storage/engine.h"

namespace sluice::server {

struct Client;
class AclRegistry;
class Dispatcher;
class KeyWaiters;
class LimiterQueues;
class ScriptBridge;

// The script EVAL is running, if any (one at a time), as the dispatcher's gates and the
// server's busy mode see it (scripting: server/script_bridge.h).
struct ScriptRun {
  bool active = false;      // a script runs; its redis.call come from `client`
  bool busy = false;        // past lua-time-limit: other clients get -BUSY
  bool read_only = false;   // EVAL_RO / EVALSHA_RO / a no-writes shebang: writes refused
  bool wrote = false;       // a write command was admitted: SCRIPT KILL answers -UNKILLABLE
  const Client* client = nullptr;  // the script's own client
  uint64_t caller_id = 0;   // the client that sent EVAL
  int64_t start_ms = 0;     // keys expire as of this instant for the whole script, as Redis
  std::vector<std::string> poked_keys;  // written keys with BLOCK waiters, served after it
  bool poked_all = false;               // FLUSHALL ran: every BLOCK queue is served after it
  // FCALL: the function and the whole command (FUNCTION STATS); empty for EVAL.
  std::string_view function_name;
  // The -BUSY text while it runs past lua-time-limit: a script's, or a function's.
  std::string_view BusyMessage() const {
    return function_name.empty() ? resp::kBusyMsg : resp::kBusyFunctionMsg;
  }
  Args command;
  // The keys EVAL or FCALL declared: what client-side caching remembers for its caller when the
  // script runs a read-only command, as Redis 7.0 (server/tracking.h).
  Args keys;
};

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_commands_processed = 0;
  ErrorStats errors;  // total_error_replies and errorstats
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  // Steps of the active expiry cycle that ran, and that CLIENT PAUSE skipped (sluice's own
  // INFO fields: events a test can wait for).
  uint64_t expire_cycle_steps_run = 0;
  uint64_t expire_cycle_steps_paused = 0;
  storage::LookupCounter keyspace;  // keyspace_hits, keyspace_misses and expired_keys
  uint64_t wal_commits = 0;
  uint64_t wal_syncs = 0;
  uint64_t failed_commits = 0;
};

enum class ShutdownMode { kDefault, kSave, kNoSave };

// Server-level actions the command layer can ask for; implemented by Server.
class ServerActions {
 public:
  virtual ~ServerActions() = default;
  // Every client, by id (CLIENT LIST's order).
  virtual std::vector<const Client*> ListClients() const = 0;
  // Every client in no set order: INFO's sums, which ioredis asks for at every connect, so
  // that a herd of N reconnects costs N visits each, not N sorts.
  virtual void VisitClients(const std::function<void(const Client&)>& visit) const = 0;
  // Closes the connection with that id after its current batch; false if none.
  virtual bool KillClient(uint64_t id) = 0;
  virtual size_t ConnectedClients() const = 0;
  // Stops accepting, finishes in-flight replies, syncs the WAL, closes RocksDB, exits 0.
  virtual void RequestShutdown(ShutdownMode mode) = 0;
  // Apply a configuration change that needs more than a field update (loglevel, a higher
  // maxclients). On an error the caller restores `previous` and replies the error.
  virtual Status OnConfigChanged(const Config& previous) = 0;
  // SAVE (background false: done before returning) and BGSAVE (made on another thread; the
  // Persistence state below shows when it ends): a RocksDB checkpoint under `dir`, with the
  // staged writes committed first. Never called inside MULTI/EXEC, whose writes go to the log
  // as one batch (SAVE is refused there, BGSAVE scheduled). An error if a BGSAVE is running.
  virtual Status Save(bool background) = 0;
  // DEBUG CLOCK moved time: wake what waits on it.
  virtual void OnClockChanged() = 0;
  // DBSIZE of a large key space: commits the staged writes, then counts off the loop thread
  // and answers the client (blocked meanwhile) with the number of keys. Never inside
  // MULTI/EXEC or a script, which count on the spot.
  virtual void CountKeysInBackground(uint64_t client_id) = 0;
  // Answers a client that waits (blocked on keys, in BLOCK, or for a DBSIZE count) with what
  // `reply` writes, and lets its session go on; nothing if it has gone.
  virtual void AnswerBlocked(uint64_t client_id,
                             const std::function<void(resp::ReplyBuilder&)>& reply) = 0;
  // CLIENT UNBLOCK: answers a client blocked on keys or in BLOCK as its timeout would (or with
  // -UNBLOCKED when `error`); false if it waits for neither.
  virtual bool UnblockClient(uint64_t client_id, bool error) = 0;
  // CLIENT PAUSE: holds the requests `mode` covers until `end_ms` on the server clock (a
  // pause already in force keeps the stricter mode and the later end).
  virtual void StartClientPause(PauseMode mode, int64_t end_ms) = 0;
  // CLIENT UNPAUSE, or a pause's end time reached: the held requests run.
  virtual void EndClientPause() = 0;
};

struct ServerContext {
  storage::Engine* engine = nullptr;
  FreezableClock* clock = nullptr;
  Config* config = nullptr;
  const CommandTable* commands = nullptr;
  AclRegistry* acl = nullptr;  // users, AUTH, ACL LOG
  ServerActions* actions = nullptr;
  ClientPause pause;  // CLIENT PAUSE
  ServerStats stats;
  std::string run_id;       // 40 hex chars, as Redis
  std::string executable;   // INFO executable
  std::string config_file;  // INFO config_file
  int64_t start_time_us = 0;
  int tcp_port = 0;         // the port actually bound (port 0 in config picks none)
  int64_t last_save_unix = 0;
  // SAVE / BGSAVE checkpoints and the state of the write-ahead log (INFO persistence).
  struct Persistence {
    bool bgsave_in_progress = false;
    bool bgsave_scheduled = false;  // BGSAVE inside EXEC: starts at the next cron tick
    bool last_bgsave_ok = true;
    int64_t last_bgsave_seconds = -1;
    std::string last_checkpoint;    // path of the newest checkpoint made by this process
    bool last_commit_failed = false;  // the last WAL write failed (aof_last_write_status)
    // BGREWRITEAOF: a flush asked for, until it is seen finished; and how many were asked.
    bool log_rewrite_requested = false;
    uint64_t log_rewrites = 0;
  } persistence;
  uint64_t next_client_id = 1;
  ScanCursors scan_cursors;
  std::string random_key_after;  // RANDOMKEY: where its last page of the key space ended
  WatchRegistry watches;
  Dispatcher* dispatcher = nullptr;  // EXEC runs its queued commands through it
  LimiterQueues* limiter_queues = nullptr;  // BLOCK
  KeyWaiters* key_waiters = nullptr;        // BLPOP and the other blocking pops
  PolicyRegistry policies;
  LimiterCounters limiter_totals;
  OpsStats ops;  // per-command and per-algorithm counters, decision latency (/metrics)
  InstantaneousRates rates;  // INFO's instantaneous_* fields, sampled by the cron
  MemoryMarks memory;        // MEMORY STATS's startup and peak allocation, the cron samples
  BufferPeaks buffer_peaks;  // INFO's client_recent_max_*_buffer, the cron folds
  SlowLog slow_log;
  LatencyMonitor latency;  // LATENCY's events
  PubSub pubsub;
  MonitorFeed monitors;
  Tracking tracking;  // CLIENT TRACKING
  ScriptBridge* scripts = nullptr;  // EVAL, EVALSHA, SCRIPT
  ScriptRun script;
};

}  // namespace sluice::server
