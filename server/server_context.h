#pragma once

// What command handlers may reach of the server: storage, the clock, configuration, the
// command table, statistics and a few server-level actions. Handlers get it through their
// CommandContext, never through globals; it has no Asio types, so command files stay light.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/policy_registry.h"
#include "server/scan_cursors.h"
#include "server/watch_registry.h"
#include "storage/engine.h"

namespace sluice::server {

struct Client;
class Dispatcher;
class LimiterQueues;

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_commands_processed = 0;
  uint64_t total_error_replies = 0;
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  uint64_t expired_keys = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t wal_commits = 0;
  uint64_t wal_syncs = 0;
  uint64_t failed_commits = 0;
};

enum class ShutdownMode { kDefault, kSave, kNoSave };

// Server-level actions the command layer can ask for; implemented by Server.
class ServerActions {
 public:
  virtual ~ServerActions() = default;
  virtual std::vector<const Client*> ListClients() const = 0;
  // Closes the connection with that id after its current batch; false if none.
  virtual bool KillClient(uint64_t id) = 0;
  virtual size_t ConnectedClients() const = 0;
  // Stops accepting, finishes in-flight replies, syncs the WAL, closes RocksDB, exits 0.
  virtual void RequestShutdown(ShutdownMode mode) = 0;
  // Apply a configuration change that needs more than a field update (loglevel...).
  virtual void OnConfigChanged() = 0;
  // DEBUG CLOCK moved time: wake what waits on it.
  virtual void OnClockChanged() = 0;
};

struct ServerContext {
  storage::Engine* engine = nullptr;
  FreezableClock* clock = nullptr;
  Config* config = nullptr;
  const CommandTable* commands = nullptr;
  ServerActions* actions = nullptr;
  ServerStats stats;
  std::string run_id;       // 40 hex chars, as Redis
  std::string executable;   // INFO executable
  std::string config_file;  // INFO config_file
  int64_t start_time_us = 0;
  int tcp_port = 0;         // the port actually bound (port 0 in config picks none)
  int64_t last_save_unix = 0;
  uint64_t next_client_id = 1;
  ScanCursors scan_cursors;
  WatchRegistry watches;
  Dispatcher* dispatcher = nullptr;  // EXEC runs its queued commands through it
  LimiterQueues* limiter_queues = nullptr;  // BLOCK
  PolicyRegistry policies;
  LimiterCounters limiter_totals;
};

}  // namespace sluice::server
