#include "server/commands/info.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "server/arg_cursor.h"
#include "server/commands/log_rewrite.h"
#include "server/commands/memory_overhead.h"
#include "server/key_waiters.h"
#include "server/limiter_queues.h"
#include "server/metrics/database_keys.h"
#include "server/metrics/human_bytes.h"
#include "server/script_bridge.h"

namespace sluice::server {
namespace {

class InfoWriter {
 public:
  void Section(std::string_view name) {
    if (!text_.empty()) text_ += "\r\n";
    text_ += "# ";
    text_ += name;
    text_ += "\r\n";
  }
  template <typename T>
  void Field(std::string_view name, const T& value) {
    static_assert(!std::is_same_v<T, bool>, "write booleans as 0/1");
    text_ += name;
    text_ += ':';
    if constexpr (std::is_arithmetic_v<T>) {
      text_ += std::to_string(value);
    } else {
      text_ += value;
    }
    text_ += "\r\n";
  }
  // A field named after something users name (a policy, an error code): as Redis's
  // getSafeInfoString, '#', ':' and line breaks become '_', so each stays one parseable line
  // (and none reads as a section header).
  template <typename T>
  void NamedField(std::string_view prefix, std::string_view name, const T& value) {
    std::string field(prefix);
    for (char c : name) field += c == '#' || c == ':' || c == '\r' || c == '\n' ? '_' : c;
    Field(field, value);
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

// Redis's "%.2f" fields (ratios, kbps, usec_per_call).
std::string TwoDecimals(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", value);
  return buf;
}

// A byte rate as Redis prints it: KiB per second.
std::string Kbps(const InstantaneousRate& bytes) {
  return TwoDecimals(static_cast<double>(bytes.PerSecond()) / 1024);
}

void ServerSection(CommandContext& ctx, InfoWriter& out) {
  utsname name{};
  uname(&name);
  int64_t uptime_s = (ctx.server.clock->NowMicros() - ctx.server.start_time_us) / 1000000;
  out.Section("Server");
  out.Field("redis_version", "7.0.0");
  out.Field("sluice_version", SLUICE_VERSION);
  out.Field("redis_git_sha1", "00000000");
  out.Field("redis_git_dirty", 0);
  out.Field("redis_build_id", "0000000000000000");
  out.Field("redis_mode", "standalone");
  out.Field("os", std::string(name.sysname) + " " + name.release + " " + name.machine);
  out.Field("arch_bits", 64);
  out.Field("monotonic_clock", "POSIX clock_gettime");
  out.Field("multiplexing_api", "epoll");
  out.Field("atomicvar_api", "c11-builtin");
  out.Field("gcc_version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) +
                               "." + std::to_string(__GNUC_PATCHLEVEL__));
  out.Field("process_id", static_cast<int64_t>(getpid()));
  out.Field("process_supervised", "no");
  out.Field("run_id", ctx.server.run_id);
  out.Field("tcp_port", ctx.server.tcp_port);
  out.Field("server_time_usec", ctx.now_us);
  out.Field("uptime_in_seconds", uptime_s);
  out.Field("uptime_in_days", uptime_s / 86400);
  out.Field("hz", 10);
  out.Field("configured_hz", 10);
  out.Field("lru_clock", (ctx.now_ms / 1000) & ((1 << 24) - 1));  // Redis's LRU_CLOCK_MAX
  out.Field("executable", ctx.server.executable);
  out.Field("config_file", ctx.server.config_file);
  out.Field("io_threads_active", 0);
}

void ClientsSection(CommandContext& ctx, InfoWriter& out) {
  uint64_t blocked = 0;  // in BLOCK, waiting for a DBSIZE count, or held by CLIENT PAUSE
  ctx.server.actions->VisitClients([&](const Client& client) {
    if (client.blocked || client.paused != 0) ++blocked;
  });
  const int64_t now_ms = WallMillis();  // the cron's clock for the peaks
  const BufferPeaks& peaks = ctx.server.buffer_peaks;
  out.Section("Clients");
  out.Field("connected_clients", static_cast<uint64_t>(ctx.server.actions->ConnectedClients()));
  out.Field("cluster_connections", 0);
  out.Field("maxclients", ctx.server.config->maxclients);
  out.Field("client_recent_max_input_buffer", static_cast<uint64_t>(peaks.RecentMaxInput(now_ms)));
  out.Field("client_recent_max_output_buffer",
            static_cast<uint64_t>(peaks.RecentMaxOutput(now_ms)));
  out.Field("blocked_clients", blocked);
  out.Field("tracking_clients", static_cast<uint64_t>(ctx.server.tracking.clients()));
  // BLOCK's requests all have a deadline, and so do blocking pops and WAITs with a timeout;
  // a DBSIZE count has none.
  out.Field("clients_in_timeout_table",
            static_cast<uint64_t>(
                ctx.server.limiter_queues->waiting() +
                (ctx.server.key_waiters != nullptr ? ctx.server.key_waiters->WithDeadline() : 0)));
}

// Redis 7.0.15's fields in its order, from the figures MEMORY STATS sends (ReadMemoryOverhead),
// then sluice's storage figures. Redis prints used_memory_dataset and allocator_frag_bytes
// unsigned ("%zu"), so a negative one shows as its 64-bit wrap there, as here.
void MemorySection(CommandContext& ctx, InfoWriter& out) {
  const MemoryOverhead m = ReadMemoryOverhead(ctx);
  auto bytes = [&](std::string_view name, uint64_t value) {
    out.Field(name, value);
    out.Field(std::string(name) + "_human", HumanBytes(value));
  };
  auto ratio = [&](std::string_view name, float value) {
    out.Field(name, TwoDecimals(static_cast<double>(value)));
  };
  auto percentage = [&](std::string_view name, float value) {
    out.Field(name, TwoDecimals(static_cast<double>(value)) + "%");
  };
  const uint64_t system_memory =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  out.Section("Memory");
  bytes("used_memory", m.total_allocated);
  bytes("used_memory_rss", m.process_rss);
  bytes("used_memory_peak", m.peak_allocated);
  percentage("used_memory_peak_perc", m.peak_percentage);
  out.Field("used_memory_overhead", m.overhead_total);
  out.Field("used_memory_startup", m.startup_allocated);
  out.Field("used_memory_dataset", static_cast<uint64_t>(m.dataset));
  percentage("used_memory_dataset_perc", m.dataset_percentage);
  out.Field("allocator_allocated", m.allocator_allocated);
  out.Field("allocator_active", m.allocator_active);
  out.Field("allocator_resident", m.allocator_resident);
  bytes("total_system_memory", system_memory);
  out.Field("used_memory_lua", m.vm_eval);  // Redis 7.0 keeps it, renamed used_memory_vm_eval
  out.Field("used_memory_vm_eval", m.vm_eval);
  out.Field("used_memory_lua_human", HumanBytes(m.vm_eval));
  out.Field("used_memory_scripts_eval", m.lua_caches);
  out.Field("number_of_cached_scripts", m.scripts);
  out.Field("number_of_functions", m.functions);
  out.Field("number_of_libraries", m.libraries);
  out.Field("used_memory_vm_functions", m.vm_functions);
  bytes("used_memory_vm_total", m.vm_eval + m.vm_functions);
  out.Field("used_memory_functions", m.functions_caches);
  bytes("used_memory_scripts", m.lua_caches + m.functions_caches);
  bytes("maxmemory", 0);  // sluice evicts nothing (docs/notes.md)
  out.Field("maxmemory_policy", "noeviction");
  ratio("allocator_frag_ratio", m.allocator_frag);
  out.Field("allocator_frag_bytes", static_cast<uint64_t>(m.allocator_frag_bytes));
  ratio("allocator_rss_ratio", m.allocator_rss);
  out.Field("allocator_rss_bytes", m.allocator_rss_bytes);
  ratio("rss_overhead_ratio", m.rss_extra);
  out.Field("rss_overhead_bytes", m.rss_extra_bytes);
  ratio("mem_fragmentation_ratio", m.total_frag);
  out.Field("mem_fragmentation_bytes", m.total_frag_bytes);
  // Redis's parts sluice has no counterpart of, 0 as in MEMORY STATS: nothing is evicted, no
  // replication, cluster or AOF buffer, no defragmenter, no lazy freeing.
  out.Field("mem_not_counted_for_evict", 0);
  out.Field("mem_replication_backlog", 0);
  out.Field("mem_total_replication_buffers", 0);
  out.Field("mem_clients_slaves", 0);
  out.Field("mem_clients_normal", m.clients_normal);
  out.Field("mem_cluster_links", 0);
  out.Field("mem_aof_buffer", 0);
  out.Field("mem_allocator", m.allocator_name);
  out.Field("active_defrag_running", 0);
  out.Field("lazyfree_pending_objects", 0);
  out.Field("lazyfreed_objects", 0);
  // sluice's own, after Redis's fields: what the storage engine holds in memory.
  out.Field("rocksdb_memtables_bytes", m.rocksdb_memtables);
  out.Field("rocksdb_block_cache_bytes", m.rocksdb_block_cache);
  out.Field("rocksdb_table_readers_bytes", m.rocksdb_table_readers);
  out.Field("record_cache_bytes", m.record_cache.bytes);
  out.Field("record_cache_size", m.record_cache.capacity);  // the record-cache-size in force
  out.Field("record_cache_keys", m.record_cache.entries);
}

std::string_view AppendFsyncName(AppendFsync mode) {
  switch (mode) {
    case AppendFsync::kAlways: return "always";
    case AppendFsync::kEverysec: return "everysec";
    case AppendFsync::kNo: return "no";
  }
  return "everysec";
}

void PersistenceSection(CommandContext& ctx, InfoWriter& out) {
  const ServerStats& stats = ctx.server.stats;
  Status background = ctx.engine().BackgroundError();
  out.Section("Persistence");
  out.Field("loading", 0);
  out.Field("async_loading", 0);
  out.Field("rdb_changes_since_last_save", 0);  // every write is in the WAL already
  const auto& persistence = ctx.server.persistence;
  out.Field("rdb_bgsave_in_progress", persistence.bgsave_in_progress ? 1 : 0);
  out.Field("rdb_last_save_time", ctx.server.last_save_unix);
  out.Field("rdb_last_bgsave_status", persistence.last_bgsave_ok ? "ok" : "err");
  out.Field("rdb_last_bgsave_time_sec", persistence.last_bgsave_seconds);
  out.Field("aof_enabled", 1);
  out.Field("aof_rewrite_in_progress", LogRewriteInProgress(ctx) ? 1 : 0);
  out.Field("aof_rewrite_scheduled", 0);
  out.Field("aof_last_bgrewrite_status", "ok");
  out.Field("aof_rewrites", persistence.log_rewrites);
  // "err" while RocksDB is stopped on an error or the last WAL write failed; "ok" again once
  // writes succeed.
  out.Field("aof_last_write_status",
            background.ok() && !persistence.last_commit_failed ? "ok" : "err");
  out.Field("appendfsync", AppendFsyncName(ctx.server.config->appendfsync));
  out.Field("wal_commits", stats.wal_commits);
  out.Field("wal_syncs", stats.wal_syncs);
  out.Field("wal_failed_commits", stats.failed_commits);
  // appendfsync always: WAL files that started as zeroed files (storage/zeroed_wal.h).
  const storage::Engine::ZeroedWalStats zeroed = ctx.engine().GetZeroedWalStats();
  out.Field("wal_zeroed_files_used", zeroed.files_used);
  out.Field("wal_zeroed_file_ready", zeroed.file_ready ? 1 : 0);
  out.Field("rocksdb_background_error", background.ok() ? "none" : background.message());
  out.Field("last_checkpoint", persistence.last_checkpoint);
  out.Field("rocksdb_live_sst_bytes", ctx.engine().GetIntProperty("rocksdb.live-sst-files-size"));
  out.Field("rocksdb_pending_compaction_bytes",
            ctx.engine().GetIntProperty("rocksdb.estimate-pending-compaction-bytes"));
  const storage::Engine::BackgroundEventStats events = ctx.engine().GetBackgroundEventStats();
  out.Field("rocksdb_write_stops", events.stops);
  out.Field("rocksdb_write_delays", events.delays);
  out.Field("rocksdb_flushes", events.flushes);
  out.Field("rocksdb_compactions", events.compactions);
  // Running now, as Redis's aof_rewrite_in_progress: what a benchmark waits out between runs.
  out.Field("rocksdb_running_flushes", ctx.engine().GetIntProperty("rocksdb.num-running-flushes"));
  out.Field("rocksdb_running_compactions",
            ctx.engine().GetIntProperty("rocksdb.num-running-compactions"));
}

void StatsSection(CommandContext& ctx, InfoWriter& out) {
  const ServerStats& stats = ctx.server.stats;
  out.Section("Stats");
  out.Field("total_connections_received", stats.total_connections_received);
  out.Field("total_commands_processed", stats.total_commands_processed);
  const InstantaneousRates& rates = ctx.server.rates;
  out.Field("instantaneous_ops_per_sec", rates.ops.PerSecond());
  out.Field("total_net_input_bytes", stats.total_net_input_bytes);
  out.Field("total_net_output_bytes", stats.total_net_output_bytes);
  out.Field("instantaneous_input_kbps", Kbps(rates.input_bytes));
  out.Field("instantaneous_output_kbps", Kbps(rates.output_bytes));
  out.Field("rejected_connections", stats.rejected_connections);
  out.Field("sync_full", 0);
  out.Field("sync_partial_ok", 0);
  out.Field("sync_partial_err", 0);
  out.Field("expired_keys", stats.keyspace.expired);
  out.Field("expired_stale_perc", "0.00");
  out.Field("evicted_keys", 0);
  out.Field("evicted_clients", 0);
  // Redis 8.0's: scripts EVAL made, evicted past 500 (scripting/engine.h).
  out.Field("evicted_scripts",
            ctx.server.scripts ? ctx.server.scripts->engine().evicted_scripts() : uint64_t{0});
  out.Field("keyspace_hits", stats.keyspace.hits);
  out.Field("keyspace_misses", stats.keyspace.misses);
  out.Field("pubsub_channels", ctx.server.pubsub.channel_count());
  out.Field("pubsub_patterns", ctx.server.pubsub.pattern_count());
  out.Field("pubsubshard_channels", ctx.server.pubsub.shard_channel_count());
  out.Field("latest_fork_usec", 0);
  out.Field("total_forks", 0);
  out.Field("tracking_total_keys", ctx.server.tracking.total_keys());
  out.Field("tracking_total_items", ctx.server.tracking.total_items());
  out.Field("tracking_total_prefixes", ctx.server.tracking.total_prefixes());
  out.Field("unexpected_error_replies", 0);
  out.Field("total_error_replies", stats.errors.total());
  // sluice's own, after Redis's fields: the active expiry cycle's steps (ServerStats).
  out.Field("expire_cycle_steps_run", stats.expire_cycle_steps_run);
  out.Field("expire_cycle_steps_paused", stats.expire_cycle_steps_paused);
  // Key-space reads the record cache answered, and those it sent on to RocksDB.
  const storage::Engine::RecordCacheStats cache = ctx.engine().GetRecordCacheStats();
  out.Field("record_cache_hits", cache.hits);
  out.Field("record_cache_misses", cache.misses);
}

void ReplicationSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Replication");
  out.Field("role", "master");
  out.Field("connected_slaves", 0);
  out.Field("master_failover_state", "no-failover");
  out.Field("master_replid", ctx.server.run_id);
  out.Field("master_replid2", std::string(40, '0'));
  out.Field("master_repl_offset", 0);
  out.Field("second_repl_offset", -1);
  out.Field("repl_backlog_active", 0);
  out.Field("repl_backlog_size", 0);
  out.Field("repl_backlog_first_byte_offset", 0);
  out.Field("repl_backlog_histlen", 0);
}

void CpuSection(CommandContext&, InfoWriter& out) {
  rusage usage{}, children{}, thread{};
  getrusage(RUSAGE_SELF, &usage);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  auto seconds = [](const timeval& tv) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(tv.tv_sec),
                  static_cast<long>(tv.tv_usec));
    return std::string(buf);
  };
  out.Section("CPU");
  out.Field("used_cpu_sys", seconds(usage.ru_stime));
  out.Field("used_cpu_user", seconds(usage.ru_utime));
  out.Field("used_cpu_sys_children", seconds(children.ru_stime));
  out.Field("used_cpu_user_children", seconds(children.ru_utime));
  out.Field("used_cpu_sys_main_thread", seconds(thread.ru_stime));
  out.Field("used_cpu_user_main_thread", seconds(thread.ru_utime));
}

void ModulesSection(CommandContext&, InfoWriter& out) { out.Section("Modules"); }

// Calls per command, the time they took, and how many were refused or failed (the dispatcher
// counts them), a container's by subcommand as Redis 7's cmdstat_config|get. Redis lists only
// commands called, refused or failed at least once.
void CommandStatsSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Commandstats");
  auto field = [&](std::string name, CallStats stats) {
    if (stats.calls == 0 && stats.rejected == 0 && stats.failed == 0) return;
    const uint64_t usec = stats.nanos / 1000;
    // Of `usec` as printed, as Redis's, so that usec_per_call is usec / calls to the cent.
    const double per_call = stats.calls == 0 ? 0.0
                                             : static_cast<double>(usec) /
                                                   static_cast<double>(stats.calls);
    out.NamedField("cmdstat_", name,
                   "calls=" + std::to_string(stats.calls) + ",usec=" + std::to_string(usec) +
                       ",usec_per_call=" + TwoDecimals(per_call) +
                       ",rejected_calls=" + std::to_string(stats.rejected) +
                       ",failed_calls=" + std::to_string(stats.failed));
  };
  for (const CommandSpec* spec : ctx.server.commands->All()) {
    CallStats alone = ctx.server.ops.CallsOf(*spec);  // COMMAND without a subcommand
    for (const Subcommand& sub : spec->subcommands) {
      const CallStats stats = ctx.server.ops.CallsOf(*spec, sub);
      alone.calls -= stats.calls;
      alone.nanos -= stats.nanos;
      field(FullName(*spec, &sub), stats);
    }
    field(FullName(*spec, nullptr), alone);
  }
}

