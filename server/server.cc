#include "server/server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cstdlib>
#include <random>

#include "common/cycle_clock.h"
#include "server/acl/acl_file.h"
#include "server/acl/registry.h"
#include "server/commands/commands.h"
#include "server/limiter_stats.h"
#include "server/limiter_store.h"
#include "server/logging.h"
#include "server/metrics/allocator_stats.h"
#include "server/function_store.h"
#include "server/policy_store.h"
#include "server/session.h"

namespace sluice::server {
namespace asio = boost::asio;

namespace {

constexpr auto kCronInterval = std::chrono::milliseconds(100);
// A client idle this long gives its buffers back (Session::ReleaseIdleBuffers), as Redis
// shrinks the query buffer of a client idle for two seconds.
constexpr int64_t kIdleBuffersAfterMs = 2000;
// A step of the active expiry cycle examines up to 200 keys and deletes at most 20 of them
// (deleting 200 at once held the loop for about a millisecond); ExpiryPacer spaces the steps.
constexpr size_t kActiveExpireKeysPerStep = 200;
constexpr size_t kActiveExpireDeletesPerStep = 20;
constexpr auto kShutdownGrace = std::chrono::seconds(5);
// On the server's clock: DEBUG CLOCK ADVANCE brings the next attempt forward in tests.
constexpr int64_t kResumeIntervalMs = 1000;
constexpr size_t kKeptCheckpoints = 3;  // BGSAVE / SAVE keep the newest three

std::string RandomRunId() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& c : id) c = kHex[gen() % 16];
  return id;
}

}  // namespace

Server::Server(Config config, std::string config_file, std::string executable)
    : signals_(io_, SIGINT, SIGTERM),
      sighup_(io_, SIGHUP),
      cron_timer_(io_),
      expire_timer_(io_),
      cache_trim_timer_(io_),
      wal_sync_timer_(io_),
      shutdown_timer_(io_),
      wake_timer_(io_),
      accept_retry_timer_(io_),
      config_(std::move(config)),
      dispatcher_(ctx_),
      limiter_queues_(
          &ctx_.engine,
          [this](uint64_t id, const StatusOr<algorithms::Verdict>& verdict) {
            AnswerBlocked(id, [&](resp::ReplyBuilder& reply) {
              if (verdict.ok()) {
                ReplyVerdict(reply, *verdict);
              } else {
                ReplyCountedError(ctx_.stats.errors, reply, verdict.status());
              }
            });
          },
          [this](const LimiterCall& call, LimiterEvent event) {
            RecordLimiterEvent(ctx_, call, event);
          },
          [this] { ArmWakeTimer(); }, &ctx_.policies),
      key_waiters_([this] { ArmWakeTimer(); }),
      key_counts_(
          [this](int db, int64_t now_ms, storage::Engine::KeyCountDone done) {
            storage::DatabaseScope in_its_database(*ctx_.engine, db);
            return in_its_database.status().ok() &&
                   ctx_.engine->StartKeyCount(now_ms, std::move(done));
          },
          &clock_,
          [this](uint64_t id, const StatusOr<KeyCountRounds::Counts>& counts) {
            AnswerBlocked(id, [&](resp::ReplyBuilder& reply) {
              if (counts.ok()) {
                reply.Int(static_cast<int64_t>(counts->keys));
              } else {
                ReplyCountedError(ctx_.stats.errors, reply, counts.status());
              }
            });
          },
          [this](std::function<void()> work) { asio::post(io_, std::move(work)); }) {
  RegisterAllCommands(commands_);
  for (const auto& [name, new_name] : config_.rename_commands) {
    renamed_ = commands_.Rename(name, new_name);
    if (!renamed_.ok()) {
      renamed_ = Err("rename-command '" + name + "' '" + new_name + "': " + renamed_.message());
      break;
    }
  }
  acl_ = std::make_unique<AclRegistry>(commands_);
  acl_->SetRequirePass(config_.requirepass);
  ctx_.acl = acl_.get();
  ctx_.clock = &clock_;
  ctx_.config = &config_;
  ctx_.commands = &commands_;
  ctx_.actions = this;
  ctx_.dispatcher = &dispatcher_;
  ctx_.limiter_queues = &limiter_queues_;
  ctx_.key_waiters = &key_waiters_;
  ctx_.tracking.set_max_keys(&config_.tracking_table_max_keys);
  ctx_.tracking.set_hooks(Tracking::Hooks{
      .find_client = [this](uint64_t id) -> Client* {
        auto it = sessions_.find(id);
        return it == sessions_.end() ? nullptr : &it->second->client();
      },
      // After what the loop has ready now: the replies of this turn's commands go first, as
      // Redis broadcasts in beforeSleep.
      .schedule_broadcast = [this] { asio::post(io_, [this] { ctx_.tracking.Broadcast(); }); },
      .activity_changed = [this] { key_events_.Apply(); }});
  scripts_ = std::make_unique<ScriptBridge>(
      ctx_, [this] { io_.poll(); }, [this] { OnScriptFinished(); });
  ctx_.scripts = scripts_.get();
  ctx_.run_id = RandomRunId();
  ctx_.executable = std::move(executable);
  ctx_.config_file = std::move(config_file);
  ctx_.start_time_us = clock_.NowMicros();
  // As Redis, the data is considered saved at start: it is all in RocksDB already.
  ctx_.last_save_unix = WallMillis() / 1000;
}

