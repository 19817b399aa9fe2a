#pragma once

// The Engine on RocksDB: four column families ("default" holds database 0's metadata records,
// "subkeys" and "zscore" the composite types' elements, "system" server metadata), one more
// per other database ever selected ("db1", "db2", ...: their metadata records), compaction
// filters driven by the injected Clock.
//
// Staged writes live in a WriteStage (a hash map: the latest write per key) and reach RocksDB
// as one WriteBatch at Commit. Point reads look in the stage, then in a RecordCache of
// committed key-space records, then in RocksDB. Iterators need an ordered view of the staged
// writes: the first iterator of a batch copies the stage into a WriteBatchWithIndex that then
// mirrors every further write of that batch, so only batches that iterate pay for an index.

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "storage/background_errors.h"
#include "storage/background_events.h"
#include "storage/background_worker.h"
#include "storage/bounded_iterator.h"
#include "storage/compaction_filter.h"
#include "storage/dir_lock.h"
#include "storage/engine.h"
#include "storage/indexed_memtable.h"
#include "storage/record_cache.h"
#include "storage/replay_prefetch.h"
#include "storage/wal_syncer.h"
#include "storage/write_stage.h"
#include "storage/zeroed_wal.h"

namespace sluice::storage {

inline constexpr const char* kSubkeysFamilyName = "subkeys";
inline constexpr const char* kZScoreFamilyName = "zscore";
inline constexpr const char* kSystemFamilyName = "system";

// The RocksDB options sluice opens with (exposed for tests and tools).
rocksdb::DBOptions MakeDbOptions(const EngineOptions& options);
// Column family options without a compaction filter factory, in blocks of `block_bytes`
// before compression.
inline constexpr size_t kDefaultBlockBytes = 4096;  // RocksDB's
// The key spaces': most of their reads are point reads the record cache missed, each reading
// one block (docs/performance.md, change 67).
inline constexpr size_t kKeySpaceBlockBytes = 1024;
rocksdb::ColumnFamilyOptions MakeColumnFamilyOptions(const EngineOptions& options,
                                                     std::shared_ptr<rocksdb::Cache> cache,
                                                     size_t block_bytes = kDefaultBlockBytes);

class RocksDbEngine final : public Engine {
 public:
  static StatusOr<std::unique_ptr<RocksDbEngine>> Open(const EngineOptions& options,
                                                       const Clock* clock);
  ~RocksDbEngine() override;
  RocksDbEngine(const RocksDbEngine&) = delete;
  RocksDbEngine& operator=(const RocksDbEngine&) = delete;

  std::vector<int> Databases() const override;
  Status SwapDatabases(int a, int b) override;

  StatusOr<std::optional<RecordView>> GetView(std::string_view key, int64_t now_ms) override;
  StatusOr<std::optional<RecordView>> GetViewNotingExpired(std::string_view key, int64_t now_ms,
                                                           uint32_t* expired_bytes) override;
  StatusOr<std::optional<RecordView>> GetViewWithoutLongPayload(std::string_view key,
                                                                int64_t now_ms) override;
  void PrefetchKeys(std::span<const std::string_view> keys) override {
    if (space_->family == kMetadataFamily) cache_.Prefetch(keys);  // a hint: database 0's
  }
  using Engine::Put;
  using Engine::PutWithoutLongPayload;
  void Put(std::string_view key, const Metadata& meta, std::string_view payload) override;
  void PutWithoutLongPayload(std::string_view key, const Metadata& meta,
                             std::string_view payload) override;
  void Delete(std::string_view key) override;

  uint64_t NextVersion() override;
  StatusOr<std::optional<std::string>> GetSubEntry(SubFamily family, std::string_view key) override;
  void PutSubEntry(SubFamily family, std::string_view key, std::string_view value) override;
  void DeleteSubEntry(SubFamily family, std::string_view key) override;
  std::unique_ptr<SubEntryIterator> NewSubEntryRangeIterator(SubFamily family, std::string lower,
                                                             std::string upper) override;

