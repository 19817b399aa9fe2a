#include "server/commands/info.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "server/arg_cursor.h"
#include "server/limiter_queues.h"

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
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

std::string HumanBytes(uint64_t bytes) {
  char buf[64];
  double value = static_cast<double>(bytes);
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2fK", value / 1024);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2fM", value / (1 << 20));
  } else {
    std::snprintf(buf, sizeof(buf), "%.2fG", value / (1 << 30));
  }
  return buf;
}

uint64_t ResidentSetBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
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
  out.Field("redis_mode", "standalone");
  out.Field("os", std::string(name.sysname) + " " + name.release + " " + name.machine);
  out.Field("arch_bits", 64);
  out.Field("multiplexing_api", "epoll");
  out.Field("gcc_version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) +
                               "." + std::to_string(__GNUC_PATCHLEVEL__));
  out.Field("process_id", static_cast<int64_t>(getpid()));
  out.Field("run_id", ctx.server.run_id);
  out.Field("tcp_port", ctx.server.tcp_port);
  out.Field("server_time_usec", ctx.now_us);
  out.Field("uptime_in_seconds", uptime_s);
  out.Field("uptime_in_days", uptime_s / 86400);
  out.Field("hz", 10);
  out.Field("executable", ctx.server.executable);
  out.Field("config_file", ctx.server.config_file);
}

void ClientsSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Clients");
  out.Field("connected_clients", static_cast<uint64_t>(ctx.server.actions->ConnectedClients()));
  out.Field("maxclients", ctx.server.config->maxclients);
  out.Field("blocked_clients", static_cast<uint64_t>(ctx.server.limiter_queues->waiting()));
}

void MemorySection(CommandContext& ctx, InfoWriter& out) {
  struct mallinfo2 heap = mallinfo2();
  uint64_t used = heap.uordblks + heap.hblkhd;
  uint64_t rss = ResidentSetBytes();
  storage::Engine& engine = ctx.engine();
  out.Section("Memory");
  out.Field("used_memory", used);
  out.Field("used_memory_human", HumanBytes(used));
  out.Field("used_memory_rss", rss);
  out.Field("used_memory_rss_human", HumanBytes(rss));
  out.Field("maxmemory", 0);
  out.Field("maxmemory_policy", "noeviction");
  out.Field("rocksdb_memtables_bytes", engine.GetIntProperty("rocksdb.cur-size-all-mem-tables"));
  out.Field("rocksdb_block_cache_bytes", engine.GetIntProperty("rocksdb.block-cache-usage"));
  out.Field("rocksdb_table_readers_bytes",
            engine.GetIntProperty("rocksdb.estimate-table-readers-mem"));
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
  out.Field("rdb_bgsave_in_progress", 0);
  out.Field("rdb_last_save_time", ctx.server.last_save_unix);
  out.Field("rdb_last_bgsave_status", "ok");
  out.Field("aof_enabled", 1);
  out.Field("aof_rewrite_in_progress", 0);
  out.Field("aof_last_write_status", background.ok() && stats.failed_commits == 0 ? "ok" : "err");
  out.Field("appendfsync", AppendFsyncName(ctx.server.config->appendfsync));
  out.Field("wal_commits", stats.wal_commits);
  out.Field("wal_syncs", stats.wal_syncs);
  out.Field("wal_failed_commits", stats.failed_commits);
  out.Field("rocksdb_background_error", background.ok() ? "none" : background.message());
  out.Field("rocksdb_live_sst_bytes", ctx.engine().GetIntProperty("rocksdb.live-sst-files-size"));
  out.Field("rocksdb_pending_compaction_bytes",
            ctx.engine().GetIntProperty("rocksdb.estimate-pending-compaction-bytes"));
}

void StatsSection(CommandContext& ctx, InfoWriter& out) {
  const ServerStats& stats = ctx.server.stats;
  out.Section("Stats");
  out.Field("total_connections_received", stats.total_connections_received);
  out.Field("total_commands_processed", stats.total_commands_processed);
  out.Field("instantaneous_ops_per_sec", 0);
  out.Field("total_net_input_bytes", stats.total_net_input_bytes);
  out.Field("total_net_output_bytes", stats.total_net_output_bytes);
  out.Field("rejected_connections", stats.rejected_connections);
  out.Field("expired_keys", stats.expired_keys);
  out.Field("evicted_keys", 0);
  out.Field("keyspace_hits", stats.keyspace_hits);
  out.Field("keyspace_misses", stats.keyspace_misses);
  out.Field("total_error_replies", stats.total_error_replies);
}

void ReplicationSection(CommandContext&, InfoWriter& out) {
  out.Section("Replication");
  out.Field("role", "master");
  out.Field("connected_slaves", 0);
}

void CpuSection(CommandContext&, InfoWriter& out) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(tv.tv_sec),
                  static_cast<long>(tv.tv_usec));
    return std::string(buf);
  };
  out.Section("CPU");
  out.Field("used_cpu_sys", seconds(usage.ru_stime));
  out.Field("used_cpu_user", seconds(usage.ru_utime));
}

void KeyspaceSection(CommandContext& ctx, InfoWriter& out) {
  out.Section("Keyspace");
  auto counts = ctx.engine().CountKeys(ctx.now_ms);
  if (counts.ok() && counts->keys > 0) {
    out.Field("db0", "keys=" + std::to_string(counts->keys) +
                         ",expires=" + std::to_string(counts->expires) + ",avg_ttl=0");
  }
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
    out.Field("policy_" + name, "allowed=" + std::to_string(c.allowed) +
                                    ",refused=" + std::to_string(c.refused) +
                                    ",blocked=" + std::to_string(c.blocked) +
                                    ",timed_out=" + std::to_string(c.timed_out));
  }
}

struct SectionEntry {
  std::string_view name;
  void (*write)(CommandContext&, InfoWriter&);
};

constexpr SectionEntry kSections[] = {
    {"server", ServerSection},           {"clients", ClientsSection},
    {"memory", MemorySection},           {"persistence", PersistenceSection},
    {"stats", StatsSection},             {"replication", ReplicationSection},
    {"cpu", CpuSection},                 {"limiters", LimitersSection},
    {"keyspace", KeyspaceSection},
};

}  // namespace

std::string BuildInfo(CommandContext& ctx, std::span<const std::string_view> sections) {
  bool all = sections.empty();
  for (std::string_view s : sections) {
    all |= EqualsIgnoreCase(s, "default") || EqualsIgnoreCase(s, "all") ||
           EqualsIgnoreCase(s, "everything");
  }
  InfoWriter out;
  for (const SectionEntry& section : kSections) {
    bool wanted = all;
    for (std::string_view s : sections) wanted |= EqualsIgnoreCase(s, section.name);
    if (wanted) section.write(ctx, out);
  }
  return out.Take();
}

}  // namespace sluice::server
