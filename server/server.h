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
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "server/config.h"
#include "server/dispatcher.h"
#include "server/expiry_pacer.h"
#include "server/key_count_rounds.h"
#include "server/key_waiters.h"
#include "server/keyspace_events.h"
#include "server/limiter_queues.h"
#include "server/metrics/metrics_endpoint.h"
#include "server/script_bridge.h"
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
  Dispatched Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) override;
  void PrefetchKeys(std::span<const std::string_view> keys) override;
  Status CommitWrites() override;
  void ReleaseExpiryHorizon() override;
  bool HasStagedWrites() const override;
  uint64_t NextCommitNumber() const override { return commits_done_ + 1; }
  bool CommitDone(uint64_t number) const override;
  Status CommitOutcome(uint64_t number) const override;
  void OnSessionClosed(uint64_t client_id) override;

  // ServerActions
  std::vector<const Client*> ListClients() const override;
  void VisitClients(const std::function<void(const Client&)>& visit) const override;
  bool KillClient(uint64_t id) override;
  size_t ConnectedClients() const override { return sessions_.size(); }
  void RequestShutdown(ShutdownMode mode) override;
  Status OnConfigChanged(const Config& previous) override;
  Status Save(bool background) override;
  void OnClockChanged() override;
  void CountKeysInBackground(uint64_t client_id) override;
  void AnswerBlocked(uint64_t client_id,
                     const std::function<void(resp::ReplyBuilder&)>& reply) override;
  bool UnblockClient(uint64_t client_id, bool error) override;
  void StartClientPause(PauseMode mode, int64_t end_ms) override;
  void EndClientPause() override;

 private:
  using Acceptor = boost::asio::basic_socket_acceptor<boost::asio::generic::stream_protocol>;

  Status BindTcp();
  Status BindUnixSocket();
  // jemalloc-bg-thread, at start and when CONFIG SET changes it.
  void ApplyAllocatorConfig();
  // The most clients RLIMIT_NOFILE allows, up to `requested` (raising the soft limit first,
  // and logging Redis's lines when it has to lower it).
  int64_t FdLimitedMaxClients(int64_t requested);
  // accept() ran out of file descriptors: pause accepting for a moment instead of spinning.
  void PauseAccepting(Acceptor& acceptor, bool is_unix);
  // CommitWrites with an fdatasync of the WAL if `sync` (the override: as appendfsync says).
  Status CommitWrites(bool sync);
  // Commits what is staged (CommitWrites, which then releases the expiry horizon).
  Status CommitStaged(bool sync);
  // After a refused commit that wrote system entries, and after a reopen: named policies and
  // function libraries back to the stored ones.
  void RestoreStoredRegistries();
  // While RocksDB reports a background error: log the change, start a resume once a second
  // (of clock_: DEBUG CLOCK ADVANCE brings it forward).
  void CheckStorageHealth();
  void JoinBackgroundSave();
  void StartAccepting(Acceptor& acceptor, bool is_unix);
  void OnAccepted(boost::asio::generic::stream_protocol::socket socket, bool is_unix);
  void ScheduleCron();
  void Cron();
  // Feeds INFO's instantaneous_* rates (every cron run, busy script or not, as Redis).
  void SampleRates();
  // A BGSAVE scheduled inside EXEC starts once none runs (a failed start is tried again).
  void StartScheduledSave();
  // Policy changes whose states are all fresh by now are forgotten, and their hold lifted.
  void ForgetSettledPolicyChanges();
  // The cycle's next step. Only the cycle's own chain calls it (Start, then each step for the
  // next): a step due at once is posted, and a post, unlike the timer, cannot be taken back.
  void ScheduleActiveExpire(std::chrono::nanoseconds after);
  void RunActiveExpireStep();
  // A smaller record-cache-size: the evictions it leaves go in steps of about a millisecond,
  // with clients served in between.
  void ScheduleRecordCacheTrim(std::chrono::milliseconds after);
  void ScheduleWalSync();
  void OnWalSynced(const Status& status);
  // SIGHUP reopens the log file (logrotate).
  void WaitForSighup();
  // One timer for the earliest BLOCK wake-up or blocked pop's deadline (none while the test
  // clock is frozen: DEBUG CLOCK wakes the waiters itself). server_blocking.cc.
  void ArmWakeTimer();
  // Time moved: BLOCK waiters that fit are served, and what is past its deadline answered.
  void WakeWaiters();
  void DrainSessions(std::chrono::steady_clock::time_point deadline);
  void FinishShutdown();
  // What both ways out do last: the WAL synced (after committing or dropping what is
  // staged), the engine closed, the socket file removed.
  void CloseStorageForExit(bool discard_staged);
  // After each script: what busy mode put off (a timer's wake-up) happens now.
  void OnScriptFinished();
  // SHUTDOWN NOSAVE (or SIGTERM past lua-time-limit) while a script runs: exit at once from
  // inside its busy loop, dropping its staged writes (contract section 7).
  [[noreturn]] void ExitDiscardingScript();

  // One thread runs the loop: with the hint 1, a handler posted from the loop thread goes to a
  // thread-local queue without taking the scheduler's lock. Other threads may still post.
  boost::asio::io_context io_{1};
  boost::asio::signal_set signals_;
  boost::asio::signal_set sighup_;
  boost::asio::steady_timer cron_timer_;
  boost::asio::steady_timer expire_timer_;  // the active expiry cycle's steps
  ExpiryPacer expiry_pacer_;
  boost::asio::steady_timer cache_trim_timer_;  // ScheduleRecordCacheTrim
  bool cache_trim_scheduled_ = false;
  boost::asio::steady_timer wal_sync_timer_;
  boost::asio::steady_timer shutdown_timer_;
  boost::asio::steady_timer wake_timer_;          // ArmWakeTimer
  boost::asio::steady_timer accept_retry_timer_;  // accepting paused on EMFILE
  FreezableClock clock_;
  Config config_;
  CommandTable commands_;
  Status renamed_;                    // the first rename-command refused: Start() fails with it
  std::unique_ptr<AclRegistry> acl_;  // made once the command table is final
  std::unique_ptr<storage::Engine> engine_;
  ServerContext ctx_;
  EngineKeyEvents key_events_{ctx_};  // expired, keymiss and new, as the engine meets them
  Dispatcher dispatcher_;
  LimiterQueues limiter_queues_;
  KeyWaiters key_waiters_;     // clients blocked on keys (BLPOP and kin)
  KeyCountRounds key_counts_;  // DBSIZE of a large key space
  std::vector<std::unique_ptr<Acceptor>> acceptors_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;
  std::unique_ptr<ScriptBridge> scripts_;  // the Lua engine behind EVAL
  std::chrono::steady_clock::time_point script_deadline_{};  // shutdown waits for a script
  bool wake_after_script_ = false;
  std::unique_ptr<MetricsEndpoint> metrics_;  // metrics-port; null when off
  bool shutting_down_ = false;
  bool commits_since_sync_ = false;
  // Group commit bookkeeping: how many commits ran, and which of the recent ones failed.
  static constexpr size_t kCommitHistory = 1024;
  uint64_t commits_done_ = 0;
  uint64_t reopens_followed_ = 0;  // the engine's ReopenCount() last seen
  int64_t engine_buffers_checked_ms_ = 0;  // wall time of the last engine ReleaseIdleBuffers
  std::vector<bool> commit_failed_ = std::vector<bool>(kCommitHistory, false);
  std::optional<int64_t> last_resume_attempt_ms_;  // on clock_, like everything timed
  std::string reported_storage_error_;  // the background error last logged ("" when healthy)
  std::thread bgsave_thread_;           // BGSAVE's checkpoint; joined before RocksDB closes
  std::vector<std::pair<Acceptor*, bool>> paused_acceptors_;  // (acceptor, is_unix)
  bool out_of_fds_ = false;  // accept() failed for want of descriptors; logged once
  int exit_code_ = 0;
};

}  // namespace sluice::server
