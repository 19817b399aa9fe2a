// RocksDbEngine: compacting what a wipe (FLUSHALL, FLUSHDB) left of a large key space, and the
// tombstones of a mass expiry or deletion.

#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "storage/rocksdb_engine.h"

namespace sluice::storage {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(10);

// Merges files of family `cf` into its last level, where a wipe's range deletion drops the keys
// it removed, and then itself, and tombstones drop the keys they delete, and then themselves:
// the files with entries newer than `newer_than`, or every file. RocksDB adds the older level-0
// files and what overlaps them on their levels and below. CompactFiles, unlike CompactRange,
// never flushes: no thread but the loop may seal a key space's memtable
// (ShieldMemtableFromWipe).
// True once they are merged (or there were none), false if it gave up.
bool CompactIntoLastLevel(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                          std::optional<uint64_t> newer_than, const std::atomic<bool>& stop) {
  // RocksDB's own compactions may hold some of the files for a while: try again for about a
  // second, then leave the files to them.
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts && !stop; ++attempt) {
    rocksdb::ColumnFamilyMetaData family;
    db->GetColumnFamilyMetaData(cf, &family);
    std::vector<std::string> files;
    for (const rocksdb::LevelMetaData& level : family.levels) {
      for (const rocksdb::SstFileMetaData& file : level.files) {
        if (!newer_than || file.largest_seqno > *newer_than) files.push_back(file.name);
      }
    }
    if (files.empty()) return true;
    const int last_level = static_cast<int>(family.levels.size()) - 1;
    rocksdb::CompactionOptions options;
    options.compression = rocksdb::kDisableCompressionOption;  // the family's own setting
    // Files of the family's size, not one file of everything, which a later compaction of
    // any part of it would rewrite whole.
    options.output_file_size_limit = db->GetOptions(cf).target_file_size_base;
    rocksdb::Status s = db->CompactFiles(options, cf, files, last_level);
    // Aborted: a file is being compacted; InvalidArgument: one was compacted away since the
    // list was read. Anything else is done, or failed for good (the database closing, the disk).
    if (!s.IsAborted() && !s.IsInvalidArgument()) return s.ok();
    std::this_thread::sleep_for(kPollInterval);
  }
  return false;
}

}  // namespace

void RocksDbEngine::CompactWipedKeySpaces(const std::vector<KeySpace*>& wiped) {
  // Fewer are left to RocksDB's own compactions: a test suite's FLUSHALLs leave a few thousand
  // each, and a compaction every few of them made its run slower. From about this many on,
  // RocksDB's estimate can reach where INFO keyspace reports it (database_keys.cc).
  constexpr uint64_t kManyEntries = 100000;
  if (!compact_after_wipe_ || read_only_) return;
  std::vector<QueuedCompaction> families;
  for (KeySpace* space : wiped) {
    uint64_t entries = 0;
    for (const rocksdb::SstFileMetaData& file : KeySpaceFiles(space)) entries += file.num_entries;
    if (entries < kManyEntries) continue;
    // The range deletion must be in a file for the compaction to apply it. The memtable is
    // sealed here, on the loop; the flush itself runs on RocksDB's thread, and the compactor
    // waits for it.
    if (!SealMemtable(*space, /*wait=*/false, /*wal_end=*/false).ok())
      continue;  // the wipe stands; its keys go with later compactions
    families.push_back({handles_[space->family], space->last_wipe_sequence, std::nullopt});
  }
  QueueCompaction(std::move(families));
}

void RocksDbEngine::CompactSealedDeletions(KeySpace& space) {
  // About 2 ms of every walk over their tombstones and the records they hide. Fewer wait for
  // RocksDB's own compactions.
  constexpr uint64_t kManyDeleted = 20000;
  // The compaction rewrites about all the key space overlapping the files it merges: in a key
  // space whose keys expire (or are deleted) in key order, every few seconds if nothing else
  // held it back. A tenth of the key space (by RocksDB's estimate) deleted first keeps it
  // near ten rewritten keys per deleted one.
  constexpr uint64_t kKeysPerDeleted = 10;
  if (read_only_ || CompactorBusy()) return;
  rocksdb::ColumnFamilyHandle* cf = handles_[space.family];
  TakeBackGivenUp(space);
  // Deletions that go on (a mass expiry the cycle is still deleting, a script's DELs) would
  // leave what comes after the seal to RocksDB's compactions: wait for a look that finds none
  // since the last.
  const bool deleting = space.deleted_since_compaction != space.deleted_at_last_look;
  space.deleted_at_last_look = space.deleted_since_compaction;
  uint64_t keys = 0;
  if (deleting || space.deleted_since_compaction < kManyDeleted ||
      !db_->GetIntProperty(cf, rocksdb::DB::Properties::kEstimateNumKeys, &keys) ||
      space.deleted_since_compaction < keys / kKeysPerDeleted) {
    return;
  }
  uint64_t sealed = 0;
  uint64_t entries = 0;
  // A sealed memtable waiting for its flush would make the next flush not the one sealed here.
  if (!db_->GetIntProperty(cf, rocksdb::DB::Properties::kNumImmutableMemTable, &sealed) ||
      sealed > 0 ||
      !db_->GetIntProperty(cf, rocksdb::DB::Properties::kNumEntriesActiveMemTable, &entries)) {
    return;
  }
  // Nothing to wait for when the tombstones and swept records are all in files. (The memtable
  // does not count swept records: any entry of it may be one.)
  uint64_t flushed_through = 0;
  if (entries > 0) {
    // The memtable's own flush writes past it.
    flushed_through = MemtableAfterSequence(space) + 1;
    // A WAL's end, as a full memtable's flush: the next WAL takes the waiting zeroed file.
    if (!SealMemtable(space, /*wait=*/false, /*wal_end=*/true).ok()) return;
  }
  QueueCompaction({{cf, flushed_through, space.deleted_after_sequence.value_or(0)}});
  space.ForgetDeletions();
}

