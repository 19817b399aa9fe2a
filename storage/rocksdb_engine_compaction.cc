// RocksDbEngine: compacting what a wipe (FLUSHALL, FLUSHDB) left of a large key space.

#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "storage/rocksdb_engine.h"

namespace sluice::storage {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(10);

// Merges every file of family `cf` into its last level, where the wipe's range deletion drops
// the keys it removed, and then itself. CompactFiles, unlike CompactRange, never flushes: no
// thread but the loop may seal a key space's memtable (ShieldMemtableFromWipe).
void CompactEveryFile(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                      const std::atomic<bool>& stop) {
  // RocksDB's own compactions may hold some of the files for a while: try again for about a
  // second, then leave the files to them.
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts && !stop; ++attempt) {
    rocksdb::ColumnFamilyMetaData family;
    db->GetColumnFamilyMetaData(cf, &family);
    std::vector<std::string> files;
    for (const rocksdb::LevelMetaData& level : family.levels) {
      for (const rocksdb::SstFileMetaData& file : level.files) files.push_back(file.name);
    }
    if (files.empty()) return;
    const int last_level = static_cast<int>(family.levels.size()) - 1;
    rocksdb::CompactionOptions options;
    options.compression = rocksdb::kDisableCompressionOption;  // the family's own setting
    rocksdb::Status s = db->CompactFiles(options, cf, files, last_level);
    // Aborted: a file is being compacted; InvalidArgument: one was compacted away since the
    // list was read. Anything else is done, or failed for good (the database closing, the disk).
    if (!s.IsAborted() && !s.IsInvalidArgument()) return;
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

void RocksDbEngine::CompactWipedKeySpaces(const std::vector<KeySpace*>& wiped) {
  // Fewer are left to RocksDB's own compactions: a test suite's FLUSHALLs leave a few thousand
  // each, and a compaction every few of them made its run slower. From about this many on,
  // RocksDB's estimate can reach where INFO keyspace reports it (database_keys.cc).
  constexpr uint64_t kManyEntries = 100000;
  if (!compact_after_wipe_ || read_only_) return;
  std::vector<WipedFamily> families;
  for (KeySpace* space : wiped) {
    uint64_t entries = 0;
    for (const rocksdb::SstFileMetaData& file : KeySpaceFiles(space)) entries += file.num_entries;
    if (entries < kManyEntries) continue;
    // The range deletion must be in a file for the compaction to apply it. The memtable is
    // sealed here, on the loop; the flush itself runs on RocksDB's thread, and the compactor
    // waits for it.
    if (!FlushWipedMemtable(space->family, /*wait=*/false).ok())
      continue;                    // the wipe stands; its keys go with later compactions
    space->wipes_in_memtable = 0;  // a new memtable
    families.push_back({handles_[space->family], space->last_wipe_sequence});
  }
  if (families.empty()) return;
  const std::lock_guard lock(wipe_mu_);
  wipe_queue_.insert(wipe_queue_.end(), families.begin(), families.end());
  if (wipe_compacting_) return;  // the run under way takes them too
  wipe_compacting_ = true;
  StartWipeCompactor();
}

void RocksDbEngine::StartWipeCompactor() {
  // Fails while the last run is still returning: its done then starts this one.
  (void)wipe_compactor_->Start([this] { return CompactQueuedFamilies(); },
                               [this](Status /*status*/) {
                                 const std::lock_guard lock(wipe_mu_);
                                 if (wipe_compacting_ && !stop_compacting_) StartWipeCompactor();
                               });
}

Status RocksDbEngine::CompactQueuedFamilies() {
  // A flush that does not come (a disk error stops them) leaves the keys to later compactions.
  constexpr auto kMaxFlushWait = std::chrono::seconds(10);
  for (;;) {
    WipedFamily wiped{};
    {
      const std::lock_guard lock(wipe_mu_);
      if (wipe_queue_.empty()) {
        wipe_compacting_ = false;
        return Status::Ok();
      }
      wiped = wipe_queue_.front();
      wipe_queue_.erase(wipe_queue_.begin());
    }
    if (before_wipe_compaction_) before_wipe_compaction_();
    const uint32_t cf_id = wiped.family->GetID();
    const auto give_up_at = std::chrono::steady_clock::now() + kMaxFlushWait;
    while (!stop_compacting_ && background_events_->FlushedThrough(cf_id) < wiped.wipe_sequence &&
           std::chrono::steady_clock::now() < give_up_at) {
      std::this_thread::sleep_for(kPollInterval);
    }
    if (background_events_->FlushedThrough(cf_id) >= wiped.wipe_sequence) {
      CompactEveryFile(db_, wiped.family, stop_compacting_);
    }
  }
}

bool RocksDbEngine::WipeCompactorBusy() {
  const std::lock_guard lock(wipe_mu_);
  return wipe_compacting_ || wipe_compactor_->Busy();
}

}  // namespace sluice::storage