  bool HasStagedWrites() const override { return !stage_.empty() || !staged_wipe_.empty(); }
  bool SystemEntriesStaged() const override { return system_staged_; }
  uint64_t ReopenCount() const override { return reopens_; }
  uint64_t StagedWriteCount() const override { return stage_.writes_staged(); }
  void ReleaseIdleBuffers() override;
  bool KeyWrittenSince(std::string_view key, uint64_t count) const override {
    return stage_.WrittenSince(space_->family, key, count);
  }
  Status Commit(bool sync) override;
  void DiscardStaged() override;
  Status SyncWal() override;
  bool StartWalSync(std::function<void(Status)> done) override;
  void SetSyncEveryCommit(bool every_commit) override;
  ZeroedWalStats GetZeroedWalStats() const override;
  BackgroundEventStats GetBackgroundEventStats() const override;

  StatusOr<ScanPage> Scan(std::string_view after_key, size_t count, const ScanFilter& filter,
                          int64_t now_ms) override;
  StatusOr<std::vector<std::string>> Keys(std::string_view pattern, int64_t now_ms) override;
  StatusOr<KeyCounts> CountKeys(int64_t now_ms) override;
  StatusOr<std::optional<KeyCounts>> CountKeysUpTo(uint64_t max_records, int64_t now_ms) override;
  bool StartKeyCount(int64_t now_ms, KeyCountDone done) override;
  StatusOr<KeyCounts> EstimateKeys() override;
  bool KeyEstimateIsSound() override;
  void FlushAll() override;
  void FlushDatabase() override;

  size_t ActiveExpireStep(int64_t now_ms, size_t max_examined, size_t max_expired) override;
  bool ExpireStepStoppedInTombstones() const override { return expire_stopped_in_tombstones_; }
  void SetLimiterExpiryHold(std::optional<ExpiryHold> hold) override;
  void HoldExpiryHorizon() override;
  void ReleaseExpiryHorizon() override;
  Status CompactAll() override;
  std::string DirLockProblem() const override { return dir_lock_->problem(); }
  Status StartFlush() override;
  Status FlushForStop() override;

  uint64_t GetIntProperty(std::string_view name) const override;
  RecordCacheStats GetRecordCacheStats() const override {
    return {cache_.bytes(), cache_.capacity(), cache_.entries(), cache_.hits(), cache_.misses()};
  }
  void ResetRecordCacheCounters() override { cache_.ResetCounters(); }
  void SetRecordCacheCapacity(uint64_t bytes) override { cache_.SetCapacity(bytes); }
  bool TrimRecordCache() override { return cache_.TrimStep(RecordCache::kEvictionsPerStep); }
  uint64_t GetKeyspaceIntProperty(std::string_view name) const override;
  StatusOr<uint64_t> CountRawEntries() override;
  StatusOr<uint64_t> CountRawSubEntries(SubFamily family) override;
  Status BackgroundError() const override;
  bool HasBackgroundError() const override { return listener_->HasError(); }
  bool StartResume(std::function<void(Status)> done) override;
  StatusOr<std::string> CreateCheckpoint(int64_t now_unix_s, size_t keep) override;

 protected:
  Status SwitchDatabase(int db) override;

 private:
  // One database's key space: its metadata column family and what goes with it.
  struct KeySpace {
    int db = 0;
    uint8_t family = 0;  // index in handles_ and in the stage
    // Its memtable factory (a factory follows one column family's memtables).
    std::shared_ptr<IndexedSkipListFactory> memtable;
    std::optional<std::string> expire_resume;  // where the active cycle's next step begins
    // FLUSHALLs whose range deletion went into the memtable since a wipe last flushed it (an
    // overcount if the memtable filled up and was flushed since).
    int wipes_in_memtable = 0;
    // The first sequence number of the last batch that wrote a range deletion here (a wipe),
    // 0 for none since the open: it is in a memtable until a flush writes this far.
    uint64_t last_wipe_sequence = 0;
    // Keys deleted here (by commands or the active cycle, not by a wipe) since their
    // tombstones were last queued for compaction (CompactSealedDeletions), and the last
    // sequence number before the first of them (or of a compaction's that gave up): their
    // tombstones are all newer. The count starts at zero when the server starts and at a wipe.
    uint64_t deleted_since_compaction = 0;
    // The count when CompactSealedDeletions last looked: a mass deletion is compacted once it
    // has paused, not while it goes on.
    uint64_t deleted_at_last_look = 0;
    std::optional<uint64_t> deleted_after_sequence;
    // A sequence number every entry of the memtable is newer than, read when a swept record
    // was first counted since the last compaction was queued (CountDeletion): still a bound
    // for later memtables, only a looser one.
    std::optional<uint64_t> memtable_after_sequence;