// Each tracked command's latency percentiles (latency-tracking-info-percentiles), in
// microseconds, as Redis 7.0's latency_percentiles_usec_<command>:p50=...,p99=...
void LatencyStatsSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Latencystats");
  const std::vector<double>& percentiles = ctx.server.config->latency_tracking_info_percentiles;
  auto field = [&](const CommandSpec& spec, const Subcommand* sub) {
    const CommandLatency* latency = ctx.server.ops.LatencyOf(spec, sub);
    if (latency == nullptr) return;
    std::string value;
    for (double p : percentiles) {
      char micros[64];
      std::snprintf(micros, sizeof(micros), "%.3f",
                    static_cast<double>(latency->ValueAtPercentile(p)) / 1000.0);
      value += (value.empty() ? "p" : ",p") + PercentileText(p) + "=" + micros;
    }
    out.NamedField("latency_percentiles_usec_", FullName(spec, sub), value);
  };
  for (const CommandSpec* spec : ctx.server.commands->All()) {
    field(*spec, nullptr);
    for (const Subcommand& sub : spec->subcommands) field(*spec, &sub);
  }
}

void ErrorStatsSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Errorstats");
  for (const auto& [code, count] : ctx.server.stats.errors.by_code()) {
    out.NamedField("errorstat_", code, "count=" + std::to_string(count));
  }
}