Server::~Server() { JoinBackgroundSave(); }

void Server::ApplyAllocatorConfig() {
  if (!SetAllocatorBackgroundThread(config_.jemalloc_bg_thread)) {
    spdlog::warn("jemalloc refused to {} its background thread",
                 config_.jemalloc_bg_thread ? "start" : "stop");
  }
}

Status Server::Start() {
  SLUICE_RETURN_IF_ERROR(renamed_);
  ApplyAllocatorConfig();
  SLUICE_RETURN_IF_ERROR(LoadUsersAtStart(*acl_, config_.users, config_.aclfile));
  storage::EngineOptions options;
  options.dir = config_.dir;
  // Until the policies are read, no key of named policies may expire: one may hold a state
  // whose policy changed, which the policies' unsettled changes tell.
  options.initial_limiter_hold = PolicyChangeHold::AsExpiryHold(PolicyChangeHold::Everything());
  options.sync_every_commit = SyncsEveryCommit(config_);
  static_assert(kMaxDatabases == storage::kMaxDatabases);
  options.databases = config_.databases;
  options.write_buffer_bytes = config_.rocksdb_write_buffer_size;
  options.record_cache_bytes = config_.record_cache_size;
  auto engine = storage::Engine::Open(options, &clock_);
  if (!engine.ok()) return Err(engine.status().message());
  engine_ = std::move(engine).value();
  ctx_.engine = engine_.get();
  if (std::string problem = engine_->DirLockProblem(); !problem.empty()) {
    spdlog::warn(
        "Could not lock dir '{}' ({}): a second sluiced started on it could change this one's "
        "files before RocksDB's own lock turns it away",
        config_.dir, problem);
  }
  engine_->set_lookup_counter(&ctx_.stats.keyspace);
  key_events_.Apply();
  SLUICE_RETURN_IF_ERROR(
      LoadPolicies(*engine_, config_.policies, clock_.NowMicros(), &ctx_.policies));
  engine_->SetLimiterExpiryHold(ctx_.policies.hold());
  SLUICE_RETURN_IF_ERROR(LoadStoredLibraries(*engine_, &scripts_->functions()));
  SLUICE_RETURN_IF_ERROR(CommitWrites());

  config_.maxclients = FdLimitedMaxClients(config_.maxclients);
  SLUICE_RETURN_IF_ERROR(BindTcp());
  SLUICE_RETURN_IF_ERROR(BindUnixSocket());
  if (acceptors_.empty()) {
    return Err("configured to not listen anywhere (port 0 or bind \"\", and no unixsocket)");
  }
  if (config_.metrics_port != 0) {
    metrics_ = std::make_unique<MetricsEndpoint>(io_, ctx_);
    SLUICE_RETURN_IF_ERROR(metrics_->Listen(config_.bind, config_.metrics_port));
    spdlog::info("Metrics and status page on port {}", config_.metrics_port);
  }

  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::warn("Received {} scheduling shutdown...", signo == SIGINT ? "SIGINT" : "SIGTERM");
    RequestShutdown(ShutdownMode::kDefault);
  });
  WaitForSighup();
  // What the server holds before its first client (MEMORY STATS's startup.allocated).
  ctx_.memory.startup = ReadAllocatorStats().allocated;
  ctx_.memory.Sample(ctx_.memory.startup);
  ScheduleCron();
  ScheduleActiveExpire(ExpiryPacer::kIdleInterval);
  ScheduleWalSync();
  return Status::Ok();
}

