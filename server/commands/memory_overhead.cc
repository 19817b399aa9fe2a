// MEMORY STATS's, DOCTOR's and INFO memory's figures, computed as Redis 7.0's
// getMemoryOverheadData computes them from sluice's own measures.

#include "server/commands/memory_overhead.h"

#include <string>

#include "server/metrics/allocator_stats.h"
#include "server/metrics/database_keys.h"
#include "server/script_bridge.h"

namespace sluice::server {
namespace {

// Redis's ratios are floats computed from size_t counts.
float Ratio(uint64_t numerator, uint64_t denominator) {
  return static_cast<float>(numerator) / static_cast<float>(denominator);
}

int64_t Difference(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b); }

// Redis's net memory usage: the bytes allocated since startup, 1 if none (a divisor).
uint64_t NetUsage(const MemoryOverhead& m) {
  return m.total_allocated > m.startup_allocated ? m.total_allocated - m.startup_allocated : 1;
}

// Redis's cronUpdateMemoryStats: an allocator that does not report its active and resident
// bytes (glibc's, AddressSanitizer's) is taken to hold the process's RSS, all of it active.
void ReadAllocator(const AllocatorStats& heap, uint64_t rss, MemoryOverhead& m) {
  m.allocator_name = heap.name;
  m.process_rss = rss;
  m.allocator_allocated = heap.allocated;
  m.allocator_resident = heap.resident != 0 ? heap.resident : rss;
  m.allocator_active = heap.active != 0 ? heap.active : m.allocator_resident;
  m.total_frag = Ratio(rss, m.total_allocated);
  m.total_frag_bytes = Difference(rss, m.total_allocated);
  m.allocator_frag = Ratio(m.allocator_active, m.allocator_allocated);
  m.allocator_frag_bytes = Difference(m.allocator_active, m.allocator_allocated);
  m.allocator_rss = Ratio(m.allocator_resident, m.allocator_active);
  m.allocator_rss_bytes = Difference(m.allocator_resident, m.allocator_active);
  m.rss_extra = Ratio(rss, m.allocator_resident);
  m.rss_extra_bytes = Difference(rss, m.allocator_resident);
}

void ReadClients(CommandContext& ctx, MemoryOverhead& m) {
  ctx.server.actions->VisitClients([&](const Client& client) {
    m.clients_normal += client.query_buffer_bytes + client.output_buffer_bytes;
    ++m.clients;
  });
}

void ReadScripting(CommandContext& ctx, MemoryOverhead& m) {
  if (ctx.server.scripts == nullptr) return;
  const scripting::ScriptEngine& eval = ctx.server.scripts->engine();
  const scripting::FunctionLibraries& functions = ctx.server.scripts->functions();
  m.lua_caches = eval.scripts_bytes();
  m.scripts = eval.script_count();
  m.vm_eval = eval.used_memory();
  m.vm_functions = functions.engine().used_memory();
  m.functions = functions.function_count();
  m.libraries = functions.libraries().size();
  for (const auto& [name, library] : functions.libraries()) {
    m.functions_caches += library.code.size();
  }
}

void ReadStorage(CommandContext& ctx, MemoryOverhead& m) {
  storage::Engine& engine = ctx.engine();
  m.rocksdb_memtables = engine.GetIntProperty("rocksdb.cur-size-all-mem-tables");
  m.rocksdb_block_cache = engine.GetIntProperty("rocksdb.block-cache-usage");
  m.rocksdb_table_readers = engine.GetIntProperty("rocksdb.estimate-table-readers-mem");
  m.record_cache = engine.GetRecordCacheStats();
}

}  // namespace

MemoryOverhead ReadMemoryOverhead(CommandContext& ctx) {
  MemoryOverhead m;
  const AllocatorStats heap = ReadAllocatorStats();
  ctx.server.memory.Sample(heap.allocated);
  m.total_allocated = heap.allocated;
  m.peak_allocated = ctx.server.memory.peak;
  m.startup_allocated = ctx.server.memory.startup;
  ReadAllocator(heap, ResidentSetBytes(), m);
  ReadClients(ctx, m);
  ReadScripting(ctx, m);
  ReadStorage(ctx, m);
  // Redis's sum; the parts sluice has none of (backlog, replicas, cluster, AOF buffer, the
  // databases' hash tables) are 0.
  m.overhead_total = m.startup_allocated + m.clients_normal + m.lua_caches + m.functions_caches;
  m.dataset = Difference(m.total_allocated, m.overhead_total);
  m.dataset_percentage = static_cast<float>(m.dataset) * 100 / static_cast<float>(NetUsage(m));
  m.peak_percentage =
      static_cast<float>(m.total_allocated) * 100 / static_cast<float>(m.peak_allocated);
  return m;
}

