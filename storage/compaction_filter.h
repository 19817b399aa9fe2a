#pragma once

// Compaction filters: how expired and orphaned state leaves the disk.
//
// - Metadata family: a record is dropped when IsExpiredAt(record, now, hold) (the same predicate
//   reads and the active cycle use; the hold as it was when the compaction started).
//   Undecodable records are kept.
// - Sub-entry families (subkeys, zscore): an entry is dropped when no database holds its owner
//   with the entry's version (versions are unique across keys and databases), or the owner
//   that does has expired or is of a type without sub-entries (string, limiter). Finding out
//   needs reads of the metadata families, through a MetadataSource that the engine attaches
//   after DB::Open and detaches before closing; while detached (or when a read fails, or the
//   entry does not decode) the entry is kept.
//
// "now" is read once per compaction from the injected Clock, as RocksDB's own TTL filter does,
// so one compaction takes consistent decisions, and never past the loop's hold on it
// (ExpiryHorizon). Nothing here throws into RocksDB.

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "storage/record.h"

namespace sluice::storage {

// The sub-entry filters' way to the metadata family. Thread-safe.
class MetadataSource {
 public:
  enum class Lookup { kFound, kMissing, kUnknown };

  // `metadata_families`: every database's (attached again when a database is added).
  void Attach(rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> metadata_families);
  // After Detach() returns, no new lookup touches the DB; the engine stops background work
  // first, so no lookup is in flight either.
  void Detach();

  // The metadata of `user_key` in the database that holds it with `version` (kMissing: none
  // does). kUnknown when detached, on a read error, or for undecodable metadata.
  Lookup Get(std::string_view user_key, uint64_t version, Metadata* meta) const;

 private:
  mutable std::mutex mu_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> families_;
};

// The limiter expiry hold (record.h) as the compaction threads see it. Thread-safe.
class SharedExpiryHold {
 public:
  void Set(std::optional<ExpiryHold> hold) {
    std::lock_guard lock(mu_);
    hold_ = hold;
  }
  std::optional<ExpiryHold> Get() const {
    std::lock_guard lock(mu_);
    return hold_;
  }

 private:
  mutable std::mutex mu_;
  std::optional<ExpiryHold> hold_;
};

// The loop's hold on "now" while a batch of commands is under way, as the compaction threads
// see it. A command reads keys as live as of its time (a script's or EXEC's start for all of
// it), and a write it stages may keep a key alive past an expiry the committed record shows
// (PEXPIRE, PERSIST): until the batch is committed, a compaction that drops what expired
// after the batch's first command could leave such a key without its elements, for good.
// Thread-safe.
class ExpiryHorizon {
 public:
  // From the loop, before the first command of a batch reads the clock: `ms` is no later
  // than any time the batch reads it at.
  void Hold(int64_t ms) {
    held_.store(ms, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // before the batch reads the clock
  }
  // From the loop, once no command runs and nothing is staged.
  void Release() { held_.store(kNone, std::memory_order_seq_cst); }
  // "Now" for a compaction that starts now. The clock is read first: read before a Hold, it
  // is no later than the times the batch reads after it; otherwise the Hold is seen.
  int64_t NowMillis(const Clock& clock) const {
    const int64_t now = clock.NowMillis();
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return std::min(now, held_.load(std::memory_order_seq_cst));
  }

 private:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> held_{kNone};
};

class MetadataFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  MetadataFilterFactory(const Clock* clock, std::shared_ptr<const ExpiryHorizon> horizon,
                        std::shared_ptr<const SharedExpiryHold> hold)
      : clock_(clock), horizon_(std::move(horizon)), hold_(std::move(hold)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "sluice.MetadataFilterFactory"; }

 private:
  const Clock* clock_;
  std::shared_ptr<const ExpiryHorizon> horizon_;
  std::shared_ptr<const SharedExpiryHold> hold_;
};

class SubEntryFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  SubEntryFilterFactory(const Clock* clock, std::shared_ptr<const ExpiryHorizon> horizon,
                        std::shared_ptr<const MetadataSource> source)
      : clock_(clock), horizon_(std::move(horizon)), source_(std::move(source)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "sluice.SubEntryFilterFactory"; }

 private:
  const Clock* clock_;
  std::shared_ptr<const ExpiryHorizon> horizon_;
  std::shared_ptr<const MetadataSource> source_;
};

}  // namespace sluice::storage