int Server::Run() {
  spdlog::info("Ready to accept connections");
  io_.run();
  return exit_code_;
}

Dispatched Server::Dispatch(Client& client, Args args, resp::ReplyBuilder& reply) {
  return dispatcher_.Dispatch(client, args, reply);
}

Status Server::CommitWrites() { return CommitWrites(SyncsEveryCommit(config_)); }

Status Server::CommitWrites(bool sync) {
  // A running script's writes go to the log with the EVAL's batch, never while it is busy.
  if (ctx_.script.active) return Status::Ok();
  const Status status = CommitStaged(sync);
  ReleaseExpiryHorizon();
  return status;
}

void Server::ReleaseExpiryHorizon() {
  // A script's batch is under way until it ends and commits.
  if (engine_ && !ctx_.script.active) engine_->ReleaseExpiryHorizon();
}

Status Server::CommitStaged(bool sync) {
  if (!engine_ || !engine_->HasStagedWrites()) return Status::Ok();
  const bool system_staged = engine_->SystemEntriesStaged();
  const uint64_t started = CycleClock::Now();
  Status status = engine_->Commit(sync);
  ctx_.latency.AddIfNeeded(sync ? "aof-fsync-always" : "aof-write", CycleClock::NanosSince(started),
                           config_.latency_monitor_threshold, clock_);
  ++commits_done_;
  commit_failed_[commits_done_ % kCommitHistory] = !status.ok();
  if (!status.ok()) {
    engine_->DiscardStaged();
    if (system_staged) RestoreStoredRegistries();
    ctx_.stats.failed_commits++;
    // Once per failing streak: while RocksDB stays stopped every commit fails the same way.
    if (!ctx_.persistence.last_commit_failed) {
      spdlog::error("Writing to the RocksDB WAL failed: {}", status.message());
    }
    ctx_.persistence.last_commit_failed = true;
    return status;
  }
  ctx_.persistence.last_commit_failed = false;
  ctx_.stats.wal_commits++;
  if (sync) {
    ctx_.stats.wal_syncs++;
  } else {
    commits_since_sync_ = true;
  }
  return status;
}

void Server::RestoreStoredRegistries() {
  // A refused batch's RL.POLICY SET/DEL or FUNCTION LOAD/DELETE/FLUSH/RESTORE took effect in
  // memory when it ran: they go back to what the log holds, as the batch's key writes do (and
  // after a reopen, to what its replay holds).
  Status policies = RestoreStoredPolicies(*engine_, clock_.NowMicros(), &ctx_.policies);
  engine_->SetLimiterExpiryHold(ctx_.policies.hold());
  Status functions = ReloadStoredLibraries(*engine_, &scripts_->functions());
  for (const Status& status : {policies, functions}) {
    if (!status.ok()) spdlog::error("Reading the stored policies and functions again: {}", status.message());
  }
}

bool Server::HasStagedWrites() const { return engine_ && engine_->HasStagedWrites(); }

void Server::PrefetchKeys(std::span<const std::string_view> keys) {
  if (engine_) engine_->PrefetchKeys(keys);
}

bool Server::CommitDone(uint64_t number) const {
  return commits_done_ >= number || !HasStagedWrites();
}

Status Server::CommitOutcome(uint64_t number) const {
  // Not made: a reply whose command staged nothing is not refused for a commit that never
  // came (a read-only script on a failing disk).
  if (commits_done_ < number) return Status::Ok();
  // A commit older than the history is long over; its sessions have all been answered.
  if (commits_done_ - number >= kCommitHistory) return Status::Ok();
  if (commit_failed_[number % kCommitHistory]) return Status(Code::kMisconf, "commit failed");
  return Status::Ok();
}

void Server::OnSessionClosed(uint64_t client_id) {
  auto it = sessions_.find(client_id);
  if (it == sessions_.end()) return;
  ctx_.watches.UnwatchAll(&it->second->client());
  ctx_.tracking.Disable(it->second->client());
  ctx_.pubsub.RemoveClient(it->second->client());
  ctx_.monitors.Remove(&it->second->client());
  if (it->second->client().blocked && !key_waiters_.Remove(client_id)) {
    limiter_queues_.CancelClient(client_id);
  }
  sessions_.erase(it);
}

