#pragma once

// The RocksDB engine. All access happens on the server's one loop thread, except the
// compaction filter, which RocksDB runs on its own threads (it only reads the Clock).
//
// Writes are staged in the engine and reach RocksDB (WAL + memtable) only at Commit(): the
// server commits once per batch of commands, before sending their replies, so a reply that
// acknowledges a write always follows its WAL write (group commit). Reads see staged writes.
// A bounded cache of committed key-space records answers most point reads without RocksDB.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "storage/draws_ahead.h"
#include "storage/record.h"
#include "storage/tombstone_counts.h"

namespace sluice::storage {

struct EngineOptions {
  std::string dir = "./sluice-data";
  uint64_t block_cache_bytes = 64ull << 20;
  uint64_t write_buffer_bytes = 32ull << 20;
  // The in-memory cache of committed key-space records (storage/record_cache.h); 0: none.
  // 128 MB holds about 1,400,000 limiter states (about 100 bytes each with their keys and
  // bookkeeping): a decision on any of them needs no RocksDB read.
  uint64_t record_cache_bytes = 128ull << 20;
  // The limiter expiry hold from the start (SetLimiterExpiryHold), before compactions can
  // run: the server holds every key of named policies until it has read its policies.
  std::optional<ExpiryHold> initial_limiter_hold;
  // appendfsync always: every commit is synced (SetSyncEveryCommit).
  bool sync_every_commit = false;
  // How long the next zeroed WAL file waits for the WAL before it to be deleted, to write over
  // its blocks (storage/zeroed_wal.h); unset: ZeroedWalFileSystem::kRecycleWait. Tests that
  // look at the recycling wait longer.
  std::optional<std::chrono::milliseconds> wal_recycle_wait;
  // Databases 0 to databases-1 (SELECT); at most kMaxDatabases. Opening a directory that holds
  // keys in a database past the last fails.
  int databases = 1;
  // After a FLUSHALL or FLUSHDB, compact off the loop the key spaces whose removed keys it
  // left in many level-0 entries (tests turn it off to look at what the wipe leaves).
  bool compact_after_wipe = true;
  // Tests: called on the compactor's thread before each queued compaction (a wipe's of a key
  // space, or a mass expiry's tombstones').
  std::function<void()> before_queued_compaction;
};

// A deleted key stays in RocksDB as a tombstone until compaction, and after a mass expiry the
// walk to the next live key can pass 100,000 of them: 10 ms of the loop, every 100 ms. A step
// of the active cycle passes at most this many internal entries per key it may examine, and
// so do a SCAN page and the key counts and samples of INFO keyspace and /metrics (one INFO
// took up to 1.4 s of the loop after a benchmark's limiter keys had expired).
inline constexpr uint64_t kSkippedPerExaminedKey = 10;
// A SCAN page that would come back empty tries again, passing up to this many (about 1 ms):
// after a FLUSHALL or a DEL of a few thousand keys, SCAN 0 of the empty database answers
// cursor 0 in one call, as Redis's does.
inline constexpr uint64_t kEmptyPageSkipBound = 10000;

// Each database past 0 is a column family of its own (storage/rocksdb_engine.h).
inline constexpr int kMaxDatabases = 128;

// RocksDB keeps at most this many table files open (it opens others as reads need them), so
// that the engine never holds more than kEngineFileDescriptors descriptors: those, its WAL,
// MANIFEST and info log, the files flushes and compactions write. The server keeps them free
// of clients (maxclients), or a full descriptor table would stop RocksDB's writes.
inline constexpr int kMaxOpenTableFiles = 512;
inline constexpr int kEngineFileDescriptors = kMaxOpenTableFiles + 32;

// INFO's keyspace_hits and keyspace_misses: what GetView found while `on`. Redis counts only
// its read lookups, so the server turns it on for the commands (and the reads of write
// commands) Redis counts.
struct LookupCounter {
  bool on = false;
  bool quiet_misses = false;  // a miss counted without the keymiss event (Redis's LOOKUP_NONOTIFY)
  uint64_t hits = 0;
  uint64_t misses = 0;
  // Keys deleted as expired, by a read or by the active cycle (INFO's expired_keys), whether
  // or not lookups are counted.
  uint64_t expired = 0;
};

// What the engine tells the server about keys as it meets them, for keyspace notifications
// (server/keyspace_events.h). Installed only while a class that needs it is on, so the paths it
// watches pay a null check when notifications are off.
class KeyEventObserver {
 public:
  virtual ~KeyEventObserver() = default;
  // A read (GetView) or the active expiry cycle deleted an expired key.
  virtual void OnKeyExpired(int db, std::string_view key) = 0;
  // A counted lookup (LookupCounter on) found no live key.
  virtual void OnKeyMissed(int db, std::string_view key) = 0;
  // A Put made a key that held nothing (or only an expired record). Reported only when asked
  // for (set_key_events' report_created): it costs a read of the key's previous record.
  virtual void OnKeyCreated(int db, std::string_view key) = 0;
};

// One page of a key-space scan, ordered by key.
struct ScanPage {
  std::vector<std::string> keys;
  std::string last_key;  // resume after this key; meaningless when done
  bool done = false;
};

// The column families that hold composite types' elements (storage/key_encoding.h has their
// key layouts). The metadata family is reached only through Records.
enum class SubFamily : uint8_t {
  kSubkeys,  // hash fields, list items, zset member -> score
  kZScore,   // sorted-set score index
  kSystem,   // server metadata outside the key space (named policies); kept by FLUSHALL
};

// Ordered iteration over the sub-entries that share a prefix (e.g. SubKeyPrefix(key, version)),
// seeing the writes staged when it opens. Destroy it before Commit, DiscardStaged or a flush,
// and do not count on it to see writes staged while it is open (collect, then write): one
// opened with nothing staged reads the database alone, and a debug build stops at a write
// staged while such an iterator is open.
class SubEntryIterator {
 public:
  virtual ~SubEntryIterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  virtual void Seek(std::string_view target) = 0;         // first entry >= target
  virtual void SeekForPrev(std::string_view target) = 0;  // last entry <= target
  virtual void Next() = 0;
  virtual void Prev() = 0;
  // Valid until the iterator moves.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // Not ok if iteration stopped on an error rather than at the end.
  virtual Status status() const = 0;
};

struct ScanFilter {
  std::string_view match = "*";  // glob pattern as Redis's KEYS/SCAN MATCH ("" is the empty key)
  std::optional<KeyType> type;   // SCAN ... TYPE
  bool unknown_type = false;     // SCAN ... TYPE with a name no type has: no key passes
  // Redis looks up the type of each key that passed MATCH, so with a TYPE each such key also
  // counts as a keyspace hit, or a miss if it has expired (Engine::CountLookup).
  bool ByType() const { return type.has_value() || unknown_type; }
};

class Engine {
 public:
  // Opens (creating if missing) the database in options.dir. A second Engine on the same
  // directory fails with a clear message (RocksDB's LOCK file). `clock` must outlive the
  // Engine; the compaction filter reads it from background threads.
  static StatusOr<std::unique_ptr<Engine>> Open(const EngineOptions& options, const Clock* clock);
  virtual ~Engine() = default;