void ClusterSection(CommandContext&, InfoWriter& out) {
  out.Section("Cluster");
  out.Field("cluster_enabled", 0);
}

// Counting every key holds the loop for about a third of a microsecond a key (3.6 s at 10
// million keys), and the key space is one of INFO's default sections: monitoring agents send
// INFO every few seconds, and ioredis at every connect (its ready check). Past as many
// records as /metrics counts exactly, the figures are the engine's estimates, and a line
// after them says so.
void KeyspaceSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Keyspace");
  bool estimated_any = false;
  for (const DatabaseKeys& each : KeysPerDatabase(ctx.engine(), ctx.now_ms)) {
    const storage::Engine::KeyCounts& counts = each.counts;
    out.Field("db" + std::to_string(each.db),
              "keys=" + std::to_string(counts.keys) + ",expires=" + std::to_string(counts.expires) +
                  ",avg_ttl=" + std::to_string(counts.AverageTtlMs()));
    estimated_any = estimated_any || each.estimated;
  }
  if (estimated_any) out.Field("keyspace_estimated", 1);
}

void LimitersSection(CommandContext& ctx, InfoWriter& out) {
  const LimiterCounters& totals = ctx.server.limiter_totals;
  out.Section("Limiters");
  out.Field("limiter_allowed", totals.allowed);
  out.Field("limiter_refused", totals.refused);
  out.Field("limiter_blocked", totals.blocked);
  out.Field("limiter_timed_out", totals.timed_out);
  out.Field("limiter_waiting", static_cast<uint64_t>(ctx.server.limiter_queues->waiting()));
  out.Field("policies", static_cast<uint64_t>(ctx.server.policies.size()));
  for (const auto& [name, entry] : ctx.server.policies.all()) {
    const LimiterCounters& c = entry.counters;
    out.NamedField(
        "policy_", name,
        "allowed=" + std::to_string(c.allowed) + ",refused=" + std::to_string(c.refused) +
            ",blocked=" + std::to_string(c.blocked) + ",timed_out=" + std::to_string(c.timed_out));
  }
}