std::vector<const Client*> Server::ListClients() const {
  std::vector<const Client*> clients;
  clients.reserve(sessions_.size());
  VisitClients([&](const Client& client) { clients.push_back(&client); });
  std::sort(clients.begin(), clients.end(),
            [](const Client* a, const Client* b) { return a->id < b->id; });
  return clients;
}

void Server::VisitClients(const std::function<void(const Client&)>& visit) const {
  for (const auto& [id, session] : sessions_) visit(session->client());
}

bool Server::KillClient(uint64_t id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  // Its channels are left now, not when the connection is gone: a PUBLISH right after
  // CLIENT KILL reaches nobody, as in Redis.
  ctx_.pubsub.RemoveClient(it->second->client());
  it->second->Kill();
  return true;
}

Status Server::OnConfigChanged(const Config& previous) {
  if (config_.maxclients > previous.maxclients) {
    int64_t allowed = FdLimitedMaxClients(config_.maxclients);
    if (allowed < config_.maxclients) {  // as Redis: refused, the previous value stays
      spdlog::warn(
          "Failed applying new configuration. Possibly related to new maxclients "
          "setting. Restoring previous settings.");
      return Err(
          "CONFIG SET failed (possibly related to argument 'maxclients') - The "
          "operating system is not able to handle the specified number of clients, "
          "try with " +
          std::to_string(allowed));
    }
  }
  ApplyLogLevel(config_.loglevel);
  scripts_->ApplyConfig();
  if (config_.requirepass != previous.requirepass) acl_->SetRequirePass(config_.requirepass);
  if (engine_ && config_.appendfsync != previous.appendfsync) {
    engine_->SetSyncEveryCommit(SyncsEveryCommit(config_));
  }
  if (engine_ && config_.record_cache_size != previous.record_cache_size) {
    engine_->SetRecordCacheCapacity(config_.record_cache_size);
    ScheduleRecordCacheTrim({});
  }
  if (config_.notify_keyspace_events != previous.notify_keyspace_events) key_events_.Apply();
  if (config_.jemalloc_bg_thread != previous.jemalloc_bg_thread) ApplyAllocatorConfig();
  return Status::Ok();
}

Status Server::Save(bool background) {
  if (ctx_.persistence.bgsave_in_progress) return Err("Background save already in progress");
  JoinBackgroundSave();  // the previous one has finished: reap its thread
  SLUICE_RETURN_IF_ERROR(CommitWrites());
  storage::Engine* engine = engine_.get();
  int64_t now_s = WallMillis() / 1000;
  if (!background) {
    StatusOr<std::string> path = engine->CreateCheckpoint(now_s, kKeptCheckpoints);
    if (!path.ok()) return path.status();
    ctx_.persistence.last_checkpoint = *path;
    ctx_.last_save_unix = now_s;
    spdlog::info("DB saved on disk: checkpoint {}", *path);
    return Status::Ok();
  }
  ctx_.persistence.bgsave_in_progress = true;
  auto started = std::chrono::steady_clock::now();
  // RocksDB's checkpoint is safe beside the loop thread's reads and writes; the engine is
  // only closed after this thread is joined (FinishShutdown, ExitDiscardingScript).
  bgsave_thread_ = std::thread([this, engine, now_s, started] {
    StatusOr<std::string> path = engine->CreateCheckpoint(now_s, kKeptCheckpoints);
    auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started)
            .count();
    asio::post(io_, [this, path = std::move(path), now_s, seconds] {
      ctx_.persistence.bgsave_in_progress = false;
      ctx_.persistence.last_bgsave_ok = path.ok();
      ctx_.persistence.last_bgsave_seconds = seconds;
      if (path.ok()) {
        ctx_.persistence.last_checkpoint = *path;
        ctx_.last_save_unix = now_s;
        spdlog::info("Background saving terminated with success: checkpoint {}", *path);
      } else {
        spdlog::warn("Background saving error: {}", path.status().message());
      }
      StartScheduledSave();
    });
  });
  spdlog::info("Background saving started");
  return Status::Ok();
}

void Server::JoinBackgroundSave() {
  if (bgsave_thread_.joinable()) bgsave_thread_.join();
}

void Server::CountKeysInBackground(uint64_t client_id) {
  (void)CommitWrites();  // a failed commit answers its own writers; the count is of what is in
  key_counts_.Request(client_id, engine_->database());
}