  // --- Databases ------------------------------------------------------------------------
  // Every call on keys (records, scans, counts, FLUSHDB) works in the selected database, from
  // the moment it is selected; sub-entries are shared by all, as their keys carry the owner's
  // version, which no two keys share. A database's column family is created when it is first
  // selected (an error if that fails, and the selection is unchanged).
  Status SelectDatabase(int db) {
    if (db == database_) return Status::Ok();
    return SwitchDatabase(db);
  }
  int database() const { return database_; }
  // The databases that have a key space (were ever selected), ascending; 0 always.
  virtual std::vector<int> Databases() const { return {0}; }
  // SWAPDB: databases a and b trade their keys, at once (the selected database's index stays
  // and now names the other keys). The trade is staged as a write: for good once its batch
  // commits (a transaction's or a script's writes reach the log with it, or none do), undone
  // by DiscardStaged.
  virtual Status SwapDatabases(int a, int b) {
    return a == 0 && b == 0 ? Status::Ok() : Err("DB index is out of range");
  }

  // --- Top-level records -------------------------------------------------------------
  // nullopt for a missing key, and for an expired one (whose deletion is then staged).
  StatusOr<std::optional<Record>> Get(std::string_view key, int64_t now_ms);
  // The same without a copy: the payload views the engine's own buffers, valid until the next
  // call on the engine (the limiter path reads, decides, then writes).
  virtual StatusOr<std::optional<RecordView>> GetView(std::string_view key, int64_t now_ms) = 0;
  // The same without reading a long string's bytes (meta.payload_outside: the payload is left
  // empty, and meta.size is its length): TYPE, TTL, EXISTS, STRLEN.
  virtual StatusOr<std::optional<RecordView>> GetViewWithoutLongPayload(std::string_view key,
                                                                        int64_t now_ms) = 0;
  // GetView that also gives, for an expired record, its size (`*expired_bytes`; 0 for a live
  // or missing key): a limiter state written anew over it keeps that size
  // (Metadata::stored_bytes), so RocksDB rewrites the key's memtable entry in place.
  virtual StatusOr<std::optional<RecordView>> GetViewNotingExpired(std::string_view key,
                                                                   int64_t now_ms,
                                                                   uint32_t* expired_bytes) = 0;
  // Only the metadata (TYPE, TTL, EXISTS). Same expiry rule as Get.
  StatusOr<std::optional<Metadata>> GetMetadata(std::string_view key, int64_t now_ms);
  // Where GetView counts its hits and misses (none: not counted).
  void set_lookup_counter(LookupCounter* counter) { lookup_counter_ = counter; }
  // Where expiries, misses and (with report_created) key creations are reported; none: not
  // reported.
  void set_key_events(KeyEventObserver* observer, bool report_created) {
    key_events_ = observer;
    report_created_ = observer != nullptr && report_created;
    KeyEventsChanged();
  }
  void Put(std::string_view key, const Record& record) { Put(key, record.meta, record.payload); }
  virtual void Put(std::string_view key, const Metadata& meta, std::string_view payload) = 0;
  // Put for a record read by GetViewWithoutLongPayload (its metadata changed, its payload
  // copied): a long string's bytes stay where they are, neither read nor written again. Also
  // the record of a long string whose chunks the caller has staged (storage/long_string.h).
  void PutWithoutLongPayload(std::string_view key, const Record& record) {
    PutWithoutLongPayload(key, record.meta, record.payload);
  }
  virtual void PutWithoutLongPayload(std::string_view key, const Metadata& meta,
                                     std::string_view payload) = 0;
  // Removes the key; a composite type's sub-entries become garbage for the compaction filter.
  virtual void Delete(std::string_view key) = 0;
  // Gives back the buffer long strings are read into (GET of a 32 MB string: 32 MB), unless a
  // read used it since the last call: the server calls it every few seconds, so a large value
  // read once is not held for good, and one read again and again keeps its buffer.
  virtual void ReleaseIdleBuffers() {}
  // A hint that these keys are about to be read and written (a pipelined batch): starts
  // loading what that will touch into the CPU cache. Changes nothing.
  virtual void PrefetchKeys(std::span<const std::string_view> keys) {}

