#include "server/metrics/metrics_text.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

#include "server/command_table.h"
#include "server/limiter_queues.h"
#include "server/metrics/limiter_labels.h"
#include "server/metrics/prometheus_writer.h"

namespace sluice::server {
namespace {

using W = PrometheusWriter;

void Gauge(W& out, std::string_view name, std::string_view help, uint64_t value) {
  out.Family(name, "gauge", help);
  out.Sample(name, value);
}

void Counter(W& out, std::string_view name, std::string_view help, uint64_t value) {
  out.Family(name, "counter", help);
  out.Sample(name, value);
}

void ProcessMetrics(W& out) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  out.Family("process_cpu_seconds_total", "counter", "User and system CPU time spent.");
  out.Sample("process_cpu_seconds_total", seconds(usage.ru_utime) + seconds(usage.ru_stime));
  uint64_t pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  Gauge(out, "process_resident_memory_bytes", "Resident set size.",
        resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
}

void ServerMetrics(ServerContext& server, W& out) {
  out.Family("sluice_build_info", "gauge", "Version of sluiced (value is always 1).");
  out.Sample("sluice_build_info", uint64_t{1},
             {{"version", SLUICE_VERSION}, {"redis_version", "7.0.0"}});
  Gauge(out, "sluice_uptime_seconds", "Seconds since sluiced started (server clock).",
        static_cast<uint64_t>(
            std::max<int64_t>(0, server.clock->NowMicros() - server.start_time_us) / 1000000));
  const ServerStats& stats = server.stats;
  Gauge(out, "sluice_connected_clients", "Client connections open on the Redis port(s).",
        server.actions->ConnectedClients());
  Gauge(out, "sluice_maxclients", "The maxclients limit.",
        static_cast<uint64_t>(server.config->maxclients));
  Counter(out, "sluice_connections_received_total", "Connections accepted.",
          stats.total_connections_received);
  Counter(out, "sluice_rejected_connections_total",
          "Connections refused (maxclients, protected mode).", stats.rejected_connections);
  Counter(out, "sluice_net_input_bytes_total", "Bytes read from clients.",
          stats.total_net_input_bytes);
  Counter(out, "sluice_net_output_bytes_total", "Bytes written to clients.",
          stats.total_net_output_bytes);
}

void CommandMetrics(ServerContext& server, W& out) {
  const ServerStats& stats = server.stats;
  Counter(out, "sluice_commands_processed_total", "Commands executed.",
          stats.total_commands_processed);
  out.Family("sluice_commands_total", "counter", "Commands executed, by command.");
  for (const CommandSpec* spec : server.commands->All()) {
    if (const uint64_t calls = server.ops.CallsOf(*spec).calls; calls != 0) {
      out.Sample("sluice_commands_total", calls, {{"command", spec->name}});
    }
  }
  out.Family("sluice_command_seconds_total", "counter",
             "Time spent executing commands, by command.");
  for (const CommandSpec* spec : server.commands->All()) {
    if (const CallStats stats = server.ops.CallsOf(*spec); stats.calls != 0) {
      out.Sample("sluice_command_seconds_total", static_cast<double>(stats.nanos) / 1e9,
                 {{"command", spec->name}});
    }
  }
  Counter(out, "sluice_error_replies_total", "Error replies sent.", stats.errors.total());
  Counter(out, "sluice_expired_keys_total", "Keys removed by expiry.", stats.keyspace.expired);
  Counter(out, "sluice_keyspace_hits_total", "Key lookups that found the key.",
          stats.keyspace.hits);
  Counter(out, "sluice_keyspace_misses_total", "Key lookups that did not.", stats.keyspace.misses);
}

void LimiterMetrics(ServerContext& server, W& out) {
  out.Family("sluice_limiter_requests_total", "counter",
             "Limiter requests by outcome (RL.TAKE with several policies counts once).");
  for (const ResultField& field : kResultFields) {
    out.Sample("sluice_limiter_requests_total", server.limiter_totals.*field.counter,
               {{"result", field.name}});
  }
  out.Family("sluice_limiter_decisions_total", "counter",
             "Limiter decisions by algorithm, policy (empty for RL.* and CL.THROTTLE calls) "
             "and result; an RL.TAKE counts once under each policy it names.");
  for (algorithms::AlgorithmTag tag : kCountedAlgorithms) {
    std::string algorithm = AlgorithmLabel(tag);
    const LimiterCounters& counters = server.ops.ForAlgorithm(tag);
    for (const ResultField& field : kResultFields) {
      out.Sample("sluice_limiter_decisions_total", counters.*field.counter,
                 {{"algorithm", algorithm}, {"policy", ""}, {"result", field.name}});
    }
  }
  size_t listed = 0;
  for (const auto& [name, entry] : server.policies.all()) {
    if (listed++ == kMaxPolicySeries) break;
    std::string algorithm = AlgorithmLabel(entry.definition.algorithm);
    for (const ResultField& field : kResultFields) {
      out.Sample("sluice_limiter_decisions_total", entry.counters.*field.counter,
                 {{"algorithm", algorithm}, {"policy", name}, {"result", field.name}});
    }
  }
  Gauge(out, "sluice_policies", "Named policies defined.", server.policies.size());
  Gauge(out, "sluice_limiter_waiting_requests", "Requests waiting in BLOCK queues.",
        server.limiter_queues->waiting());

  const LatencyHistogram& h = server.ops.decision_latency;
  constexpr std::string_view kBucket = "sluice_limiter_decision_duration_seconds_bucket";
  out.Family("sluice_limiter_decision_duration_seconds", "histogram",
             "Time to decide one limiter request on the loop thread (BLOCK waits excluded).");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < LatencyHistogram::kBoundsNs.size(); ++i) {
    cumulative += h.bucket(i);
    char le[32];
    std::snprintf(le, sizeof(le), "%g", static_cast<double>(LatencyHistogram::kBoundsNs[i]) / 1e9);
    out.Sample(kBucket, cumulative, {{"le", le}});
  }
  out.Sample(kBucket, h.count(), {{"le", "+Inf"}});
  out.Sample("sluice_limiter_decision_duration_seconds_sum", static_cast<double>(h.sum_ns()) / 1e9);
  out.Sample("sluice_limiter_decision_duration_seconds_count", h.count());
}

void StorageMetrics(ServerContext& server, const KeyCensus::Figures& keys, W& out) {
  storage::Engine& engine = *server.engine;
  const ServerStats& stats = server.stats;
  Gauge(out, "sluice_keys_estimated",
        "Keys, as RocksDB estimates them (expired ones included "
        "until compaction).",
        keys.estimated);
  if (keys.exact) {
    Gauge(out, "sluice_keys", "Live keys, counted exactly (only while the database is small).",
          keys.exact->keys);
    Gauge(out, "sluice_keys_with_ttl",
          "Live keys with an expiry, counted exactly (as sluice_keys).", keys.exact->expires);
  }
  Counter(out, "sluice_wal_commits_total", "Write batches written to the RocksDB WAL.",
          stats.wal_commits);
  Counter(out, "sluice_wal_syncs_total", "fsyncs of the RocksDB WAL.", stats.wal_syncs);
  Counter(out, "sluice_wal_failed_commits_total", "Write batches the WAL refused.",
          stats.failed_commits);
  Gauge(out, "sluice_rocksdb_background_error",
        "1 while RocksDB reports a background error (writes get MISCONF).",
        engine.BackgroundError().ok() ? 0 : 1);
  Gauge(out, "sluice_rocksdb_live_data_bytes", "RocksDB's estimate of live data size.",
        engine.GetIntProperty("rocksdb.estimate-live-data-size"));
  Gauge(out, "sluice_rocksdb_live_sst_bytes", "Size of the live SST files.",
        engine.GetIntProperty("rocksdb.live-sst-files-size"));
  Gauge(out, "sluice_rocksdb_pending_compaction_bytes",
        "Bytes RocksDB estimates compaction still has to rewrite.",
        engine.GetIntProperty("rocksdb.estimate-pending-compaction-bytes"));
  Gauge(out, "sluice_rocksdb_running_flushes", "Memtable flushes running now.",
        engine.GetIntProperty("rocksdb.num-running-flushes"));
  Gauge(out, "sluice_rocksdb_running_compactions", "Compactions running now.",
        engine.GetIntProperty("rocksdb.num-running-compactions"));
  Gauge(out, "sluice_rocksdb_memtable_bytes", "Size of all memtables.",
        engine.GetIntProperty("rocksdb.cur-size-all-mem-tables"));
  const storage::Engine::RecordCacheStats cache = engine.GetRecordCacheStats();
  Gauge(out, "sluice_record_cache_bytes", "Memory the record cache holds.", cache.bytes);
  Gauge(out, "sluice_record_cache_capacity_bytes", "The record-cache-size in force.",
        cache.capacity);
  Gauge(out, "sluice_record_cache_keys", "Keys the record cache holds.", cache.entries);
  Counter(out, "sluice_record_cache_hits_total",
          "Key-space reads the record cache answered without RocksDB.", cache.hits);
  Counter(out, "sluice_record_cache_misses_total",
          "Key-space reads the record cache sent on to RocksDB.", cache.misses);
  const storage::Engine::BackgroundEventStats events = engine.GetBackgroundEventStats();
  Counter(out, "sluice_rocksdb_write_stops_total",
          "Times RocksDB stopped a column family's writes (every command waited).", events.stops);
  Counter(out, "sluice_rocksdb_write_delays_total",
          "Times RocksDB slowed a column family's writes.", events.delays);
  Counter(out, "sluice_rocksdb_flushes_total", "Memtable flushes RocksDB finished.",
          events.flushes);
  Counter(out, "sluice_rocksdb_compactions_total", "Compactions RocksDB finished.",
          events.compactions);
  out.Family("sluice_appendfsync", "gauge", "The appendfsync mode in force (value is 1).");
  auto mode = ConfigGet(*server.config, "appendfsync");
  out.Sample("sluice_appendfsync", uint64_t{1},
             {{"mode", mode.empty() ? "" : std::string_view(mode[0].second)}});
}

}  // namespace

std::string BuildMetricsText(ServerContext& server, const KeyCensus::Figures& keys) {
  W out;
  ServerMetrics(server, out);
  CommandMetrics(server, out);
  LimiterMetrics(server, out);
  if (server.engine != nullptr) StorageMetrics(server, keys, out);
  ProcessMetrics(out);
  return out.Take();
}

}  // namespace sluice::server