void Server::ScheduleActiveExpire(std::chrono::nanoseconds after) {
  if (after <= std::chrono::nanoseconds::zero()) {
    // Posted, not timed: a timer costs two timerfd_settime calls (armed, then rearmed for the
    // next timer), and most steps through a backlog are due at once. The post still queues
    // behind the handlers and the reactor poll already waiting.
    asio::post(io_, [this] {
      if (!shutting_down_) RunActiveExpireStep();
    });
    return;
  }
  expire_timer_.expires_after(after);
  expire_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && !shutting_down_) RunActiveExpireStep();
  });
}

void Server::RunActiveExpireStep() {
  StepFound found = StepFound::kNothing;
  const auto step_began = std::chrono::steady_clock::now();
  // Not while CLIENT PAUSE holds requests (as Redis: a paused server changes no data by
  // itself), nor inside a busy script's event polling (as Cron).
  if (ctx_.pause.Set()) {
    ++ctx_.stats.expire_cycle_steps_paused;
  } else if (!ctx_.script.active) {
    ++ctx_.stats.expire_cycle_steps_run;
    const bool sessions_staged = engine_->HasStagedWrites();
    const uint64_t started = CycleClock::Now();
    const size_t expired = engine_->ActiveExpireStep(clock_.NowMillis(), kActiveExpireKeysPerStep,
                                                     kActiveExpireDeletesPerStep);
    ctx_.latency.AddIfNeeded("expire-cycle", CycleClock::NanosSince(started),
                             config_.latency_monitor_threshold, clock_);
    found =
        FoundInStep(expired, kActiveExpireDeletesPerStep, engine_->ExpireStepStoppedInTombstones());
    if (expired > 0) {
      // Deleting an expired key acknowledges nothing, and a deletion an OS crash loses leaves
      // a record that reads as expired again: under always it goes to the WAL without a sync
      // of its own, and the next synced commit takes it along. (A step synced every 20
      // deletions before: up to a tenth of the loop in fdatasync through a backlog.) Writes
      // that sessions staged before the step wait for this commit, and for its sync.
      // A failed commit only delays the cleanup (the keys read as expired), and the next
      // step waits as after an idle one: its deletions were dropped.
      const bool sync = sessions_staged && SyncsEveryCommit(config_);
      if (!CommitWrites(sync).ok()) found = StepFound::kNothing;
    }
  }
  const auto step_ended = std::chrono::steady_clock::now();
  ScheduleActiveExpire(
      expiry_pacer_.WaitAfterStep(found, step_ended - step_began, step_ended.time_since_epoch()));
}

void Server::SampleRates() {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now().time_since_epoch())
                             .count();
  const ServerStats& stats = ctx_.stats;
  ctx_.rates.ops.Sample(stats.total_commands_processed, now_ms);
  ctx_.rates.input_bytes.Sample(stats.total_net_input_bytes, now_ms);
  ctx_.rates.output_bytes.Sample(stats.total_net_output_bytes, now_ms);
}

void Server::ScheduleCron() {
  cron_timer_.expires_after(kCronInterval);
  cron_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    Cron();
    ScheduleCron();
  });
}

void Server::Cron() {
  SampleRates();
  ctx_.memory.Sample(ReadAllocatorStats().allocated);
  // Inside a busy script's event polling: no commit, no closing its session.
  if (ctx_.script.active) return;
  CheckStorageHealth();
  if (engine_->ReopenCount() != reopens_followed_) {  // (a reopen runs on this thread)
    reopens_followed_ = engine_->ReopenCount();
    RestoreStoredRegistries();
  }
  ForgetSettledPolicyChanges();
  StartScheduledSave();
  std::vector<std::shared_ptr<Session>> stuck;
  int64_t wall_now = WallMillis();
  ctx_.buffer_peaks.Tick(wall_now);
  for (const auto& [id, session] : sessions_) {
    if (session->OverSoftOutputLimit(wall_now)) stuck.push_back(session);
    session->ReleaseIdleBuffers(wall_now - kIdleBuffersAfterMs);
  }
  if (wall_now - engine_buffers_checked_ms_ >= kIdleBuffersAfterMs) {
    engine_->ReleaseIdleBuffers();
    engine_buffers_checked_ms_ = wall_now;
  }
  for (auto& session : stuck) {
    spdlog::warn(
        "Closing client id={} addr={}: replies over the soft limit of "
        "client-output-buffer-limit for too long",
        session->client().id, session->client().addr);
    session->ForceClose();
  }
  if (config_.timeout > 0) {
    int64_t idle_limit_ms = config_.timeout * 1000;
    int64_t now = WallMillis();
    std::vector<std::shared_ptr<Session>> idle;
    for (const auto& [id, session] : sessions_) {
      const Client& client = session->client();
      // A client waiting in BLOCK or held by a pause is not idle (as BLPOP), nor is a
      // subscriber or a monitor (as Redis: a monitor only ever reads).
      if (!client.blocked && client.paused == 0 && client.Subscriptions() == 0 && !client.monitor &&
          now - client.last_interaction_ms > idle_limit_ms) {
        idle.push_back(session);
      }
    }
    for (auto& session : idle) session->Kill();
  }
}