  // --- Composite types' elements --------------------------------------------------------------
  // A fresh version for a new composite key: strictly increasing within the process, never
  // below the clock in microseconds (as Kvrocks does), and above every version the log holds
  // (a ceiling logged with the versions), so no restart hands one out again, whatever the clock
  // (the test clock's too) says then. Sub-entries of any other version than their key's current
  // metadata are garbage for the compaction filter.
  virtual uint64_t NextVersion() = 0;
  // Staged and read like records: reads see staged writes. Keys come from EncodeSubKey /
  // EncodeZScoreKey. No expiry logic here: check the owner's metadata first.
  virtual StatusOr<std::optional<std::string>> GetSubEntry(SubFamily family,
                                                           std::string_view key) = 0;
  virtual void PutSubEntry(SubFamily family, std::string_view key, std::string_view value) = 0;
  virtual void DeleteSubEntry(SubFamily family, std::string_view key) = 0;
  // The elements each version deleted, for the composite types (composite.h, ShedTombstones).
  TombstoneCounts& tombstone_counts() { return tombstone_counts_; }
  // Elements of sets, hashes and sorted sets drawn ahead (storage/draws_ahead.h). Every element
  // write (PutSubEntry, DeleteSubEntry) and key deletion forgets its key's; the engine clears
  // them all when it drops staged writes (DiscardStaged, a failed Commit) and when it reopens
  // the database.
  HeldDraws& draws() { return draws_; }
  // Iterates the entries of `family` in [lower, upper) (`upper` empty: no upper bound).
  virtual std::unique_ptr<SubEntryIterator> NewSubEntryRangeIterator(SubFamily family,
                                                                     std::string lower,
                                                                     std::string upper) = 0;
  // Iterates the entries of `family` that start with `prefix` ("" = all).
  std::unique_ptr<SubEntryIterator> NewSubEntryIterator(SubFamily family, std::string_view prefix);