struct SectionEntry {
  std::string_view name;
  void (*write)(CommandContext&, InfoWriter&);
  bool in_default = true;  // INFO / INFO default; "all" and "everything" add the others
};

constexpr SectionEntry kSections[] = {
    {"server", ServerSection},           {"clients", ClientsSection},
    {"memory", MemorySection},           {"persistence", PersistenceSection},
    {"stats", StatsSection},             {"replication", ReplicationSection},
    {"cpu", CpuSection},                 {"modules", ModulesSection},
    {"commandstats", CommandStatsSection, false},
    {"errorstats", ErrorStatsSection},   {"latencystats", LatencyStatsSection, false},   {"cluster", ClusterSection},
    {"limiters", LimitersSection},       {"keyspace", KeyspaceSection},
};

}  // namespace

std::string BuildInfo(CommandContext& ctx, std::span<const std::string_view> sections) {
  bool defaults = sections.empty();
  bool all = false;
  for (std::string_view s : sections) {
    defaults |= EqualsIgnoreCase(s, "default");
    all |= EqualsIgnoreCase(s, "all") || EqualsIgnoreCase(s, "everything");
  }
  InfoWriter out;
  for (const SectionEntry& section : kSections) {
    bool wanted = all || (defaults && section.in_default);
    for (std::string_view s : sections) wanted |= EqualsIgnoreCase(s, section.name);
    if (wanted) section.write(ctx, out);
  }
  return out.Take();
}

}  // namespace sluice::server