void Server::StartScheduledSave() {
  if (!ctx_.persistence.bgsave_scheduled || ctx_.persistence.bgsave_in_progress) return;
  if (shutting_down_) return;
  if (Status started = Save(true); !started.ok()) {
    // Scheduled still: the next tick tries again, as Redis's serverCron. INFO shows the failure.
    if (ctx_.persistence.last_bgsave_ok) {
      spdlog::warn("Scheduled background saving could not start: {}", started.message());
    }
    ctx_.persistence.last_bgsave_ok = false;
    return;
  }
  ctx_.persistence.bgsave_scheduled = false;
}

void Server::ForgetSettledPolicyChanges() {
  if (ctx_.policies.change_hold() == nullptr) return;
  std::vector<std::string> settled = ctx_.policies.ForgetSettledChanges(clock_.NowMillis());
  if (settled.empty()) return;
  for (const std::string& name : settled) StorePolicy(*engine_, *ctx_.policies.Find(name));
  engine_->SetLimiterExpiryHold(ctx_.policies.hold());
  // A failed commit leaves the changes stored: the next start reads them and forgets them again.
  (void)CommitWrites();
}

void Server::WaitForSighup() {
  sighup_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    ReopenLogFile(config_.logfile);
    WaitForSighup();
  });
}

void Server::CheckStorageHealth() {
  Status background = engine_->BackgroundError();
  if (background.ok()) {
    if (!reported_storage_error_.empty()) {
      spdlog::warn("RocksDB resumed: writes are accepted again");
      reported_storage_error_.clear();
    }
    return;
  }
  if (reported_storage_error_ != background.message()) {
    reported_storage_error_ = background.message();
    spdlog::warn("{}: writes and PING answer -MISCONF until it clears; retrying every second",
                 reported_storage_error_);
  }
  const int64_t now_ms = clock_.NowMillis();
  // A clock set back (or a test clock frozen earlier) is no reason to stop retrying.
  const bool due = !last_resume_attempt_ms_ || now_ms < *last_resume_attempt_ms_ ||
                   now_ms - *last_resume_attempt_ms_ >= kResumeIntervalMs;
  // (Not beside a BGSAVE: an attempt may reopen the database under its checkpoint.)
  if (!due || ctx_.persistence.bgsave_in_progress) return;
  // Success shows as the background error gone, logged above; a failure is worth a debug line.
  const bool started = engine_->StartResume([this](Status resumed) {
    if (resumed.ok()) return;
    boost::asio::post(io_, [message = resumed.message()] {
      spdlog::debug("RocksDB could not resume yet: {}", message);
    });
  });
  if (started) last_resume_attempt_ms_ = now_ms;
}

void Server::ScheduleRecordCacheTrim(std::chrono::milliseconds after) {
  if (cache_trim_scheduled_) return;
  cache_trim_scheduled_ = true;
  // A timer, not a post: its wake-ups queue behind the clients' ready input.
  cache_trim_timer_.expires_after(after);
  cache_trim_timer_.async_wait([this](const boost::system::error_code& ec) {
    cache_trim_scheduled_ = false;
    if (ec || shutting_down_) return;
    if (ctx_.script.active) {  // not inside a busy script's event polling, as Cron
      ScheduleRecordCacheTrim(kCronInterval);
      return;
    }
    if (engine_->TrimRecordCache()) ScheduleRecordCacheTrim({});
  });
}

