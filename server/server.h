#pragma once

// The server: one io_context on one thread. It owns the clock, the storage engine, the
// command table and every session, and runs the timers (WAL sync for appendfsync everysec,
// active expiry, idle timeouts).

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "server/config.h"
#include "server/dispatcher.h"
#include "server/limiter_queues.h"
#include "server/server_context.h"
#include "server/session_host.h"
#include "storage/engine.h"

namespace sluice::server {

class Session;

class Server final : public SessionHost, public ServerActions {
 public:
  Server(Config config, std::string config_file, std::string executable);
  ~Server() override;

  // Opens storage and binds every listener; a failure is one clear line for stderr.
  Status Start();
  // Runs the loop until shutdown. Returns the process exit code.
  int Run();

  // SessionHost
  ServerContext& context() override { return ctx_; }
  const CommandSpec* Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) override;
  Status CommitWrites() override;
  void OnSessionClosed(uint64_t client_id) override;

  // ServerActions
  std::vector<const Client*> ListClients() const override;
  bool KillClient(uint64_t id) override;
  size_t ConnectedClients() const override { return sessions_.size(); }
  void RequestShutdown(ShutdownMode mode) override;
  void OnConfigChanged() override;
  void OnClockChanged() override;

 private:
  using Acceptor = boost::asio::basic_socket_acceptor<boost::asio::generic::stream_protocol>;

  Status BindTcp();
  Status BindUnixSocket();
  void AdjustMaxClientsToFdLimit();
  void StartAccepting(Acceptor& acceptor, bool is_unix);
  void OnAccepted(boost::asio::generic::stream_protocol::socket socket, bool is_unix);
  void ScheduleCron();
  void Cron();
  void ScheduleWalSync();
  // One timer for the earliest BLOCK wake-up (none while the test clock is frozen: DEBUG CLOCK
  // wakes the queues itself).
  void ArmLimiterTimer();
  void AnswerBlocked(uint64_t client_id, const StatusOr<algorithms::Verdict>& verdict);
  void DrainSessions(std::chrono::steady_clock::time_point deadline);
  void FinishShutdown();

  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer cron_timer_;
  boost::asio::steady_timer wal_sync_timer_;
  boost::asio::steady_timer shutdown_timer_;
  boost::asio::steady_timer limiter_timer_;
  FreezableClock clock_;
  Config config_;
  CommandTable commands_;
  std::unique_ptr<storage::Engine> engine_;
  ServerContext ctx_;
  Dispatcher dispatcher_;
  LimiterQueues limiter_queues_;
  std::vector<std::unique_ptr<Acceptor>> acceptors_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;
  bool shutting_down_ = false;
  bool commits_since_sync_ = false;
  int exit_code_ = 0;
};

}  // namespace sluice::server