void RocksDbEngine::TakeBackGivenUp(KeySpace& space) {
  uint64_t given_up_after = 0;
  {
    const std::lock_guard lock(compact_mu_);
    auto found = given_up_after_.find(handles_[space.family]->GetID());
    if (found == given_up_after_.end()) return;
    given_up_after = found->second;
    given_up_after_.erase(found);
  }
  // A wipe since took its tombstones (but for a few: see WriteWipe).
  if (given_up_after < space.last_wipe_sequence) return;
  space.deleted_after_sequence =
      std::min(space.deleted_after_sequence.value_or(given_up_after), given_up_after);
}

uint64_t RocksDbEngine::MemtableAfterSequence(const KeySpace& space) const {
  // A flush installs its file before it takes the memtable off the sealed ones, so every entry
  // of the memtable is newer than every file of its family, and than what its flushes reported.
  uint64_t newest = background_events_->FlushedThrough(handles_[space.family]->GetID());
  for (const rocksdb::SstFileMetaData& file : KeySpaceFiles(&space)) {
    newest = std::max(newest, file.largest_seqno);
  }
  return newest;
}

void RocksDbEngine::QueueCompaction(std::vector<QueuedCompaction> compactions) {
  if (compactions.empty()) return;
  const std::lock_guard lock(compact_mu_);
  compact_queue_.insert(compact_queue_.end(), compactions.begin(), compactions.end());
  if (compacting_) return;  // the run under way takes them too
  compacting_ = true;
  StartCompactor();
}

void RocksDbEngine::StartCompactor() {
  // Fails while the last run is still returning: its done then starts this one.
  (void)compactor_->Start([this] { return CompactQueuedFamilies(); },
                          [this](Status /*status*/) {
                            const std::lock_guard lock(compact_mu_);
                            if (compacting_ && !stop_compacting_) StartCompactor();
                          });
}

Status RocksDbEngine::CompactQueuedFamilies() {
  // A flush that does not come (a disk error stops them) leaves the keys to later compactions.
  constexpr auto kMaxFlushWait = std::chrono::seconds(10);
  for (;;) {
    QueuedCompaction queued{};
    {
      const std::lock_guard lock(compact_mu_);
      if (compact_queue_.empty()) {
        compacting_ = false;
        return Status::Ok();
      }
      queued = compact_queue_.front();
      compact_queue_.erase(compact_queue_.begin());
    }
    if (before_queued_compaction_) before_queued_compaction_();
    const uint32_t cf_id = queued.family->GetID();
    const auto give_up_at = std::chrono::steady_clock::now() + kMaxFlushWait;
    while (!stop_compacting_ &&
           background_events_->FlushedThrough(cf_id) < queued.flushed_through &&
           std::chrono::steady_clock::now() < give_up_at) {
      std::this_thread::sleep_for(kPollInterval);
    }
    const bool done =
        background_events_->FlushedThrough(cf_id) >= queued.flushed_through &&
        CompactIntoLastLevel(db_, queued.family, queued.files_newer_than, stop_compacting_);
    if (!done && queued.files_newer_than) {
      // A mass deletion's: the family's next one takes its files in. Not at once, which a
      // compaction that keeps giving up (RocksDB's own compactions holding the files, the
      // disk failing) would repeat a flush and a second of tries for: after as many
      // deletions as the first waited for.
      const std::lock_guard lock(compact_mu_);
      auto [found, added] = given_up_after_.try_emplace(cf_id, *queued.files_newer_than);
      if (!added) found->second = std::min(found->second, *queued.files_newer_than);
    }
  }
}

bool RocksDbEngine::CompactorBusy() {
  const std::lock_guard lock(compact_mu_);
  return compacting_ || compactor_->Busy();
}

}  // namespace sluice::storage
