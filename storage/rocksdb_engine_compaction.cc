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

// Merges every file of family `cf` into its last level, where the wipe's range deletion drops
// the keys it removed, and then itself. CompactFiles, unlike CompactRange, never flushes: no
// thread but the loop may seal a key space's memtable (ShieldMemtableFromWipe).
void CompactEveryFile(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
  // RocksDB's own compactions may hold some of the files for a while: try again a few times,
  // then leave the files to them.
  constexpr int kAttempts = 20;
  constexpr auto kPause = std::chrono::milliseconds(50);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    rocksdb::ColumnFamilyMetaData family;
    db->GetColumnFamilyMetaData(cf, &family);
    std::vector<std::string> files;
    for (const rocksdb::LevelMetaData& level : family.levels) {
      for (const rocksdb::SstFileMetaData& file : level.files) files.push_back(file.name);
    }
    if (files.empty()) return;
    const int last_level = static_cast<int>(family.levels.size()) - 1;
    rocksdb::Status s = db->CompactFiles(rocksdb::CompactionOptions(), cf, files, last_level);
    if (!s.IsAborted()) return;  // done, or failed for good (the database closing, the disk)
    std::this_thread::sleep_for(kPause);
  }
}

}  // namespace

void RocksDbEngine::CompactWipedKeySpaces(const std::vector<KeySpace*>& wiped) {
  // As many entries as an exact key count reads: fewer distort no estimate INFO keyspace
  // reports, and RocksDB's own compactions take them soon enough (a test suite's FLUSHALLs
  // leave a few).
  constexpr uint64_t kManyEntries = 10000;
  if (!compact_after_wipe_ || read_only_) return;
  std::vector<rocksdb::ColumnFamilyHandle*> families;
  for (KeySpace* space : wiped) {
    uint64_t entries = 0;
    for (const rocksdb::SstFileMetaData& file : KeySpaceFiles(space)) entries += file.num_entries;
    if (entries < kManyEntries) continue;
    // The range deletion must be in a file for the compaction to apply it. The flush seals the
    // memtable here, on the loop, and passes the zeroed WAL file over, as the shield's does.
    rocksdb::FlushOptions flush;
    flush.allow_write_stall = true;
    wal_files_->SetPassedOver(true);
    const rocksdb::Status flushed = db_->Flush(flush, handles_[space->family]);
    wal_files_->SetPassedOver(false);
    if (flushed.ok()) families.push_back(handles_[space->family]);
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
                                 if (wipe_compacting_) StartWipeCompactor();
                               });
}

Status RocksDbEngine::CompactQueuedFamilies() {
  for (;;) {
    rocksdb::ColumnFamilyHandle* family = nullptr;
    {
      const std::lock_guard lock(wipe_mu_);
      if (wipe_queue_.empty()) {
        wipe_compacting_ = false;
        return Status::Ok();
      }
      family = wipe_queue_.front();
      wipe_queue_.erase(wipe_queue_.begin());
    }
    CompactEveryFile(db_, family);
  }
}

bool RocksDbEngine::WipeCompactorBusy() {
  const std::lock_guard lock(wipe_mu_);
  return wipe_compacting_ || wipe_compactor_->Busy();
}

}  // namespace sluice::storage