    // Their tombstones are queued for compaction, or went with a wipe.
    void ForgetDeletions() {
      deleted_since_compaction = 0;
      deleted_at_last_look = 0;
      deleted_after_sequence.reset();
      memtable_after_sequence.reset();
    }
  };
  // A compaction for the compactor (CompactQueuedFamilies) to run.
  struct QueuedCompaction {
    rocksdb::ColumnFamilyHandle* family;
    // Its files hold what is to go (a wipe, tombstones) once a flush has written this far.
    uint64_t flushed_through;
    // Only the files with entries newer than this (and what RocksDB adds to them: older
    // level-0 files, what overlaps them) are compacted; every file for a wipe.
    std::optional<uint64_t> files_newer_than;
  };

  RocksDbEngine(const Clock* clock, std::shared_ptr<MetadataSource> metadata_source,
                std::shared_ptr<BackgroundErrorListener> listener, size_t record_cache_bytes);

  // Index of a family in handles_ (and in the stage): database 0's metadata 0, then subkeys,
  // zscore, system, then the other databases' metadata in the order they were created.
  static constexpr uint8_t kMetadataFamily = 0;
  static constexpr uint8_t kFirstDatabaseFamily = 4;  // the first family made for a database
  static std::string DatabaseFamilyName(int db) { return "db" + std::to_string(db); }
  // The system family's record of which family holds which database, once SWAPDB has traded
  // two: "<db>=<family name> ..." for every database in use.
  static constexpr const char* kDatabaseMapKey = "databases";
  // The system family's bound on the versions handed out (NextVersion): every version the log
  // holds is below it, so that no restart hands one out again, whatever the clock says then
  // (a deleted key's elements wait for compaction under their version).
  static constexpr const char* kVersionCeilingKey = "version-ceiling";
  // How far a ceiling reaches past the version that logs it: versions follow the clock in
  // microseconds, so a new ceiling goes to the log about once an hour at most.
  static constexpr uint64_t kVersionsPerCeiling = uint64_t{1} << 32;
  static uint8_t FamilyIndex(SubFamily family);
  // Whether family index `family` holds a database's key space (metadata records).
  static bool IsKeySpaceFamily(uint8_t family) {
    return family == kMetadataFamily || family >= kFirstDatabaseFamily;
  }
  // After a write whose last entries are the stage's: brings the record cache up to them and
  // counts their key-space deletions (CountDeletion).
  void FollowCommittedStage();
  // Brings the record cache up to a committed write.
  void CacheCommitted(const WriteStage::Entry& e);
  // Counts a committed deletion in family `family` for CompactSealedDeletions, if it holds a
  // key space; `before_sequence` is the last sequence number before its batch, nullopt for a
  // swept record (its entry may be one rewritten in place, under an older number).
  void CountDeletion(uint8_t family, std::optional<uint64_t> before_sequence);
  // A commit's buffer (or the mirror) larger than this is not kept for reuse.
  static constexpr size_t kKeptCommitBatchBytes = 1 << 20;
  static rocksdb::WriteBatchWithIndex NewMirror() {
    return rocksdb::WriteBatchWithIndex(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true);
  }
  // Empties the mirror (if active), freeing a large one's buffer.
  void ClearMirror();

