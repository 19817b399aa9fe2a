#pragma once

// What MEMORY STATS, MEMORY DOCTOR and INFO's memory section report: Redis 7.0's
// redisMemOverhead and the few counts INFO adds to it, filled from what sluice measures
// (docs/notes.md, "MEMORY"). Redis's parts sluice has no counterpart of (replication backlog,
// replica buffers, cluster links, AOF buffer, the databases' hash tables) are 0; its ratios
// are floats, as Redis's.

#include <cstdint>
#include <string>
#include <vector>

#include "server/command_context.h"

namespace sluice::server {

struct MemoryOverhead {
  uint64_t peak_allocated = 0;
  uint64_t total_allocated = 0;
  uint64_t startup_allocated = 0;
  uint64_t clients_normal = 0;    // the clients' query and output buffers
  uint64_t lua_caches = 0;        // EVAL's cached scripts
  uint64_t functions_caches = 0;  // the function libraries' code
  std::vector<int> databases;     // those holding keys (db.N, with two zero overheads each)
  uint64_t overhead_total = 0;
  uint64_t total_keys = 0;
  uint64_t bytes_per_key = 0;
  int64_t dataset = 0;
  float dataset_percentage = 0;
  float peak_percentage = 0;
  uint64_t allocator_allocated = 0;
  uint64_t allocator_active = 0;
  uint64_t allocator_resident = 0;
  float allocator_frag = 0;
  int64_t allocator_frag_bytes = 0;
  float allocator_rss = 0;
  int64_t allocator_rss_bytes = 0;
  float rss_extra = 0;
  int64_t rss_extra_bytes = 0;
  float total_frag = 0;
  int64_t total_frag_bytes = 0;
  // sluice's own, after Redis's fields: what the storage engine holds in memory.
  uint64_t rocksdb_memtables = 0;
  uint64_t rocksdb_block_cache = 0;
  uint64_t rocksdb_table_readers = 0;
  storage::Engine::RecordCacheStats record_cache;
  // For the doctor and INFO: the allocator's name, the clients connected, the scripts cached.
  std::string allocator_name;
  uint64_t clients = 0;
  uint64_t scripts = 0;
  // For INFO alone: the process's RSS, the two Lua heaps (EVAL's, the functions'), and the
  // functions and libraries loaded.
  uint64_t process_rss = 0;
  uint64_t vm_eval = 0;
  uint64_t vm_functions = 0;
  uint64_t functions = 0;
  uint64_t libraries = 0;
};

// Every figure but the keys'. Samples the peak with the count it reads.
MemoryOverhead ReadMemoryOverhead(CommandContext& ctx);

// MEMORY STATS's databases, keys.count and keys.bytes-per-key, apart: counting keys walks up
// to 10,000 records a database (KeysPerDatabase), and INFO and DOCTOR show none of them.
void CountKeys(CommandContext& ctx, MemoryOverhead& m);

// MEMORY DOCTOR's report: Redis 7.0's checks and texts (getMemoryDoctorReport).
std::string MemoryDoctorReport(const MemoryOverhead& memory);

}  // namespace sluice::server