  // --- Group commit ---------------------------------------------------------------------
  virtual bool HasStagedWrites() const = 0;
  // Writes staged since open, never reset by commits: unchanged across a command means the
  // command changed nothing.
  virtual uint64_t StagedWriteCount() const = 0;
  // Whether `key`'s record was written or deleted since StagedWriteCount() was `count` (or a
  // commit since then makes it impossible to tell: true). Every change of a key, whatever its
  // type, writes its record, except a hash's or sorted set's or long string's change that
  // leaves the record's own fields alone (HSET of an existing field, SETRANGE).
  virtual bool KeyWrittenSince(std::string_view key, uint64_t count) const = 0;
  // Writes every staged change to the WAL and memtable as one atomic batch; `sync` also
  // fsyncs the WAL first (appendfsync always). On failure nothing staged is applied, and the
  // staged changes are dropped all the same (later reads must not see writes that are not in
  // the database); the caller reports the failure for the commands whose writes were lost.
  virtual Status Commit(bool sync) = 0;
  // Drops staged changes (a script that must not persist).
  virtual void DiscardStaged() = 0;
  // Whether the staged changes write system entries (PutSubEntry/DeleteSubEntry of kSystem:
  // named policies, function libraries), whose in-memory copies a refused batch must take
  // back too. Read before Commit, which drops the stage whatever its outcome.
  virtual bool SystemEntriesStaged() const = 0;
  // fsync the WAL (shutdown).
  virtual Status SyncWal() = 0;
  // Starts an fsync of the WAL on a thread of its own (the appendfsync everysec timer: the
  // loop never waits for the disk); `done` gets the result on that thread. False, and nothing
  // started, while the previous one is under way.
  virtual bool StartWalSync(std::function<void(Status)> done) = 0;
  // Whether every commit is synced (appendfsync always): while it is, new WAL files start as
  // zeroed files prepared in the background, whose syncs cost less (storage/zeroed_wal.h).
  virtual void SetSyncEveryCommit(bool every_commit) {}
  struct ZeroedWalStats {
    uint64_t files_used = 0;  // WAL files that started as a zeroed file
    bool file_ready = false;  // a zeroed file waits for the next WAL
  };
  virtual ZeroedWalStats GetZeroedWalStats() const { return {}; }
  // RocksDB's write stalls and background jobs since the start (storage/background_events.h).
  struct BackgroundEventStats {
    uint64_t stops = 0;   // times a column family's writes were stopped: the loop waited
    uint64_t delays = 0;  // times they were slowed to a rate
    uint64_t flushes = 0;
    uint64_t compactions = 0;
  };
  virtual BackgroundEventStats GetBackgroundEventStats() const { return {}; }