  // Opens db_ and handles_ from db_options_ and families_ (read-only: no writes, no lock).
  Status OpenDb(bool read_only);
  // Waits for background work, then closes and deletes db_ and its handles.
  void CloseDb();
  // Destroys the handles, closes and deletes `db` (left null).
  static void CloseAndDelete(rocksdb::DB*& db, std::vector<rocksdb::ColumnFamilyHandle*>& handles);
  // DB::Resume(), on the resumer's thread; notes a fatal error in needs_reopen_.
  // (rocksdb_engine_recovery.cc)
  Status Resume();
  // For errors DB::Resume() cannot clear (an I/O error in the WAL, a read-only file system):
  // once the directory takes a synced write again, closes the database and opens it anew,
  // which replays the WAL. If it cannot be opened for writing, it is opened read-only so
  // reads keep working, and the next attempt tries again.
  Status Reopen();
  // After a reopen: the record cache, the databases' map and the expiry sweeps start again
  // from what the reopened database holds.
  Status FollowReopenedDb();
  // Ok when the database's files open read-only (a trial open, closed again).
  Status CheckOpensReadOnly() const;

  // The selected database's metadata family.
  rocksdb::ColumnFamilyHandle* metadata_cf() const { return handles_[space_->family]; }
  // An integer property of family `family` (an index in handles_), 0 where RocksDB has none.
  uint64_t FamilyIntProperty(uint8_t family, std::string_view name) const;
  // Makes database `db`'s key space (its column family) if it has none.
  Status EnsureKeySpace(int db);
  // Applies the databases' map that the database holds (written by SwapDatabases' commits):
  // after OpenDb at open, and when a staged swap is discarded.
  Status ReadDatabaseMap();
  // Seeds NextVersion from the logged kVersionCeilingKey (it takes the clock if that is later).
  Status ReadVersionCeiling();
  // "<db>=<family name> ..." for every database in use, as SwapDatabases stages it.
  std::string DatabaseMap() const;
  // The database a metadata family is named after ("default": 0, "db<n>": n), or -1.
  int NamesakeDatabase(size_t family) const;
  // Column family options for a database's key space, with a memtable factory of its own.
  rocksdb::ColumnFamilyOptions KeySpaceOptions(std::shared_ptr<IndexedSkipListFactory> memtable) const;
  // Adds a key space for `family`, the index of database `db`'s metadata family.
  void AddKeySpace(int db, uint8_t family, std::shared_ptr<IndexedSkipListFactory> memtable);
  // Tells the compaction filters where every database's metadata is.
  void AttachMetadataSource();
  // A key at least as large as every key in `space`: the end of a wipe's range.
  std::string KeySpaceUpperBound(const KeySpace& space) const;
  // The table files of `space` (the selected database's by default), every level's.
  std::vector<rocksdb::SstFileMetaData> KeySpaceFiles(const KeySpace* space = nullptr) const;
  // Starts flushes of the families but `sealed_family` whose memtables hold writes, so that
  // no idle family keeps the WAL files a run of seals leaves behind.
  void FlushOtherMemtables(uint8_t sealed_family);
  // Every family's memtable to table files (StartFlush, FlushForStop).
  Status FlushAllFamilies(bool wait);
  // Flushes the memtable of `space`, waiting for the flush or not (the memtable is sealed on
  // this thread either way); a new memtable holds no wipe. A flush that is not a WAL's end
  // (a wipe's, `wal_end` false) makes the new WAL an ordinary file, and the zeroed one waits
  // for a later WAL (zeroed_wal.h).
  rocksdb::Status SealMemtable(KeySpace& space, bool wait, bool wal_end);
  // Makes sure no memtable entry of `space` is older than `wipe` and updatable in place.
  Status ShieldMemtableFromWipe(KeySpace& space, rocksdb::WriteBatch& wipe);
  // FLUSHALL and FLUSHDB: stages the wipe of the families `wiped` says (by index): their
  // staged writes go, and reads of them see only what is staged from now on.
  void StageWipe(const std::vector<bool>& wiped);
  // Whether a staged wipe hides family `family`'s committed entries.
  bool WipeStaged(uint8_t family) const {
    return family < staged_wipe_.size() && staged_wipe_[family];
  }
  // Commit with a staged wipe: deletes every committed entry of the wiped families, then
  // writes the staged writes, as one batch.
  Status CommitWipe(bool sync);
  Status WriteWipe(const std::vector<bool>& wiped, bool sync);
  // After a wipe's write (storage/rocksdb_engine_compaction.cc): a key space whose files still
  // hold many entries older than the wipe (level 0's, which DeleteFilesInRange keeps) has its
  // memtable sealed here, on the loop, and is queued for the compactor, which waits for that
  // flush to put the range deletion in a file, then merges the files into the last level.
  // Until then its removed keys take disk and RocksDB's estimate counts them (INFO keyspace).
  void CompactWipedKeySpaces(const std::vector<KeySpace*>& wiped);
  // After an active expiry step stopped in a long run of deleted keys in `space`: if many
  // keys were deleted there since the last time (a mass expiry or DEL: 20,000, and a tenth of
  // the key space), seals its memtable here, on the loop, and queues the files that hold
  // their tombstones for the compactor, which merges them, with what RocksDB adds (older
  // level-0 files, what they overlap below), into the last level, where the tombstones go.
  // Until then every walk of the key space (active expiry, SCAN, RANDOMKEY) passes them, and
  // a quiet server may not flush or compact for hours.
  void CompactSealedDeletions(KeySpace& space);
  // Makes the next compaction of `space` take in the files of its last one that gave up, if
  // one did since the last wipe.
  void TakeBackGivenUp(KeySpace& space);
  // A sequence number every entry of `space`'s active memtable is newer than: the largest its
  // files and its flushes hold.
  uint64_t MemtableAfterSequence(const KeySpace& space) const;
  // Queues `compactions` and starts the compactor if it is not running.
  void QueueCompaction(std::vector<QueuedCompaction> compactions);
  // Starts the compactor on the queue (compact_mu_ held).
  void StartCompactor();
  // The compactor's work: runs the queued compactions until the queue is empty.
  Status CompactQueuedFamilies();
  // Whether the compactor has work queued or under way (Reopen waits for it).
  bool CompactorBusy();
  // One step of the active cycle in one key space (ActiveExpireStep), from
  // `space.expire_resume` to the end or to `stop_at`; `*sweep_done` says whether it reached the
  // end. Takes what it examines off `*max_examined`.
  size_t ActiveExpireStepIn(KeySpace& space, int64_t now_ms,
                            const std::optional<std::string>& stop_at, size_t* max_examined,
                            size_t max_expired, bool* sweep_done);
  rocksdb::ColumnFamilyHandle* Family(SubFamily family) const;
  // Reads a metadata-family value: the stage, the record cache, RocksDB. nullopt: not found.
  // The view is valid until the next call into the engine.
  StatusOr<std::optional<std::string_view>> ReadMetadataValue(std::string_view key);
  // GetView, and GetViewWithoutLongPayload when !read_long_payload; the size of an expired
  // record in `*expired_bytes` when given (GetViewNotingExpired).
  StatusOr<std::optional<RecordView>> LookUp(std::string_view key, int64_t now_ms,
                                             bool read_long_payload,
                                             uint32_t* expired_bytes = nullptr);
  // A sub-entry: a view of the stage, or of `buffer` read from RocksDB. nullopt: not found.
  StatusOr<std::optional<std::string_view>> ReadSubEntry(SubFamily family, std::string_view key,
                                                         std::string* buffer);
  // A long string's bytes: its chunks gathered into outside_buf_, or (written before chunks)
  // its one sub-entry viewed in the stage or outside_buf_.
  StatusOr<std::optional<std::string_view>> ReadOutsidePayload(std::string_view key,
                                                               const Metadata& meta);
  static constexpr uint64_t kKeptReadBufferBytes = 1 << 20;
  // The staged writes in an indexed batch, for merged iterators over `family` (starts
  // mirroring the stage; the other families' entries wait for an iterator over theirs).
  rocksdb::WriteBatchWithIndex* IteratorBatch(uint8_t family);
  void MarkUnmirrored(size_t stage_index);
  // What a new iterator merges over the database: IteratorBatch(), or nothing while nothing is
  // staged. A database iterator alone is cheaper to step than one merged with a batch (the
  // loop's CPU for an LRANGE of 100 elements: 10.4 us against 12.6), and reads mostly come
  // with nothing staged. Writes staged while it is open do not reach it (engine.h).
  rocksdb::WriteBatchWithIndex* MergedBatch(uint8_t family);
  void StagePut(uint8_t family, std::string_view key, std::string_view value);
  std::string* StagePutInPlace(uint8_t family, std::string_view key);
  void CheckNoUnmergedIterator() const;  // debug builds: the staging functions' precondition
  void StageDelete(uint8_t family, std::string_view key);
  // An expired key-space record that a read or the active cycle found, counted and reported:
  // staged swept (kSweptExpireAtMs), or deleted unless it SweepsInPlace. `record` may view
  // the stage.
  void StageExpired(uint8_t family, std::string_view key, std::string_view record);
  // Applies a staged entry to the iterators' merged view.
  void Mirror(const WriteStage::Entry& e);
  // After a write while the mirror is active: mirrors the entry it staged now if an iterator
  // is open, else when the next one opens (unmirrored_).
  void MirrorStaged();
  // Put's rare path (put_observed_): mirrors the write for open iterators and reports a key
  // created (KeyEventObserver::OnKeyCreated).
  void PutObserved(std::string_view key, const Metadata& meta, std::string_view payload);
  // Stages the record; returns its encoded value in the stage.
  const std::string& StageRecord(std::string_view key, const Metadata& meta,
                                 std::string_view payload);
  // Whether `key` holds a record that has not expired (staged writes included).
  bool HoldsLiveRecord(std::string_view key);
  // Whether a write of *key creates it, when creations are reported (else false, unchecked).
  // *key then views *key_copy.
  bool WriteCreates(std::string_view* key, std::string* key_copy);
  void KeyEventsChanged() override;
  void UpdatePutObserved();
  // Merged (batch over DB) iterator over the metadata keys in [lower, upper).
  // One page of Scan, passing at most `max_skipped` internal entries in each Seek or Next (0:
  // no bound). Nothing when it stopped on that bound before it got past `after_key`.
  StatusOr<std::optional<ScanPage>> ScanWithin(std::string_view after_key, size_t budget,
                                               const ScanFilter& filter, int64_t now_ms,
                                               uint64_t max_skipped);
  // `max_skipped`: see BoundedIterator.
  std::unique_ptr<BoundedIterator> NewMetadataIterator(std::string lower, std::string upper,
                                                       uint64_t max_skipped = 0);
  // Reads up to `max_records` key space records from `start` on, adding them to `counts`
  // (expired ones too: a sample of the records, not of live keys), or to `swept` for swept
  // records.
  Status CountRecords(std::string_view start, uint64_t max_records, int64_t now_ms,
                      KeyCounts* counts, uint64_t* swept);
  StatusOr<uint64_t> CountRaw(rocksdb::ColumnFamilyHandle* cf);
  void ClearBatch();