void CountKeys(CommandContext& ctx, MemoryOverhead& m) {
  for (const DatabaseKeys& each : KeysPerDatabase(ctx.engine(), ctx.now_ms)) {
    m.databases.push_back(each.db);
    m.total_keys += each.counts.keys;
  }
  m.bytes_per_key = m.total_keys != 0 ? NetUsage(m) / m.total_keys : 0;
}

std::string MemoryDoctorReport(const MemoryOverhead& m) {
  constexpr uint64_t kTenMegabytes = 10 << 20;
  bool empty = false, big_peak = false, high_frag = false, high_alloc_frag = false;
  bool high_alloc_rss = false, high_proc_rss = false, big_client_buf = false;
  bool many_scripts = false;
  if (m.total_allocated < (5 << 20)) {
    empty = true;
  } else {
    big_peak = Ratio(m.peak_allocated, m.total_allocated) > 1.5;
    high_frag = m.total_frag > 1.4 && m.total_frag_bytes > static_cast<int64_t>(kTenMegabytes);
    high_alloc_frag =
        m.allocator_frag > 1.1 && m.allocator_frag_bytes > static_cast<int64_t>(kTenMegabytes);
    high_alloc_rss =
        m.allocator_rss > 1.1 && m.allocator_rss_bytes > static_cast<int64_t>(kTenMegabytes);
    high_proc_rss = m.rss_extra > 1.1 && m.rss_extra_bytes > static_cast<int64_t>(kTenMegabytes);
    big_client_buf = m.clients != 0 && m.clients_normal / m.clients > 1024 * 200;
    many_scripts = m.scripts > 1000;
  }
  if (empty) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  if (!big_peak && !high_frag && !high_alloc_frag && !high_alloc_rss && !high_proc_rss &&
      !big_client_buf && !many_scripts) {
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  }
  std::string s = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
  if (big_peak) {
    s += " * Peak memory: In the past this instance used more than 150% the memory that is "
         "currently using. The allocator is normally not able to release memory after a peak, "
         "so you can expect to see a big fragmentation ratio, however this is actually harmless "
         "and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) "
         "is currently bigger than expected, the memory will be used as soon as you fill the "
         "Redis instance with more data. If the memory peak was only occasional and you want to "
         "try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other "
         "option is to shutdown and restart the instance.\n\n";
  }
  if (high_frag) {
    s += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
         "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
         "than the sum of the logical allocations Redis performed). This problem is usually due "
         "either to a large peak memory (check if there is a peak memory entry above in the "
         "report) or may result from a workload that causes the allocator to fragment memory a "
         "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
         "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
         "currently used allocator is \"" +
         m.allocator_name + "\".\n\n";
  }
  if (high_alloc_frag) {
    s += " * High allocator fragmentation: This instance has an allocator external "
         "fragmentation greater than 1.1. This problem is usually due either to a large peak "
         "memory (check if there is a peak memory entry above in the report) or may result "
         "from a workload that causes the allocator to fragment memory a lot. You can try "
         "enabling 'activedefrag' config option.\n\n";
  }
  if (high_alloc_rss) {
    s += " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
         "than 1.1 (this means that the Resident Set Size of the allocator is much larger than "
         "the sum what the allocator actually holds). This problem is usually due to a large "
         "peak memory (check if there is a peak memory entry above in the report), you can try "
         "the MEMORY PURGE command to reclaim it.\n\n";
  }
  if (high_proc_rss) {
    s += " * High process RSS overhead: This instance has non-allocator RSS memory overhead is "
         "greater than 1.1 (this means that the Resident Set Size of the Redis process is much "
         "larger than the RSS the allocator holds). This problem may be due to Lua scripts or "
         "Modules.\n\n";
  }
  if (big_client_buf) {
    s += " * Big client buffers: The clients output buffers in this instance are greater than "
         "200K per client (on average). This may result from different causes, like Pub/Sub "
         "clients subscribed to channels bot not receiving data fast enough, so that data piles "
         "on the Redis instance output buffer, or clients sending commands with large replies "
         "or very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
         "command in order to investigate the issue if it causes problems in your instance, or "
         "to understand better why certain clients are using a big amount of memory.\n\n";
  }
  if (many_scripts) {
    s += " * Many scripts: There seem to be many cached scripts in this instance (more than "
         "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
         "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
         "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
         "memory.\n\n";
  }
  s += "I'm here to keep you safe, Sam. I want to help you.\n";
  return s;
}

}  // namespace sluice::server
