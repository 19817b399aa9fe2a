// HyperLogLog commands on strings: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST, with Redis
// 7.0's replies and errors (hyperloglog.c). The strings are Redis's bytes (hll_ops.h), read and
// written as SETRANGE does, so WATCH, MULTI/EXEC and scripts see them as any string write.
//
// Every write keeps the key's TTL; a key created by PFADD or PFMERGE has none. PFCOUNT of one
// key stores the estimate it computed in the string's cache, a write Redis signals to WATCH.

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "resp/error_messages.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/hll_ops.h"
#include "server/dispatcher.h"
#include "server/keyspace_events.h"
#include "storage/record.h"

namespace sluice::server {
namespace {

using storage::KeyType;
using storage::Record;

Status HllWrongType() { return {Code::kWrongType, std::string(resp::kHllWrongType)}; }
Status HllCorrupt() { return {Code::kRaw, std::string(resp::kHllCorrupt)}; }

uint64_t SparseMaxBytes(const CommandContext& ctx) {
  return ctx.server.config->hll_sparse_max_bytes;
}

// Reads `key` as an HLL: missing, or a string with an HLL header. Replies WRONGTYPE (Redis's
// usual text for another type, the HLL one for another string) and returns false otherwise.
bool LookupHll(CommandContext& ctx, std::string_view key, std::optional<Record>* record) {
  if (!LookupTyped(ctx, key, KeyType::kString, record)) return false;
  if (*record && !hll::HasValidHeader((*record)->payload)) {
    ReplyError(ctx, HllWrongType());
    return false;
  }
  return true;
}

// PFADD key [element ...]: 1 if a register changed or the key was created, else 0. Elements
// are added in order; a corrupt HLL stops them with INVALIDOBJ, the ones added before it kept
// (Redis changes the string in place).
void PfAddCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupHll(ctx, args[1], &record)) return;
  const bool created = !record;
  std::string sketch = created ? hll::NewHll() : std::move(record->payload);
  const int64_t expire_at_ms = created ? 0 : record->meta.expire_at_ms;
  bool updated = created;
  for (std::string_view element : args.subspan(2)) {
    const hll::SetResult result = hll::Add(sketch, element, SparseMaxBytes(ctx));
    if (result == hll::SetResult::kCorrupt) {
      if (updated) PutString(ctx, args[1], sketch, expire_at_ms);
      ReplyError(ctx, HllCorrupt());
      return;
    }
    updated = updated || result == hll::SetResult::kUpdated;
  }
  if (updated) {
    hll::InvalidateCache(sketch);
    PutString(ctx, args[1], sketch, expire_at_ms);
    NotifyKeyspaceEvent(ctx, kNotifyString, "pfadd", args[1]);
  }
  ctx.reply.Int(updated ? 1 : 0);
}

// PFCOUNT key [key ...] of several keys: the estimate of their union, stored nowhere.
void CountUnion(CommandContext& ctx, Args keys) {
  hll::RawRegisters max{};
  for (std::string_view key : keys) {
    std::optional<Record> record;
    if (!LookupHll(ctx, key, &record)) return;
    if (!record) continue;  // an empty HLL
    if (!hll::MergeInto(max, record->payload)) {
      ReplyError(ctx, HllCorrupt());
      return;
    }
  }
  ctx.reply.Int(static_cast<int64_t>(hll::Estimate(max)));
}

// PFCOUNT key: the cached estimate, or a new one, which is cached (a write of the key).
void PfCountCommand(CommandContext& ctx, Args args) {
  if (args.size() > 2) {
    CountUnion(ctx, args.subspan(1));
    return;
  }
  std::optional<Record> record;
  if (!LookupHll(ctx, args[1], &record)) return;
  if (!record) {
    ctx.reply.Int(0);
    return;
  }
  std::string& sketch = record->payload;
  if (std::optional<uint64_t> cached = hll::CachedCardinality(sketch)) {
    ctx.reply.Int(static_cast<int64_t>(*cached));
    return;
  }
  const std::optional<uint64_t> estimate = hll::Estimate(sketch);
  if (!estimate) {
    ReplyError(ctx, HllCorrupt());
    return;
  }
  hll::StoreCardinality(sketch, *estimate);
  PutString(ctx, args[1], sketch, record->meta.expire_at_ms);
  // A read-only command: the dispatcher signals no key, but Redis signals this one.
  if (ctx.server.dispatcher != nullptr)
    ctx.server.dispatcher->KeyWritten(ctx.client, args[1], ctx.now_us);
  ctx.reply.Int(static_cast<int64_t>(*estimate));
}