  // Declared first, so released last: after the database has closed.
  std::optional<DirLock> dir_lock_;
  const Clock* clock_;
  // The limiter expiry hold: the loop thread's copy, and the compaction filters'.
  std::optional<ExpiryHold> hold_;
  std::shared_ptr<SharedExpiryHold> shared_hold_;
  std::shared_ptr<ExpiryHorizon> horizon_;  // shared with the compaction filters
  bool horizon_held_ = false;
  std::shared_ptr<MetadataSource> metadata_source_;
  std::shared_ptr<BackgroundErrorListener> listener_;
  std::shared_ptr<BackgroundEventListener> background_events_;
  // The file system RocksDB works through (its own, handing zeroed files to new WALs), and the
  // Env that carries it in db_options_.
  std::shared_ptr<ZeroedWalFileSystem> wal_files_;
  std::unique_ptr<ReplayPrefetch> replay_prefetch_;  // the WAL filter of each open
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::DBOptions db_options_;
  std::vector<rocksdb::ColumnFamilyDescriptor> families_;
  rocksdb::DB* db_ = nullptr;
  bool read_only_ = false;  // opened read-only by a Reopen() that could not do better
  // Database 0's metadata, subkeys, zscore, system, then other databases' metadata.
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  // Options for a new database's key space (KeySpaceOptions), without a memtable factory.
  rocksdb::ColumnFamilyOptions key_space_options_;
  int max_databases_ = 1;
  // Indexed by database (null for one never selected); space_ is the selected one's.
  std::vector<std::unique_ptr<KeySpace>> spaces_;
  KeySpace* space_ = nullptr;
  // The memtable factory of the "default" family (index kMetadataFamily), whichever database
  // SWAPDB made it hold: the one that takes the key-space writes Commit prefetches.
  IndexedSkipListFactory* default_memtable_ = nullptr;
  size_t expire_space_ = 0;  // the database whose keys the active cycle sweeps now
  bool expire_stopped_in_tombstones_ = false;  // ExpireStepStoppedInTombstones
  WriteStage stage_{kMetadataFamily};
  // A swap's map is staged (SwapDatabases): the mapping in spaces_ is not yet the logged one.
  bool map_staged_ = false;
  bool system_staged_ = false;  // see SystemEntriesStaged()
  // The families a staged flush wipes (by index; empty: none, the usual case).
  std::vector<bool> staged_wipe_;
  rocksdb::WriteBatchWithIndex mirror_;  // the stage, indexed, while mirror_active_
  bool mirror_active_ = false;
  std::vector<size_t> unmirrored_;    // stage entries written since, while no iterator was open
  std::vector<bool> unmirrored_marks_;  // by stage index: listed in unmirrored_
  bool put_observed_ = false;           // mirror_active_ or report_created_: Put's one test
  // The keys of the batch being committed (reused).
  std::vector<std::string_view> commit_keys_;
  std::string commit_buffer_;         // the last commit's batch, its memory for the next one
  RecordCache cache_;                 // committed key-space records, keyed by family too
  std::string read_buf_;              // a value read from RocksDB
  std::string swept_buf_;             // StageExpired's record, copied before it is staged
  std::string outside_buf_;           // a long string's bytes, read from their sub-entries
  bool outside_buf_used_ = false;     // since the last ReleaseIdleBuffers
  OpenIterators open_iterators_;
  uint64_t last_version_ = 0;
  // NextVersion's bound (kVersionCeilingKey): staged with the batch whose version passes the
  // logged one, and back to the logged one if that batch never reaches the log.
  uint64_t version_ceiling_ = 0;
  uint64_t logged_version_ceiling_ = 0;
  std::string dir_;
  std::unique_ptr<WalSyncer> wal_syncer_;  // appendfsync everysec's fsync, off the loop
  // DB::Resume, off the loop; stopped before the database closes.
  std::unique_ptr<BackgroundWorker> resumer_;
  // The last Resume() reported an error only a reopen clears (set on the resumer's thread).
  std::atomic<bool> needs_reopen_ = false;
  uint64_t reopens_ = 0;  // FollowReopenedDb runs on the loop thread
  // StartKeyCount's counts, off the loop; stopped (told to give up) before the database
  // closes, which waits while one is under way (Reopen).
  std::unique_ptr<BackgroundWorker> key_counter_;
  std::atomic<bool> stop_counting_ = false;
  // CompactWipedKeySpaces' and CompactSealedDeletions' compactions, one at a time, off the
  // loop. Stopped before the database closes: stop_compacting_ ends its waits and retries,
  // RocksDB's background work is cancelled (a CompactFiles under way gives up), the queue is
  // emptied, and the worker is waited for. A Reopen while it has work sets stop_compacting_
  // and is tried again later.
  bool compact_after_wipe_ = true;
  std::function<void()> before_queued_compaction_;
  std::unique_ptr<BackgroundWorker> compactor_;
  std::mutex compact_mu_;
  std::vector<QueuedCompaction> compact_queue_;  // guarded by compact_mu_
  // The files_newer_than of mass-deletion compactions that gave up, by family id, for the
  // family's next one to take in. Guarded by compact_mu_.
  std::unordered_map<uint32_t, uint64_t> given_up_after_;
  bool compacting_ = false;  // guarded by compact_mu_: from a Start until the queue is empty
  std::atomic<bool> stop_compacting_ = false;  // the queued compactions give up
};

}  // namespace sluice::storage
