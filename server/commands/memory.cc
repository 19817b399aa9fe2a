// MEMORY: USAGE (what a key takes as stored), and STATS, DOCTOR, MALLOC-STATS and PURGE (the
// server's memory as the allocator and the storage engine report it), with Redis 7.0's replies
// (docs/notes.md, "MEMORY").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/ascii.h"
#include "common/string2ll.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/memory_overhead.h"
#include "server/metrics/allocator_stats.h"
#include "storage/composite.h"

namespace sluice::server {
namespace {

using storage::Record;

// MEMORY USAGE key [SAMPLES count]: the options first (as Redis: a negative count is a syntax
// error, 0 means every element), then Null for a missing key, else StoredBytes's estimate.
void MemoryUsageSub(CommandContext& ctx, Args args) {
  uint64_t samples = 5;  // Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES
  for (size_t i = 3; i < args.size(); ++i) {
    int64_t count = 0;
    if (!EqualsIgnoreCase(args[i], "SAMPLES") || i + 1 == args.size()) {
      ReplyError(ctx, SyntaxError());
      return;
    }
    if (!ParseInt64(args[++i], &count)) {
      ReplyError(ctx, NotIntegerError());
      return;
    }
    if (count < 0) {
      ReplyError(ctx, SyntaxError());
      return;
    }
    samples = static_cast<uint64_t>(count);
  }
  std::optional<Record> record;
  {
    const LookupCounting not_counted(ctx, false);  // Redis reads its key table directly
    if (!LookupAnyWithoutLongPayload(ctx, args[2], &record)) return;
  }
  if (!record) {
    ctx.reply.Null();
    return;
  }
  auto bytes = storage::StoredBytes(ctx.engine(), args[2], *record, samples);
  if (ReplyIfError(ctx, bytes.status())) return;
  ctx.reply.Int(static_cast<int64_t>(*bytes));
}

// MEMORY STATS: Redis 7.0's map, field for field and in its order (integers, and floats sent
// as doubles), then sluice's storage figures.
void MemoryStatsSub(CommandContext& ctx, Args) {
  MemoryOverhead m = ReadMemoryOverhead(ctx);
  CountKeys(ctx, m);
  constexpr int64_t kRedisFields = 27, kSluiceFields = 4;
  ctx.reply.Map(kRedisFields + static_cast<int64_t>(m.databases.size()) + kSluiceFields);
  auto integer = [&](std::string_view name, auto value) {
    ctx.reply.Bulk(name);
    ctx.reply.Int(static_cast<int64_t>(value));
  };
  auto ratio = [&](std::string_view name, float value) {
    ctx.reply.Bulk(name);
    ctx.reply.Double(static_cast<double>(value));
  };
  integer("peak.allocated", m.peak_allocated);
  integer("total.allocated", m.total_allocated);
  integer("startup.allocated", m.startup_allocated);
  integer("replication.backlog", 0);
  integer("clients.slaves", 0);
  integer("clients.normal", m.clients_normal);
  integer("cluster.links", 0);
  integer("aof.buffer", 0);
  integer("lua.caches", m.lua_caches);
  integer("functions.caches", m.functions_caches);
  for (int db : m.databases) {
    ctx.reply.Bulk("db." + std::to_string(db));
    ctx.reply.Map(3);
    integer("overhead.hashtable.main", 0);  // no hash table: RocksDB holds the keys
    integer("overhead.hashtable.expires", 0);
    integer("overhead.hashtable.slot-to-keys", 0);  // Redis's cluster mode only
  }
  integer("overhead.total", m.overhead_total);
  integer("keys.count", m.total_keys);
  integer("keys.bytes-per-key", m.bytes_per_key);
  integer("dataset.bytes", m.dataset);
  ratio("dataset.percentage", m.dataset_percentage);
  ratio("peak.percentage", m.peak_percentage);
  integer("allocator.allocated", m.allocator_allocated);
  integer("allocator.active", m.allocator_active);
  integer("allocator.resident", m.allocator_resident);
  ratio("allocator-fragmentation.ratio", m.allocator_frag);
  integer("allocator-fragmentation.bytes", m.allocator_frag_bytes);
  ratio("allocator-rss.ratio", m.allocator_rss);
  integer("allocator-rss.bytes", m.allocator_rss_bytes);
  ratio("rss-overhead.ratio", m.rss_extra);
  integer("rss-overhead.bytes", m.rss_extra_bytes);
  ratio("fragmentation", m.total_frag);
  integer("fragmentation.bytes", m.total_frag_bytes);
  integer("rocksdb.memtables", m.rocksdb_memtables);
  integer("rocksdb.block-cache", m.rocksdb_block_cache);
  integer("rocksdb.table-readers", m.rocksdb_table_readers);
  integer("record-cache", m.record_cache.bytes);
}

void MemoryDoctorSub(CommandContext& ctx, Args) {
  ctx.reply.Verbatim(MemoryDoctorReport(ReadMemoryOverhead(ctx)));
}

void MemoryMallocStatsSub(CommandContext& ctx, Args) { ctx.reply.Verbatim(AllocatorReport()); }

void MemoryPurgeSub(CommandContext& ctx, Args) {
  if (!PurgeAllocator()) {
    ReplyError(ctx, Err("Error purging dirty pages"));
    return;
  }
  ctx.reply.Ok();
}

void MemoryHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return the bytes <key> takes as stored (its record and its elements, before",
      "    compression). Nested values are sampled up to <count> times (default: 5, 0",
      "    means sample all).",
  };
  ReplyHelp(ctx, "MEMORY", kLines);
}

// Redis's tips: each shard's own report, merged by the caller.
constexpr CommandTips kEachShardsReport{CommandTip::kNondeterministicOutput,
                                        CommandTip::kRequestAllShards,
                                        CommandTip::kResponseSpecial};

// Redis's categories: only USAGE reads the key space (@read).
constexpr std::string_view kServerWide[] = {"@slow"};

constexpr Subcommand kMemorySubcommands[] = {
    WithAclCategories(WithTips({"doctor", 2, MemoryDoctorSub}, kEachShardsReport), kServerWide),
    WithAclCategories(WithTips({"malloc-stats", 2, MemoryMallocStatsSub}, kEachShardsReport),
                      kServerWide),
    WithAclCategories(WithTips({"purge", 2, MemoryPurgeSub}, kOnAllShards), kServerWide),
    WithAclCategories(WithTips({"stats", 2, MemoryStatsSub}, kEachShardsReport), kServerWide),
    {"usage", -3, MemoryUsageSub},
    WithAclCategories({"help", 2, MemoryHelpSub}, kServerWide),
};

void MemoryCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kMemorySubcommands);
}

}  // namespace

void RegisterMemoryCommands(CommandTable& table) {
  table.Register({"memory", -2, CommandFlags::kReadOnly, 0, 0, 0, MemoryCommand, "server",
                  kMemorySubcommands});
}

}  // namespace sluice::server
