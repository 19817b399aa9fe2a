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
// so one compaction takes consistent decisions, and never past a running script's or EXEC's
// fixed expiry time (FixedExpiryTime). Nothing here throws into RocksDB.

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// Redis 7.0's fixed expiry time as the compaction threads see it: while a script or an EXEC
// runs, its keys expire as of its start (Engine::SwapFixedExpiryTime), so a compaction that
// starts meanwhile must not drop a key, or a key's elements, that it still reads as live.
// Thread-safe.
class FixedExpiryTime {
 public:
  std::optional<int64_t> Swap(std::optional<int64_t> ms) {
    std::lock_guard lock(mu_);
    return std::exchange(ms_, ms);
  }
  // "Now" for a compaction that starts now: the clock's, never past a fixed expiry time.
  int64_t NowMillis(const Clock& clock) const {
    std::lock_guard lock(mu_);
    const int64_t now = clock.NowMillis();
    return ms_ ? std::min(now, *ms_) : now;
  }

 private:
  mutable std::mutex mu_;
  std::optional<int64_t> ms_;
};

class MetadataFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  MetadataFilterFactory(const Clock* clock, std::shared_ptr<const FixedExpiryTime> fixed,
                        std::shared_ptr<const SharedExpiryHold> hold)
      : clock_(clock), fixed_(std::move(fixed)), hold_(std::move(hold)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "sluice.MetadataFilterFactory"; }

 private:
  const Clock* clock_;
  std::shared_ptr<const FixedExpiryTime> fixed_;
  std::shared_ptr<const SharedExpiryHold> hold_;
};

class SubEntryFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  SubEntryFilterFactory(const Clock* clock, std::shared_ptr<const FixedExpiryTime> fixed,
                        std::shared_ptr<const MetadataSource> source)
      : clock_(clock), fixed_(std::move(fixed)), source_(std::move(source)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "sluice.SubEntryFilterFactory"; }

 private:
  const Clock* clock_;
  std::shared_ptr<const FixedExpiryTime> fixed_;
  std::shared_ptr<const MetadataSource> source_;
};

}  // namespace sluice::storage