// PFMERGE destkey [sourcekey ...]: the union of the destination and the sources, stored in
// the destination (created sparse if missing, turned dense if any input is). Every key is a
// read lookup, the destination first; it is written even when nothing changed.
void PfMergeCommand(CommandContext& ctx, Args args) {
  hll::RawRegisters max{};
  bool any_dense = false;
  std::optional<Record> destination;
  {
    LookupCounting counting(ctx, true);
    for (size_t i = 1; i < args.size(); ++i) {
      std::optional<Record> record;
      if (!LookupHll(ctx, args[i], &record)) return;
      if (!record) continue;
      any_dense = any_dense || hll::EncodingOf(record->payload) == hll::Encoding::kDense;
      if (!hll::MergeInto(max, record->payload)) {
        ReplyError(ctx, HllCorrupt());
        return;
      }
      if (i == 1) destination = std::move(record);
    }
  }
  std::string sketch = destination ? std::move(destination->payload) : hll::NewHll();
  if (any_dense && !hll::ToDense(sketch)) {
    ReplyError(ctx, HllCorrupt());
    return;
  }
  for (int i = 0; i < hll::kRegisters; ++i) {
    const uint8_t value = max[static_cast<size_t>(i)];
    if (value != 0) (void)hll::SetRegister(sketch, i, value, SparseMaxBytes(ctx));
  }
  hll::InvalidateCache(sketch);
  PutString(ctx, args[1], sketch, destination ? destination->meta.expire_at_ms : 0);
  NotifyKeyspaceEvent(ctx, kNotifyString, "pfadd", args[1]);
  ctx.reply.Simple("OK");
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key: the key is looked up (and must be an HLL)
// before the subcommand is read. GETREG and TODENSE leave a sparse HLL dense.
void PfDebugCommand(CommandContext& ctx, Args args) {
  std::optional<Record> record;
  if (!LookupHll(ctx, args[2], &record)) return;
  if (!record) {
    ReplyError(ctx, Err(std::string(resp::kHllNoSuchKey)));
    return;
  }
  std::string& sketch = record->payload;
  const std::string_view sub = args[1];
  const bool sparse = hll::EncodingOf(sketch) == hll::Encoding::kSparse;
  auto to_dense = [&]() {
    if (!hll::ToDense(sketch)) {
      ReplyError(ctx, HllCorrupt());
      return false;
    }
    PutString(ctx, args[2], sketch, record->meta.expire_at_ms);
    return true;
  };
  if (IsCKeyword(sub, "getreg")) {
    if (sparse && !to_dense()) return;
    const std::string_view registers = std::string_view(sketch).substr(hll::kHeaderSize);
    ctx.reply.Array(hll::kRegisters);
    for (int i = 0; i < hll::kRegisters; ++i) ctx.reply.Int(hll::DenseRegister(registers, i));
  } else if (IsCKeyword(sub, "decode")) {
    if (!sparse) {
      ReplyError(ctx, Err(std::string(resp::kHllNotSparse)));
      return;
    }
    ctx.reply.Bulk(hll::DescribeSparse(sketch));
  } else if (IsCKeyword(sub, "encoding")) {
    ctx.reply.Simple(sparse ? "sparse" : "dense");
  } else if (IsCKeyword(sub, "todense")) {
    if (sparse && !to_dense()) return;
    ctx.reply.Int(sparse ? 1 : 0);
  } else {
    ReplyError(ctx, Err("Unknown PFDEBUG subcommand '" + std::string(resp::CString(sub)) + "'"));
  }
}

// PFSELFTEST: checks the dense registers and that sparse and dense strings fed the same
// elements hold the same estimate, within HLL's error of the exact count. Lighter than
// Redis's (which adds ten million elements), so the loop is not held for long.
Status SelfTest() {
  std::mt19937_64 rng(20240101);
  for (int round = 0; round < 4; ++round) {  // every register set, then read back
    std::string dense = hll::NewHll();
    if (!hll::ToDense(dense)) return Err("TESTFAILED could not create a dense HLL");
    hll::RawRegisters expected{};
    for (int i = 0; i < hll::kRegisters; ++i) {
      const auto value = static_cast<uint8_t>(rng() & 63);
      expected[static_cast<size_t>(i)] = value;
      if (value != 0) (void)hll::SetRegister(dense, i, value, 0);
    }
    const std::string_view registers = std::string_view(dense).substr(hll::kHeaderSize);
    for (int i = 0; i < hll::kRegisters; ++i) {
      if (hll::DenseRegister(registers, i) != expected[static_cast<size_t>(i)]) {
        return Err("TESTFAILED Register error at " + std::to_string(i));
      }
    }
  }
  std::string sparse = hll::NewHll();
  std::string promoted = hll::NewHll();
  if (!hll::ToDense(promoted)) return Err("TESTFAILED could not create a dense HLL");
  constexpr int kElements = 5000;
  for (int i = 1; i <= kElements; ++i) {
    const std::string element = "element:" + std::to_string(rng());
    (void)hll::Add(sparse, element, /*sparse_max_bytes=*/1u << 30);
    (void)hll::Add(promoted, element, 0);
    if (i % 1000 != 0 && i > 100) continue;
    const std::optional<uint64_t> a = hll::Estimate(sparse);
    const std::optional<uint64_t> b = hll::Estimate(promoted);
    if (!a || !b || *a != *b) {
      return Err("TESTFAILED Sparse and dense estimates differ at " + std::to_string(i));
    }
    // 1.04 / sqrt(m) is under 1%; 5% is far outside it.
    const double error = std::abs(static_cast<double>(*a) - i) / i;
    if (error > 0.05) return Err("TESTFAILED Too big error at " + std::to_string(i));
  }
  return Status();
}

void PfSelfTestCommand(CommandContext& ctx, Args) {
  if (ReplyIfError(ctx, SelfTest())) return;
  ctx.reply.Simple("OK");
}

}  // namespace

void RegisterHyperLogLogCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"pfadd", -2, F::kWrite | F::kFast, 1, 1, 1, PfAddCommand, "hyperloglog"});
  // Read-only, as Redis flags it, though it may write its key's cached estimate: refused in
  // read-only scripts for that (Redis's may_replicate).
  table.Register(
      {"pfcount", -2, F::kReadOnly | F::kMayReplicate, 1, -1, 1, PfCountCommand, "hyperloglog"});
  table.Register({"pfmerge", -2, F::kWrite, 1, -1, 1, PfMergeCommand, "hyperloglog"});
  table.Register({"pfdebug", 3, F::kWrite | F::kAdmin, 2, 2, 1, PfDebugCommand, "hyperloglog"});
  table.Register({"pfselftest", 1, F::kAdmin, 0, 0, 0, PfSelfTestCommand, "hyperloglog"});
}

}  // namespace sluice::server