  // --- Key space ------------------------------------------------------------------------
  // Up to `count` live keys after `after_key` ("" = from the start), matching `filter`.
  // Examines at most `count` entries (as Redis's SCAN COUNT), and (without staged writes)
  // passes about 10 internal entries per entry it may examine (the tombstones of deleted
  // keys, and the values they hide), so pages may be short or empty. The empty key, if it
  // exists, is examined for free, so that no page ends on it (its last_key would read as
  // "from the start"). A count of 0 is taken as 1.
  virtual StatusOr<ScanPage> Scan(std::string_view after_key, size_t count,
                                  const ScanFilter& filter, int64_t now_ms) = 0;
  // Every live key matching the pattern (KEYS); "*" matches every key, the empty one too.
  virtual StatusOr<std::vector<std::string>> Keys(std::string_view pattern, int64_t now_ms) = 0;
  // Number of live keys, and of those with an expiry (DBSIZE, INFO keyspace).
  struct KeyCounts {
    uint64_t keys = 0;
    uint64_t expires = 0;
    uint64_t ttl_sum_ms = 0;  // the keys with an expiry: the sum of their remaining ms

    // Counts a key expiring at `expire_at_ms` (not 0) and its remaining ms.
    void AddExpiring(int64_t expire_at_ms, int64_t now_ms) {
      ++expires;
      ttl_sum_ms += static_cast<uint64_t>(expire_at_ms > now_ms ? expire_at_ms - now_ms : 0);
    }
    // INFO keyspace's avg_ttl: the mean remaining ms of the keys with an expiry, 0 if none.
    uint64_t AverageTtlMs() const { return expires == 0 ? 0 : ttl_sum_ms / expires; }
  };
  virtual StatusOr<KeyCounts> CountKeys(int64_t now_ms) = 0;
  // The same, or nothing once more than `max_records` records (expired ones too) were read,
  // or more than kSkippedPerExaminedKey internal entries per record it may read were passed.
  virtual StatusOr<std::optional<KeyCounts>> CountKeysUpTo(uint64_t max_records,
                                                           int64_t now_ms) = 0;
  // The same count on a thread of its own, of the committed keys as they were when it started
  // (commit first: staged writes are not in it), for a key space too large to count on the
  // loop (DBSIZE). `done` gets the result on that thread. False, and nothing started, while a
  // count is under way. Until `done` has returned, writes leave the records it reads as they
  // are (new versions instead of rewrites in place), so it never reads one mid-rewrite.
  using KeyCountDone = std::function<void(StatusOr<KeyCounts>)>;
  virtual bool StartKeyCount(int64_t now_ms, KeyCountDone done) = 0;
  // The same figures estimated, for a key space too large to count on the loop thread, and as
  // Redis counts them, expired keys not removed yet included: `keys` is RocksDB's estimate of
  // its records, `expires` that times the share with an expiry in a sample of records.
  virtual StatusOr<KeyCounts> EstimateKeys() = 0;
  // Whether RocksDB's estimate of the selected key space's records leaves no removed key in:
  // it ignores range deletions, so while a FLUSHALL's may be in the key space (staged, in a
  // memtable, or in a file no compaction has merged away since) it still counts every key the
  // flush removed.
  virtual bool KeyEstimateIsSound() = 0;
  // FLUSHALL: removes every key of every database. Staged like any write: reads see the
  // databases empty at once (but for what is staged after it), writes staged before it are
  // superseded, and the wipe reaches the log with its batch (a transaction's, a script's) at
  // the next Commit, or not at all (DiscardStaged, a failed Commit).
  virtual void FlushAll() = 0;
  // FLUSHDB: the same for the selected database alone.
  virtual void FlushDatabase() { FlushAll(); }