void Server::ScheduleWalSync() {
  wal_sync_timer_.expires_after(std::chrono::seconds(1));
  wal_sync_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    // (Not while RocksDB is stopped on an error: its log is left alone until it resumes.)
    if (config_.appendfsync == AppendFsync::kEverysec && commits_since_sync_ &&
        engine_->BackgroundError().ok()) {
      // The sync covers every commit before it starts; one still under way is waited for
      // by the next tick (as Redis postpones its everysec fsync).
      commits_since_sync_ = !engine_->StartWalSync([this](Status status) {
        boost::asio::post(io_, [this, status = std::move(status)] { OnWalSynced(status); });
      });
    }
    ScheduleWalSync();
  });
}

void Server::OnWalSynced(const Status& status) {
  if (status.ok()) {
    ctx_.stats.wal_syncs++;
    return;
  }
  spdlog::error("Syncing the RocksDB WAL failed: {}", status.message());
  commits_since_sync_ = true;  // the next tick tries again
}

void Server::RequestShutdown(ShutdownMode mode) {
  if (ctx_.script.active && mode == ShutdownMode::kNoSave) ExitDiscardingScript();
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::warn("User requested shutdown...");
  script_deadline_ =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.lua_time_limit);
  asio::post(io_, [this] {
    boost::system::error_code ignored;
    for (auto& acceptor : acceptors_) acceptor->close(ignored);
    signals_.cancel(ignored);
    sighup_.cancel(ignored);
    if (metrics_) metrics_->Stop();
    cron_timer_.cancel();
    expire_timer_.cancel();
    wal_sync_timer_.cancel();
    wake_timer_.cancel();
    // Every request waiting in BLOCK gets its refused reply before its connection closes,
    // and every DBSIZE waiting for its count an error.
    limiter_queues_.RefuseAll(clock_.NowMicros());
    key_counts_.RefuseAll(Err("the server is shutting down"));
    std::vector<std::shared_ptr<Session>> sessions;
    for (auto& [id, session] : sessions_) sessions.push_back(session);
    for (auto& session : sessions) session->Close();
    DrainSessions(std::chrono::steady_clock::now() + kShutdownGrace);
  });
}

// Sessions finish their in-flight writes; poll until they are gone or time is up.
void Server::DrainSessions(std::chrono::steady_clock::time_point deadline) {
  auto now = std::chrono::steady_clock::now();
  if (ctx_.script.active) {
    // This runs inside a busy script's event polling: wait for the script up to
    // lua-time-limit, then leave as SHUTDOWN NOSAVE does.
    if (now >= script_deadline_) ExitDiscardingScript();
  } else if (sessions_.empty() || now >= deadline) {
    FinishShutdown();
    return;
  }
  shutdown_timer_.expires_after(std::chrono::milliseconds(5));
  shutdown_timer_.async_wait(
      [this, deadline](const boost::system::error_code&) { DrainSessions(deadline); });
}

void Server::FinishShutdown() {
  if (ctx_.script.active) ExitDiscardingScript();
  CloseStorageForExit(/*discard_staged=*/false);
  io_.stop();
}

void Server::CloseStorageForExit(bool discard_staged) {
  JoinBackgroundSave();
  if (engine_) {
    Status status;
    if (discard_staged) {
      engine_->DiscardStaged();
    } else {
      status = CommitWrites();
    }
    if (status.ok()) status = engine_->SyncWal();
    if (!status.ok()) spdlog::error("Syncing the WAL at shutdown failed: {}", status.message());
    // Not on the way out of a busy script (SHUTDOWN NOSAVE): that exit is meant to be quick.
    if (status.ok() && !discard_staged) {
      Status flushed = engine_->FlushForStop();
      // The WAL holds every write anyway: the next start replays it.
      if (!flushed.ok()) spdlog::warn("Flushing at shutdown failed: {}", flushed.message());
    }
    ctx_.engine = nullptr;
    engine_.reset();
  }
  if (!config_.unixsocket.empty()) ::unlink(config_.unixsocket.c_str());
  spdlog::warn("sluiced is now ready to exit, bye bye...");
}

void Server::ExitDiscardingScript() {
  spdlog::warn("Shutting down without saving the writes of the running script...");
  CloseStorageForExit(/*discard_staged=*/true);
  spdlog::shutdown();
  // We are deep inside the script's call stack: nothing may unwind it.
  std::_Exit(0);
}

}  // namespace sluice::server