  // --- Expiry and maintenance -------------------------------------------------------------
  // One bounded step of the active expiry cycle: examines at most `max_examined` keys,
  // continuing a sweep over every database's keys where the previous step stopped, and stages the
  // removal of the expired ones (swept records, or deletions: kSweptExpireAtMs in
  // storage/record.h), stopping after `max_expired` of them. Returns how many it removed.
  virtual size_t ActiveExpireStep(int64_t now_ms, size_t max_examined, size_t max_expired) = 0;
  // Whether the last ActiveExpireStep stopped on its bound of passed removed entries (a run of
  // tombstones or swept records left by earlier removals), its sweep to go on from there: a
  // step that found nothing may still have work right behind it.
  virtual bool ExpireStepStoppedInTombstones() const { return false; }
  // Keeps the limiter keys `hold` names past their expiry (ExpiryHold) in reads, scans, the
  // active cycle and compactions started from now on; nullopt lifts the hold.
  virtual void SetLimiterExpiryHold(std::optional<ExpiryHold> hold) = 0;
  // While a batch of commands is under way (from before its first command reads the clock
  // until its writes are committed, and no script runs), compactions drop nothing that
  // expires after the batch's start: a command's reads, a script's or EXEC's fixed expiry
  // time, and a staged write that keeps a key alive (PEXPIRE) count on what is on disk.
  // Hold is a no-op while held; Release once nothing is staged.
  virtual void HoldExpiryHorizon() = 0;
  virtual void ReleaseExpiryHorizon() = 0;
  // Full manual compaction of every column family (tests, DEBUG); expired keys are dropped.
  virtual Status CompactAll() = 0;
  // Why the data directory could not be locked against a second sluiced (a file system that
  // cannot lock a directory; RocksDB's own lock, taken later, then turns one away), or empty.
  virtual std::string DirLockProblem() const = 0;
  // BGREWRITEAOF: seals every family's memtable and has RocksDB write them to table files on
  // its own threads, after which the WAL files from before are obsolete and deleted (a restart
  // after a crash replays less). Returns once the flush is scheduled; "rocksdb.num-running-
  // flushes" and "rocksdb.mem-table-flush-pending" show it under way.
  virtual Status StartFlush() = 0;
  // A clean stop's: the same, waiting until the table files are written, so the next start
  // replays no WAL. Replaying costs more than the flush: each record's keys go through the
  // memtable's skiplist again (1 s of CPU for 15 MB of random-key limiter writes).
  virtual Status FlushForStop() = 0;

  // --- Introspection ----------------------------------------------------------------------
  // RocksDB integer properties summed over column families, e.g. "rocksdb.live-sst-files-size"
  // (the database-wide ones, the block cache's and "rocksdb.num-running-*", counted once).
  virtual uint64_t GetIntProperty(std::string_view name) const = 0;
  // The record cache (INFO, MEMORY STATS, /metrics). Its bytes are as it charges its entries;
  // hits and misses count the key-space reads it answered or sent on to RocksDB.
  struct RecordCacheStats {
    uint64_t bytes = 0;
    uint64_t capacity = 0;
    uint64_t entries = 0;
    uint64_t hits = 0;
    uint64_t misses = 0;
  };
  virtual RecordCacheStats GetRecordCacheStats() const { return {}; }
  // CONFIG RESETSTAT: hits and misses start over.
  virtual void ResetRecordCacheCounters() {}
  // record-cache-size at runtime. A smaller size evicts a step's worth at once and leaves the
  // rest to TrimRecordCache: a step of about a millisecond, false once nothing is left.
  virtual void SetRecordCacheCapacity(uint64_t bytes) {}
  virtual bool TrimRecordCache() { return false; }
  // The same for the key space (metadata family) alone: "rocksdb.estimate-num-keys" there
  // estimates the number of keys without counting hash fields or list items.
  virtual uint64_t GetKeyspaceIntProperty(std::string_view name) const {
    return GetIntProperty(name);
  }
  // Count of raw entries (live or not) in the metadata column family: for tests proving that
  // the compaction filter removed expired keys from disk. Staged writes are not counted.
  virtual StatusOr<uint64_t> CountRawEntries() = 0;
  // The same for a sub-entry family (orphaned elements are dropped by compaction).
  virtual StatusOr<uint64_t> CountRawSubEntries(SubFamily family) = 0;
  // The background error RocksDB reports, if any (disk full...): INFO persistence, MISCONF.
  virtual Status BackgroundError() const = 0;
  // Whether BackgroundError() is set: an atomic load and no Status, for the check before
  // every write command.
  virtual bool HasBackgroundError() const = 0;
  // While BackgroundError() is set, works at clearing it, so that writes work again once the
  // disk does. What RocksDB resumes from (a full disk, a failed flush) gets DB::Resume (flush
  // the memtables to new files, switch to a new WAL) on a thread of the engine's: Resume waits
  // for RocksDB's background work, a second after a failed flush, and the loop must not. What
  // it does not resume from (an I/O error in the WAL, a read-only file system: Resume said so,
  // or the database was reopened read-only) gets the database reopened at once, on the calling
  // thread, if the directory is writable again. `done` gets the result, Ok when writes are
  // accepted again, on the thread that did the work. False, and nothing started, while an
  // attempt is under way. The server calls it periodically, between commands.
  virtual bool StartResume(std::function<void(Status)> done) = 0;
  // How many times StartResume reopened the database. The WAL's replay may hold a batch whose
  // commit was refused (its sync failed after the write), system entries included: what
  // memory holds of those is read again after a reopen.
  virtual uint64_t ReopenCount() const = 0;

  // --- Backups ------------------------------------------------------------------------------
  // A consistent RocksDB checkpoint (hard links where possible, no stall) in a new directory
  // `dir`/checkpoints/<unix seconds>[-n]; keeps the newest `keep` checkpoints and deletes older
  // ones. Returns the new checkpoint's path. Staged writes are not in it (commit first).
  virtual StatusOr<std::string> CreateCheckpoint(int64_t now_unix_s, size_t keep) = 0;

 protected:
  // Makes `db` the selected database (database_ included), creating its key space if needed.
  virtual Status SwitchDatabase(int db) {
    return db == 0 ? Status::Ok() : Err("DB index is out of range");
  }
  int database_ = 0;
  TombstoneCounts tombstone_counts_;
  HeldDraws draws_;

  // An element of the collection that owns `sub_key` (a key of either sub-entry family) is
  // written: what is drawn ahead of the collection goes.
  void ForgetDrawsOfOwner(std::string_view sub_key);

  // An expired key deleted in database `db`: counted, and an "expired" event.
  void NoteExpired(int db, std::string_view key) {
    if (lookup_counter_ != nullptr) ++lookup_counter_->expired;
    if (key_events_ != nullptr) key_events_->OnKeyExpired(db, key);
  }

  // A lookup of `key` in the selected database; a counted miss is a keyspace "keymiss" too.
  void CountLookup(bool found, std::string_view key) {
    if (lookup_counter_ == nullptr || !lookup_counter_->on) return;
    if (found) {
      ++lookup_counter_->hits;
      return;
    }
    ++lookup_counter_->misses;
    if (key_events_ != nullptr && !lookup_counter_->quiet_misses) {
      key_events_->OnKeyMissed(database_, key);
    }
  }
  virtual void KeyEventsChanged() {}

  KeyEventObserver* key_events_ = nullptr;
  bool report_created_ = false;

 private:
  LookupCounter* lookup_counter_ = nullptr;
};

// Selects a database for its lifetime, then the one selected before: for work done on behalf
// of a client in its database (a blocked pop, a queued limiter request) from wherever.
class DatabaseScope {
 public:
  DatabaseScope(Engine& engine, int db) : engine_(engine), previous_(engine.database()) {
    status_ = engine_.SelectDatabase(db);
  }
  ~DatabaseScope() { (void)engine_.SelectDatabase(previous_); }  // it exists: cannot fail
  DatabaseScope(const DatabaseScope&) = delete;
  DatabaseScope& operator=(const DatabaseScope&) = delete;
  const Status& status() const { return status_; }

 private:
  Engine& engine_;
  int previous_;
  Status status_;
};

}  // namespace sluice::storage
