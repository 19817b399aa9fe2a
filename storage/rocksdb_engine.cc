#include "storage/rocksdb_engine.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_manager.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <iterator>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include "storage/bytewise_skiplist.h"
#include "storage/checkpoint.h"
#include "storage/key_encoding.h"
#include "storage/long_string.h"
#include "storage/rocksdb_logger.h"
#include "storage/slice_view.h"

namespace sluice::storage {

namespace {

bool IsLockError(const rocksdb::Status& s) {
  // PosixFileSystem::LockFile: "While lock file: <dir>/LOCK: Resource temporarily unavailable"
  // when another process holds the lock, "lock hold by current process ..." when this one
  // does. ("while open a file for lock" is a permission problem, not a lock held.)
  if (!s.IsIOError()) return false;
  const std::string text = s.ToString();
  return text.find("While lock file") != std::string::npos ||
         text.find("lock hold by current process") != std::string::npos;
}

bool Supported(const std::vector<rocksdb::CompressionType>& supported,
               rocksdb::CompressionType type) {
  return std::find(supported.begin(), supported.end(), type) != supported.end();
}

std::shared_ptr<rocksdb::SstFileManager> MakeFileDeleter(rocksdb::Env* env,
                                                         std::shared_ptr<rocksdb::FileSystem> fs,
                                                         std::shared_ptr<rocksdb::Logger> log) {
  // Obsolete files (a full WAL, compacted SSTs) are renamed to trash by the flush or
  // compaction that made them obsolete, and deleted by the delete scheduler's thread rather
  // than by RocksDB's one flush thread: deleting a full WAL (136 MB) took 165 ms, and a
  // memtable filled meanwhile waited for that thread to flush it, with every write (and so the
  // loop) stopped once two did. Deleted whole (no chunk: truncating in steps fsyncs the file
  // after each), faster than compactions write. RocksDB still deletes at once where a rename
  // fails (a failing disk), and when trash outweighs data by the ratio: here only when there
  // is no SST file at all.
  constexpr int64_t kDeleteBytesPerSecond = 1ll << 30;
  constexpr double kMaxTrashToDataRatio = 1e6;
  return std::shared_ptr<rocksdb::SstFileManager>(rocksdb::NewSstFileManager(
      env, std::move(fs), std::move(log), /*trash_dir=*/"", kDeleteBytesPerSecond,
      /*delete_existing_trash=*/true, /*status=*/nullptr, kMaxTrashToDataRatio,
      /*bytes_max_delete_chunk=*/0));
}

// Gives back the blocks RocksDB allocated past the end of its MANIFEST and WAL files (fallocate
// with KEEP_SIZE, 4 MB for a MANIFEST), which a clean close returns and a crash leaves held: on
// a full disk they are what a new MANIFEST needs. Truncating a file to its own size changes no
// byte of it.
void TrimPreallocatedTails(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("MANIFEST-") && entry.path().extension() != ".log") continue;
    const uintmax_t size = entry.file_size(ec);
    if (!ec) std::filesystem::resize_file(entry.path(), size, ec);
  }
}

// The bytes of the WAL files in `dir` (what a replay of them puts in memtables, and more).
size_t WalBytesOnDisk(const std::string& dir) {
  size_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".log") continue;
    const uintmax_t size = entry.file_size(ec);
    if (!ec) bytes += size;
  }
  return bytes;
}

}  // namespace

// --- Options ----------------------------------------------------------------------------------

rocksdb::DBOptions MakeDbOptions(const EngineOptions& options) {
  rocksdb::DBOptions db;
  db.create_if_missing = true;
  db.create_missing_column_families = true;
  db.paranoid_checks = true;
  // A torn tail of the WAL (crash mid-write) is cut off; everything before it is recovered.
  db.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  db.max_background_jobs = 2;
  db.max_open_files = kMaxOpenTableFiles;  // counted in the server's descriptor budget
  // A WAL file can only go once every family has flushed past it: bound the WAL so a rarely
  // written family (zscore) does not keep old logs alive forever.
  db.max_total_wal_size = 4 * options.write_buffer_bytes;
  db.bytes_per_sync = 1 << 20;
  db.keep_log_file_num = 10;
  // One thread writes (the loop), so parallel memtable inserts never happen anyway; turning
  // them off is what lets the key space update its memtable in place (below).
  db.allow_concurrent_memtable_write = false;
  // The loop, closing an iterator that held the last reference to obsolete files or a
  // memtable, leaves their deletion to a background job. (A flush deletes what it made
  // obsolete on its own thread whatever this says: see MakeFileDeleter.)
  db.avoid_unnecessary_blocking_io = true;
  return db;
}

rocksdb::ColumnFamilyOptions MakeColumnFamilyOptions(const EngineOptions& options,
                                                     std::shared_ptr<rocksdb::Cache> cache,
                                                     size_t block_bytes) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = std::move(cache);
  // A point read copies, checksums, decompresses and searches a whole block: smaller blocks
  // cost less per read, and take more disk (worse compression) and a larger index.
  table.block_size = block_bytes;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Index and filter blocks stay in memory, outside the block cache (about 3.5 bytes per key
  // with the key spaces' 1 KB blocks: ~35 MB for 10 million keys). In the cache, a
  // bottom-level file's multi-megabyte filter block was evicted by data blocks and read back
  // from disk, checksum and all, by nearly every read of a key the record cache did not
  // hold: 6k reads/s at 3 million keys.
  table.cache_index_and_filter_blocks = false;
  table.format_version = 5;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = options.write_buffer_bytes;
  // A full WAL switches the memtable of every family, the idle ones too, and RocksDB's next
  // WAL check can come before their (empty) flushes ran. With its default of two memtables,
  // that second switch stopped every write until they had. A busy family holds a third only
  // while its flushes fall behind.
  cf.max_write_buffer_number = 3;
  cf.level_compaction_dynamic_level_bytes = true;
  // RocksDB's skiplist with an inlined comparison (storage/memtable_key_order.h).
  cf.memtable_factory = std::make_shared<BytewiseSkipListFactory>();

  // Values are small: no compression where data is young and rewritten soon (L0 and the base
  // level), LZ4 below, the bottom level included (set apart: with dynamic level sizes, a small
  // database's base level is the bottom one). A read the record cache misses mostly
  // decompresses a bottom-level block: ZSTD's decompression took 17,500 instructions of a
  // 44,400-instruction limiter call over 3,000,000 keys, LZ4's 4,900, for 22% more bytes.
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  const rocksdb::CompressionType compressed = Supported(supported, rocksdb::kLZ4Compression)
                                                  ? rocksdb::kLZ4Compression
                                                  : rocksdb::kNoCompression;
  cf.compression = compressed;
  cf.compression_per_level.assign(static_cast<size_t>(cf.num_levels), compressed);
  cf.compression_per_level[0] = rocksdb::kNoCompression;
  cf.compression_per_level[1] = rocksdb::kNoCompression;
  cf.bottommost_compression = compressed;
  return cf;
}

// --- Open and close -----------------------------------------------------------------------------

StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options, const Clock* clock) {
  StatusOr<std::unique_ptr<RocksDbEngine>> engine = RocksDbEngine::Open(options, clock);
  if (!engine.ok()) return engine.status();
  return std::unique_ptr<Engine>(std::move(*engine));
}

StatusOr<std::optional<Record>> Engine::Get(std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<RecordView>> view = GetView(key, now_ms);
  if (!view.ok()) return view.status();
  if (!view->has_value()) return std::optional<Record>();
  return std::optional<Record>(Record{(*view)->meta, std::string((*view)->payload)});
}

StatusOr<std::optional<Metadata>> Engine::GetMetadata(std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<RecordView>> view = GetViewWithoutLongPayload(key, now_ms);
  if (!view.ok()) return view.status();
  if (!view->has_value()) return std::optional<Metadata>();
  return std::optional<Metadata>((*view)->meta);
}

std::unique_ptr<SubEntryIterator> Engine::NewSubEntryIterator(SubFamily family,
                                                              std::string_view prefix) {
  return NewSubEntryRangeIterator(family, std::string(prefix), PrefixSuccessor(prefix));
}

void Engine::ForgetDrawsOfOwner(std::string_view sub_key) {
  if (draws_.empty()) return;
  // Keys the engine's callers encoded: a malformed one owns no draw.
  if (StatusOr<SubKeyOwner> owner = DecodeSubKeyOwner(sub_key); owner.ok()) {
    draws_.Forget(owner->user_key);
  }
}

RocksDbEngine::RocksDbEngine(const Clock* clock, std::shared_ptr<MetadataSource> metadata_source,
                             std::shared_ptr<BackgroundErrorListener> listener,
                             size_t record_cache_bytes)
    : clock_(clock),
      metadata_source_(std::move(metadata_source)),
      listener_(std::move(listener)),
      mirror_(NewMirror()),
      cache_(record_cache_bytes) {}

StatusOr<std::unique_ptr<RocksDbEngine>> RocksDbEngine::Open(const EngineOptions& options,
                                                             const Clock* clock) {
  if (clock == nullptr) return Err("storage: no clock given");
  if (options.dir.empty()) return Err("dir must not be empty");
  const std::string& dir = options.dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("can't create dir '" + dir + "': " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) {
    return IoError("dir '" + dir + "' is not a directory");
  }
  StatusOr<DirLock> dir_lock = DirLock::Acquire(dir);
  if (!dir_lock.ok()) return dir_lock.status();

  auto source = std::make_shared<MetadataSource>();
  auto listener = std::make_shared<BackgroundErrorListener>();
  rocksdb::DBOptions db_options = MakeDbOptions(options);
  db_options.listeners.push_back(listener);
  auto background_events = std::make_shared<BackgroundEventListener>();
  db_options.listeners.push_back(background_events);
  db_options.info_log = NewTolerantFileLogger(dir);

  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::ColumnFamilyOptions metadata_options =
      MakeColumnFamilyOptions(options, cache, kKeySpaceBlockBytes);
  auto hold = std::make_shared<SharedExpiryHold>();
  hold->Set(options.initial_limiter_hold);
  auto horizon = std::make_shared<ExpiryHorizon>();
  metadata_options.compaction_filter_factory =
      std::make_shared<MetadataFilterFactory>(clock, horizon, hold);
  // A limiter's state or a counter is rewritten over and over with a value of the same size:
  // update the memtable entry in place instead of adding a version per write. The memtable
  // then holds one entry per key written since the last flush rather than one per write, so
  // it stays small (a shallower skiplist, far fewer flushes and compactions). RocksDB's
  // caveat, iterators not being point-in-time consistent under concurrent in-place updates,
  // cannot bite: the loop thread both writes and iterates, and never commits while an
  // iterator is open; the one iterator on another thread, the background key count's,
  // suspends in-place updates while it lives (StartKeyCount); the key space is only iterated
  // forwards (no backward memtable iteration, which in-place updates do not support).
  metadata_options.inplace_update_support = true;
  // An in-place update takes a lock picked by the key's hash. Only the loop thread writes or
  // reads this memtable, so the locks never see contention, only cache misses: with RocksDB's
  // 10,000 of them (560 KB), a random key's write took a cold cache line for its lock.
  metadata_options.inplace_update_num_locks = 1;
  // A read of a key the record cache does not know is mostly a new key: a whole-key bloom
  // filter in the memtable answers "not here" without a skiplist search.
  metadata_options.memtable_prefix_bloom_size_ratio = 0.02;
  metadata_options.memtable_whole_key_filtering = true;
  rocksdb::ColumnFamilyOptions sub_options = MakeColumnFamilyOptions(options, cache);
  // The same for elements: HSET, SADD and ZADD read each element first, to count the new ones.
  sub_options.memtable_prefix_bloom_size_ratio = 0.02;
  sub_options.memtable_whole_key_filtering = true;
  sub_options.compaction_filter_factory =
      std::make_shared<SubEntryFilterFactory>(clock, horizon, source);
  std::unique_ptr<RocksDbEngine> engine(
      new RocksDbEngine(clock, source, listener, options.record_cache_bytes));
  engine->background_events_ = std::move(background_events);
  engine->key_space_options_ = metadata_options;
  engine->max_databases_ = std::clamp(options.databases, 1, kMaxDatabases);
  // ... and find the entry to update through a hash index rather than a skiplist search.
  auto metadata_memtable = std::make_shared<IndexedSkipListFactory>();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, engine->KeySpaceOptions(metadata_memtable)},
      {kSubkeysFamilyName, sub_options},
      {kZScoreFamilyName, sub_options},
      // Server metadata (named policies): no compaction filter, untouched by FLUSHALL.
      {kSystemFamilyName, MakeColumnFamilyOptions(options, cache)},
  };
  engine->AddKeySpace(0, kMetadataFamily, std::move(metadata_memtable));
  // The other databases that have a key space: every column family must be opened.
  std::vector<std::string> existing;
  if (rocksdb::DB::ListColumnFamilies(db_options, dir, &existing).ok()) {
    for (int db = 1; db < kMaxDatabases; ++db) {
      if (std::find(existing.begin(), existing.end(), DatabaseFamilyName(db)) == existing.end()) {
        continue;
      }
      if (db >= engine->max_databases_) {
        return Err("the data in '" + dir + "' has database " + std::to_string(db) +
                   ", but databases is " + std::to_string(engine->max_databases_) +
                   ": raise databases to open it");
      }
      auto memtable = std::make_shared<IndexedSkipListFactory>();
      engine->AddKeySpace(db, static_cast<uint8_t>(families.size()), memtable);
      families.emplace_back(DatabaseFamilyName(db), engine->KeySpaceOptions(std::move(memtable)));
    }
  }

  engine->dir_lock_ = std::move(dir_lock).value();
  engine->dir_ = dir;
  engine->shared_hold_ = std::move(hold);
  engine->horizon_ = std::move(horizon);
  engine->hold_ = options.initial_limiter_hold;
  engine->wal_syncer_ = std::make_unique<WalSyncer>(dir);
  engine->resumer_ = std::make_unique<BackgroundWorker>();
  engine->key_counter_ = std::make_unique<BackgroundWorker>();
  engine->compactor_ = std::make_unique<BackgroundWorker>();
  engine->compact_after_wipe_ = options.compact_after_wipe;
  engine->before_queued_compaction_ = options.before_queued_compaction;
  // A zeroed file a little larger than the WAL's cap, which a WAL file reaches before RocksDB
  // switches to the next one (in-place updates keep the memtables small, so the cap is what
  // ends most WAL files).
  const uint64_t zeroed_bytes = db_options.max_total_wal_size + db_options.max_total_wal_size / 16;
  engine->wal_files_ = std::make_shared<ZeroedWalFileSystem>(
      rocksdb::FileSystem::Default(), dir, zeroed_bytes,
      options.wal_recycle_wait.value_or(ZeroedWalFileSystem::kRecycleWait));
  // Only under the lock: they may be another server's files.
  if (engine->dir_lock_->held()) engine->wal_files_->RemoveLeftovers();
  engine->wal_files_->SetEnabled(options.sync_every_commit, /*prepare_now=*/true);
  engine->env_ = rocksdb::NewCompositeEnv(engine->wal_files_);
  db_options.env = engine->env_.get();
  engine->db_options_ = std::move(db_options);
  engine->families_ = families;
  if (Status opened = engine->OpenDb(/*read_only=*/false); !opened.ok()) return opened;
  if (Status mapped = engine->ReadDatabaseMap(); !mapped.ok()) return mapped;
  if (Status seeded = engine->ReadVersionCeiling(); !seeded.ok()) return seeded;
  return engine;
}

Status RocksDbEngine::OpenDb(bool read_only) {
  // A file deleter per open that writes: RocksDB adds to a deleter's reserved disk space at
  // each open and queues the directory's trash again, so one shared by reopens would count
  // both twice.
  auto open = [&] {
    db_options_.sst_file_manager =
        read_only ? nullptr : MakeFileDeleter(env_.get(), wal_files_, db_options_.info_log);
    return read_only ? rocksdb::DB::OpenForReadOnly(db_options_, dir_, families_, &handles_, &db_)
                     : rocksdb::DB::Open(db_options_, dir_, families_, &handles_, &db_);
  };
  wal_files_->SetRecycling(!read_only);
  replay_prefetch_ = std::make_unique<ReplayPrefetch>(families_);
  db_options_.wal_filter = replay_prefetch_.get();
  rocksdb::Status s = open();
  if (!read_only && s.IsNoSpace()) {
    // The open writes what the WAL's replay put in the memtables to a table file before it
    // deletes the WAL. After a crash near a full disk (the WAL up to max_total_wal_size, and
    // its preallocated tail) that file may not fit, and the server would not start at all.
    // Replayed into memtables only, the writes stay in the WAL until a flush finds room: the
    // disk trouble of a running server, which resumes by itself.
    // RocksDB flushes during the replay anyway when a memtable fills: each family's write
    // buffer holds all of the WAL meanwhile, and shrinks back to its size once open.
    rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, db_options_.info_log,
                 "no space to flush the WAL's replay (%s): opening without that flush",
                 s.ToString().c_str());
    TrimPreallocatedTails(dir_);
    std::vector<size_t> write_buffers;
    const size_t whole_wal = 2 * WalBytesOnDisk(dir_);
    for (rocksdb::ColumnFamilyDescriptor& family : families_) {
      write_buffers.push_back(family.options.write_buffer_size);
      family.options.write_buffer_size = std::max(family.options.write_buffer_size, whole_wal);
    }
    db_options_.avoid_flush_during_recovery = true;
    s = open();
    db_options_.avoid_flush_during_recovery = false;
    for (size_t i = 0; i < families_.size(); ++i) {
      families_[i].options.write_buffer_size = write_buffers[i];
      if (s.ok()) {
        db_->SetOptions(handles_[i], {{"write_buffer_size", std::to_string(write_buffers[i])}});
      }
    }
  }
  if (!s.ok()) {
    db_ = nullptr;
    handles_.clear();
    if (IsLockError(s)) return IoError(LockedDirMessage(dir_));
    return IoError("can't open RocksDB in '" + dir_ + "': " + s.ToString());
  }
  read_only_ = read_only;
  AttachMetadataSource();
  // What the WAL's replay left in a memtable (a read-only open flushes nothing) may hold a
  // wipe's range deletion: take it for one until a flush writes it out.
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space == nullptr) continue;
    const uint64_t replayed =
        FamilyIntProperty(space->family, "rocksdb.num-entries-active-mem-table") +
        FamilyIntProperty(space->family, "rocksdb.num-entries-imm-mem-tables");
    if (replayed > 0) space->last_wipe_sequence = db_->GetLatestSequenceNumber();
  }
  return Status::Ok();
}

rocksdb::ColumnFamilyOptions RocksDbEngine::KeySpaceOptions(
    std::shared_ptr<IndexedSkipListFactory> memtable) const {
  rocksdb::ColumnFamilyOptions options = key_space_options_;
  options.memtable_factory = std::move(memtable);
  return options;
}

void RocksDbEngine::AddKeySpace(int db, uint8_t family,
                                std::shared_ptr<IndexedSkipListFactory> memtable) {
  if (spaces_.empty()) spaces_.resize(static_cast<size_t>(max_databases_));
  auto space = std::make_unique<KeySpace>();
  space->db = db;
  space->family = family;
  space->memtable = std::move(memtable);
  if (family == kMetadataFamily) default_memtable_ = space->memtable.get();
  spaces_[static_cast<size_t>(db)] = std::move(space);
  if (space_ == nullptr) space_ = spaces_[0].get();
}

void RocksDbEngine::AttachMetadataSource() {
  std::vector<rocksdb::ColumnFamilyHandle*> families;
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space != nullptr) families.push_back(handles_[space->family]);
  }
  metadata_source_->Attach(db_, std::move(families));
}

std::vector<int> RocksDbEngine::Databases() const {
  std::vector<int> dbs;
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space != nullptr) dbs.push_back(space->db);
  }
  return dbs;
}

Status RocksDbEngine::SwitchDatabase(int db) {
  SLUICE_RETURN_IF_ERROR(EnsureKeySpace(db));
  space_ = spaces_[static_cast<size_t>(db)].get();
  database_ = db;
  return Status::Ok();
}

Status RocksDbEngine::EnsureKeySpace(int db) {
  if (db < 0 || db >= max_databases_) return Err("DB index is out of range");
  if (spaces_[static_cast<size_t>(db)] != nullptr) return Status::Ok();
  if (handles_.size() > std::numeric_limits<uint8_t>::max()) return Err("too many databases");
  // No other family has this name: the names in use are those of the databases in use
  // (SWAPDB trades two databases' families, both in use).
  auto memtable = std::make_shared<IndexedSkipListFactory>();
  rocksdb::ColumnFamilyDescriptor family(DatabaseFamilyName(db), KeySpaceOptions(memtable));
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  rocksdb::Status s = db_->CreateColumnFamily(family.options, family.name, &handle);
  if (!s.ok()) return IoError("can't create database " + std::to_string(db) + ": " + s.ToString());
  AddKeySpace(db, static_cast<uint8_t>(handles_.size()), std::move(memtable));
  handles_.push_back(handle);
  families_.push_back(std::move(family));
  AttachMetadataSource();
  return Status::Ok();
}

Status RocksDbEngine::SwapDatabases(int a, int b) {
  if (a < 0 || a >= max_databases_ || b < 0 || b >= max_databases_) {
    return Err("DB index is out of range");
  }
  if (a == b) return Status::Ok();
  SLUICE_RETURN_IF_ERROR(EnsureKeySpace(a));
  SLUICE_RETURN_IF_ERROR(EnsureKeySpace(b));
  std::swap(spaces_[static_cast<size_t>(a)], spaces_[static_cast<size_t>(b)]);
  spaces_[static_cast<size_t>(a)]->db = a;
  spaces_[static_cast<size_t>(b)]->db = b;
  space_ = spaces_[static_cast<size_t>(database_)].get();
  // Which family holds which database, for the next open: staged as any write, so that it
  // reaches the log with the batch it belongs to (a transaction's, a script's) or not at all.
  // Staged writes stay with their families, whatever database those now hold.
  StagePut(FamilyIndex(SubFamily::kSystem), kDatabaseMapKey, DatabaseMap());
  map_staged_ = true;
  return Status::Ok();
}

std::string RocksDbEngine::DatabaseMap() const {
  std::string map;
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space == nullptr) continue;
    map += std::to_string(space->db) + "=" + families_[space->family].name + " ";
  }
  return map;
}

int RocksDbEngine::NamesakeDatabase(size_t family) const {
  if (family == kMetadataFamily) return 0;
  const std::string& name = families_[family].name;
  if (name.size() < 3 || name.compare(0, 2, "db") != 0) return -1;
  return std::atoi(name.c_str() + 2);
}

Status RocksDbEngine::ReadDatabaseMap() {
  std::string map;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), Family(SubFamily::kSystem), kDatabaseMapKey, &map);
  if (!s.ok() && !s.IsNotFound()) return IoError("can't read the databases' map: " + s.ToString());
  // Worked out on the side, and applied only whole.
  std::vector<KeySpace*> by_family(handles_.size(), nullptr);
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space != nullptr) by_family[space->family] = space.get();
  }
  std::vector<KeySpace*> placed(spaces_.size(), nullptr);
  auto place = [&](int db, size_t family) {
    if (db < 0 || db >= max_databases_ || family >= by_family.size() ||
        by_family[family] == nullptr || placed[static_cast<size_t>(db)] != nullptr) {
      return false;
    }
    placed[static_cast<size_t>(db)] = std::exchange(by_family[family], nullptr);
    return true;
  };
  std::istringstream entries(s.ok() ? map : std::string());  // not found: never swapped
  for (std::string entry; entries >> entry;) {
    const size_t equals = entry.find('=');
    const int db = equals == std::string::npos ? -1 : std::atoi(entry.substr(0, equals).c_str());
    const std::string name = equals == std::string::npos ? "" : entry.substr(equals + 1);
    auto family = std::find_if(families_.begin(), families_.end(),
                               [&](const auto& f) { return f.name == name; });
    if (db < 0 || db >= kMaxDatabases || family == families_.end()) {
      return Err("the databases' map in '" + dir_ + "' is corrupt: '" + entry + "'");
    }
    if (db >= max_databases_) {
      return Err("the data in '" + dir_ + "' has database " + std::to_string(db) +
                 ", but databases is " + std::to_string(max_databases_) +
                 ": raise databases to open it");
    }
    if (!place(db, static_cast<size_t>(family - families_.begin()))) {
      return Err("the databases' map in '" + dir_ + "' is corrupt: '" + entry + "'");
    }
  }
  // Families made after the last swap (all of them, if none was ever committed) hold their
  // namesakes.
  for (size_t family = 0; family < by_family.size(); ++family) {
    if (by_family[family] == nullptr) continue;
    if (!place(NamesakeDatabase(family), family)) {
      return Err("the databases' map in '" + dir_ + "' is corrupt");
    }
  }
  for (std::unique_ptr<KeySpace>& space : spaces_) (void)space.release();  // now in `placed`
  for (size_t db = 0; db < placed.size(); ++db) {
    spaces_[db].reset(placed[db]);
    if (placed[db] != nullptr) placed[db]->db = static_cast<int>(db);
  }
  space_ = spaces_[static_cast<size_t>(database_)].get();
  return Status::Ok();
}

void RocksDbEngine::CloseDb() {
  if (db_ == nullptr) return;
  // Wait for running compactions (whose filters may read through metadata_source_) before
  // the handles they use go away.
  rocksdb::CancelAllBackgroundWork(db_, /*wait=*/true);
  metadata_source_->Detach();
  wal_files_->SetRecycling(false);  // the last WAL is cut to its records as it closes
  CloseAndDelete(db_, handles_);
}

void RocksDbEngine::CloseAndDelete(rocksdb::DB*& db,
                                   std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    rocksdb::Status s = db->DestroyColumnFamilyHandle(handle);
    (void)s;  // only fails for the default handle, which is then simply not deleted
  }
  handles.clear();
  rocksdb::Status s = db->Close();
  (void)s;  // nothing to report: the WAL already holds every commit
  delete db;
  db = nullptr;
}

RocksDbEngine::~RocksDbEngine() {
  assert(open_iterators_.all == 0);
  stop_counting_ = true;  // a count under way gives up; its iterator reads the database
  key_counter_.reset();   // waits for it
  // A queued compaction gives up: its waits and retries at the stop flag, a CompactFiles
  // under way only at RocksDB's shutdown (DisableManualCompaction refuses new ones only).
  stop_compacting_ = true;
  if (db_ != nullptr && CompactorBusy()) rocksdb::CancelAllBackgroundWork(db_, false);
  {
    const std::lock_guard lock(compact_mu_);
    compact_queue_.clear();
    compacting_ = false;  // a run's done must not start another
  }
  compactor_.reset();  // waits for it
  resumer_.reset();    // waits for a Resume under way, which uses the database
  CloseDb();
}

uint8_t RocksDbEngine::FamilyIndex(SubFamily family) {
  switch (family) {
    case SubFamily::kSubkeys:
      return 1;
    case SubFamily::kZScore:
      return 2;
    case SubFamily::kSystem:
      return 3;
  }
  return 1;
}

rocksdb::ColumnFamilyHandle* RocksDbEngine::Family(SubFamily family) const {
  return handles_[FamilyIndex(family)];
}

// --- Records ----------------------------------------------------------------------------------

StatusOr<std::optional<std::string_view>> RocksDbEngine::ReadMetadataValue(std::string_view key) {
  using Found = std::optional<std::string_view>;
  if (const WriteStage::Entry* staged = stage_.Find(space_->family, key)) {
    return staged->deleted ? Found() : Found(staged->value);
  }
  // The record cache keys each database's records by its family.
  const uint8_t family = space_->family;
  if (WipeStaged(family)) return Found();
  if (std::optional<RecordCache::Hit> hit = cache_.Find(key, family)) {
    return hit->absent ? Found() : Found(hit->value);
  }
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), metadata_cf(), ToSlice(key), &read_buf_);
  if (s.IsNotFound()) {
    cache_.PutAbsent(key, family);
    return Found();
  }
  if (!s.ok()) return IoError("read failed: " + s.ToString());
  cache_.Put(key, read_buf_, family);
  return Found(read_buf_);
}

StatusOr<std::optional<RecordView>> RocksDbEngine::GetView(std::string_view key, int64_t now_ms) {
  return LookUp(key, now_ms, /*read_long_payload=*/true);
}

StatusOr<std::optional<RecordView>> RocksDbEngine::GetViewNotingExpired(std::string_view key,
                                                                        int64_t now_ms,
                                                                        uint32_t* expired_bytes) {
  *expired_bytes = 0;
  return LookUp(key, now_ms, /*read_long_payload=*/true, expired_bytes);
}

StatusOr<std::optional<RecordView>> RocksDbEngine::GetViewWithoutLongPayload(std::string_view key,
                                                                             int64_t now_ms) {
  return LookUp(key, now_ms, /*read_long_payload=*/false);
}

StatusOr<std::optional<RecordView>> RocksDbEngine::LookUp(std::string_view key, int64_t now_ms,
                                                          bool read_long_payload,
                                                          uint32_t* expired_bytes) {
  StatusOr<std::optional<std::string_view>> raw = ReadMetadataValue(key);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) {
    CountLookup(false, key);
    return std::optional<RecordView>();
  }
  StatusOr<RecordView> record = DecodeRecordView(**raw);
  if (!record.ok()) return record.status();
  if (IsExpiredAt(*record, now_ms, hold_)) {
    if (!IsSwept(record->meta)) {
      if (!draws_.empty()) draws_.Forget(key);
      StageExpired(space_->family, key, **raw);
      NoteExpired(database_, key);
    }
    if (expired_bytes != nullptr) *expired_bytes = record->meta.stored_bytes;
    CountLookup(false, key);
    return std::optional<RecordView>();
  }
  CountLookup(true, key);
  if (record->meta.payload_outside && read_long_payload) {
    StatusOr<std::optional<std::string_view>> bytes = ReadOutsidePayload(key, record->meta);
    if (!bytes.ok()) return bytes.status();
    if (!bytes->has_value() || (*bytes)->size() != record->meta.size) {
      return IoError("corrupt record: the bytes of a long string are missing or cut short");
    }
    record->payload = **bytes;
  }
  return std::optional<RecordView>(*record);
}

StatusOr<std::optional<std::string_view>> RocksDbEngine::ReadOutsidePayload(std::string_view key,
                                                                            const Metadata& meta) {
  // Read into the buffer the last long string left: a fresh one of megabytes comes from the
  // kernel page by page, which cost more than the copy itself (an 8 MB GETRANGE took 15 ms).
  // It keeps at most twice what this read needs.
  if (outside_buf_.capacity() > 2 * std::max<uint64_t>(meta.size, kKeptReadBufferBytes)) {
    std::string().swap(outside_buf_);
  }
  outside_buf_used_ = true;
  if (meta.chunked) {
    SLUICE_RETURN_IF_ERROR(ReadStringChunks(*this, key, meta.version, 0, meta.size, &outside_buf_));
    return std::optional<std::string_view>(outside_buf_);
  }
  return ReadSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, meta.version, ""), &outside_buf_);
}

void RocksDbEngine::ReleaseIdleBuffers() {
  if (!outside_buf_used_ && outside_buf_.capacity() > kKeptReadBufferBytes) {
    std::string().swap(outside_buf_);
  }
  outside_buf_used_ = false;
}

void RocksDbEngine::Put(std::string_view key, const Metadata& meta, std::string_view payload) {
  // One test for the two rare cases: an open iterator's mirror, or key creations to report.
  if (put_observed_) {
    PutObserved(key, meta, payload);
    return;
  }
  StageRecord(key, meta, payload);
}

void RocksDbEngine::PutWithoutLongPayload(std::string_view key, const Metadata& meta,
                                          std::string_view payload) {
  if (!meta.payload_outside) {
    Put(key, meta, payload);
    return;
  }
  // The record alone: its chunks (or one-entry sub-entry) hold the bytes already. A key
  // created so (a long string written in pieces, storage/long_string.h) is reported as Put's.
  std::string key_copy;
  const bool created = WriteCreates(&key, &key_copy);
  std::string* value = StagePutInPlace(space_->family, key);
  EncodeRecordTo(meta, {}, value);
  if (mirror_active_) MirrorStaged();
  if (created) key_events_->OnKeyCreated(database_, key);
}

void RocksDbEngine::PutObserved(std::string_view key, const Metadata& meta,
                                std::string_view payload) {
  // WriteCreates reads the key, which may reuse the buffers a GetView payload views too.
  std::string payload_copy;
  if (report_created_) {
    payload_copy.assign(payload);
    payload = payload_copy;
  }
  std::string key_copy;
  const bool created = WriteCreates(&key, &key_copy);
  StageRecord(key, meta, payload);
  if (mirror_active_) MirrorStaged();
  if (created) key_events_->OnKeyCreated(database_, key);
}

bool RocksDbEngine::WriteCreates(std::string_view* key, std::string* key_copy) {
  if (!report_created_) return false;
  // The check reads the key, which may reuse the buffers *key views.
  key_copy->assign(*key);
  *key = *key_copy;
  return !HoldsLiveRecord(*key);
}

bool RocksDbEngine::HoldsLiveRecord(std::string_view key) {
  StatusOr<std::optional<std::string_view>> raw = ReadMetadataValue(key);
  if (!raw.ok() || !raw->has_value()) return false;
  StatusOr<RecordView> record = DecodeRecordView(**raw);
  return record.ok() && !IsExpiredAt(*record, clock_->NowMillis(), hold_);
}

void RocksDbEngine::KeyEventsChanged() { UpdatePutObserved(); }

void RocksDbEngine::UpdatePutObserved() { put_observed_ = mirror_active_ || report_created_; }

const std::string& RocksDbEngine::StageRecord(std::string_view key, const Metadata& meta,
                                              std::string_view payload) {
  Metadata stored = meta;
  stored.payload_outside = meta.type == KeyType::kString && payload.size() > kLongestInlineString;
  if (stored.payload_outside) {
    stored.chunked = true;
    stored.version = NextVersion();
    stored.size = payload.size();
    // Under a fresh version, nothing to read first (chunks cannot fail then).
    Status chunks = WriteStringChunks(*this, key, stored.version, 0, payload, /*fresh=*/true);
    assert(chunks.ok());
    (void)chunks;
    payload = {};
  }
  std::string* value = StagePutInPlace(space_->family, key);
  EncodeRecordTo(stored, payload, value);
  return *value;
}

void RocksDbEngine::Delete(std::string_view key) {
  if (!draws_.empty()) draws_.Forget(key);
  StageDelete(space_->family, key);
}

void RocksDbEngine::StageExpired(uint8_t family, std::string_view key, std::string_view record) {
  if (!SweepsInPlace(record)) {
    StageDelete(family, key);
    return;
  }
  swept_buf_.assign(record);
  MarkSwept(&swept_buf_);
  StagePut(family, key, swept_buf_);
}

void RocksDbEngine::SetLimiterExpiryHold(std::optional<ExpiryHold> hold) {
  hold_ = hold;
  shared_hold_->Set(hold);
}

void RocksDbEngine::CheckNoUnmergedIterator() const {
  // An iterator opened over the database alone (nothing was staged) would not see a write
  // staged while it is open: commands collect what they read, then write.
  assert(open_iterators_.unmerged == 0 && "a write staged while an unmerged iterator is open");
}

void RocksDbEngine::StagePut(uint8_t family, std::string_view key, std::string_view value) {
  CheckNoUnmergedIterator();
  stage_.Put(family, key, value);
  if (mirror_active_) MirrorStaged();
}

std::string* RocksDbEngine::StagePutInPlace(uint8_t family, std::string_view key) {
  CheckNoUnmergedIterator();
  return stage_.PutInPlace(family, key);
}

void RocksDbEngine::StageDelete(uint8_t family, std::string_view key) {
  CheckNoUnmergedIterator();
  stage_.Delete(family, key);
  if (mirror_active_) MirrorStaged();
}

void RocksDbEngine::Mirror(const WriteStage::Entry& e) {
  // WriteBatchWithIndex's Put/Delete fail only past max_bytes (unset here) or on a
  // column-family mismatch, neither of which can happen.
  rocksdb::ColumnFamilyHandle* family = handles_[e.family];
  rocksdb::Status s = e.deleted ? mirror_.Delete(family, ToSlice(e.key))
                                : mirror_.Put(family, ToSlice(e.key), ToSlice(e.value));
  assert(s.ok());
  (void)s;
}

void RocksDbEngine::MirrorStaged() {
  // An open iterator reads the mirror as it goes; with none open, the next one to open over
  // the entry's family brings it up to date (a command that walks a range and then deletes
  // what it found pays no index insert per deletion unless another iterator follows).
  const size_t i = stage_.last_staged();
  if (open_iterators_.all > 0) {
    Mirror(stage_.at(i));
  } else {
    MarkUnmirrored(i);
  }
}

void RocksDbEngine::MarkUnmirrored(size_t i) {
  if (i >= unmirrored_marks_.size()) unmirrored_marks_.resize(i + 1, false);
  if (unmirrored_marks_[i]) return;  // listed once however often it is written
  unmirrored_marks_[i] = true;
  unmirrored_.push_back(i);
}

rocksdb::WriteBatchWithIndex* RocksDbEngine::MergedBatch(uint8_t family) {
  return stage_.empty() ? nullptr : IteratorBatch(family);
}

rocksdb::WriteBatchWithIndex* RocksDbEngine::IteratorBatch(uint8_t family) {
  if (!mirror_active_) {
    mirror_active_ = true;
    UpdatePutObserved();
    for (size_t i = 0; i < stage_.size(); ++i) MarkUnmirrored(i);
  }
  // The iterated family's entries only, each as staged now: a pipelined ZPOPMIN's iterator
  // over the score index indexed its members' deletions and its record's write too (two
  // thirds of what it mirrored, a fifth of the call), for no iterator to read.
  size_t left = 0;
  for (size_t i : unmirrored_) {
    if (stage_.at(i).family == family) {
      Mirror(stage_.at(i));
      unmirrored_marks_[i] = false;
    } else {
      unmirrored_[left++] = i;
    }
  }
  unmirrored_.resize(left);
  return &mirror_;
}

// --- Sub-entries --------------------------------------------------------------------------------

uint64_t RocksDbEngine::NextVersion() {
  const auto now_us = static_cast<uint64_t>(std::max<int64_t>(clock_->NowMicros(), 0));
  last_version_ = std::max(last_version_ + 1, now_us);
  if (last_version_ >= version_ceiling_) {
    // With the batch that uses the version: in the log with it, or lost with it (ClearBatch).
    version_ceiling_ = last_version_ + kVersionsPerCeiling;
    std::string ceiling;
    PutFixed64LE(&ceiling, version_ceiling_);
    StagePut(FamilyIndex(SubFamily::kSystem), kVersionCeilingKey, ceiling);
  }
  return last_version_;
}

Status RocksDbEngine::ReadVersionCeiling() {
  std::string ceiling;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), Family(SubFamily::kSystem), kVersionCeilingKey, &ceiling);
  if (!s.ok() && !s.IsNotFound()) return IoError("can't read the version ceiling: " + s.ToString());
  if (s.ok() && ceiling.size() != 8) return IoError("corrupt version ceiling");
  // Data from before the ceiling was logged has only the clock to go by.
  logged_version_ceiling_ = s.ok() ? LoadFixed64LE(ceiling.data()) : 0;
  version_ceiling_ = logged_version_ceiling_;
  last_version_ = logged_version_ceiling_;  // NextVersion takes the clock if it is later
  return Status::Ok();
}

StatusOr<std::optional<std::string>> RocksDbEngine::GetSubEntry(SubFamily family,
                                                                std::string_view key) {
  std::string value;
  StatusOr<std::optional<std::string_view>> found = ReadSubEntry(family, key, &value);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return std::optional<std::string>();
  // Read into `value` (not viewing the stage): moved, not copied.
  if ((*found)->data() == value.data()) return std::optional<std::string>(std::move(value));
  return std::optional<std::string>(**found);
}

StatusOr<std::optional<std::string_view>> RocksDbEngine::ReadSubEntry(SubFamily family,
                                                                      std::string_view key,
                                                                      std::string* buffer) {
  using Found = std::optional<std::string_view>;
  if (const WriteStage::Entry* staged = stage_.Find(FamilyIndex(family), key)) {
    return staged->deleted ? Found() : Found(staged->value);
  }
  if (WipeStaged(FamilyIndex(family))) return Found();
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), Family(family), ToSlice(key), buffer);
  if (s.IsNotFound()) return Found();
  if (!s.ok()) return IoError("read failed: " + s.ToString());
  return Found(*buffer);
}

void RocksDbEngine::PutSubEntry(SubFamily family, std::string_view key, std::string_view value) {
  system_staged_ |= family == SubFamily::kSystem;
  if (family != SubFamily::kSystem) ForgetDrawsOfOwner(key);
  StagePut(FamilyIndex(family), key, value);
}

void RocksDbEngine::DeleteSubEntry(SubFamily family, std::string_view key) {
  system_staged_ |= family == SubFamily::kSystem;
  if (family != SubFamily::kSystem) ForgetDrawsOfOwner(key);
  StageDelete(FamilyIndex(family), key);
}

std::unique_ptr<SubEntryIterator> RocksDbEngine::NewSubEntryRangeIterator(SubFamily family,
                                                                          std::string lower,
                                                                          std::string upper) {
  return std::make_unique<BoundedIterator>(db_, MergedBatch(FamilyIndex(family)), Family(family),
                                           std::move(lower), std::move(upper), &open_iterators_,
                                           !WipeStaged(FamilyIndex(family)));
}

std::unique_ptr<BoundedIterator> RocksDbEngine::NewMetadataIterator(std::string lower,
                                                                    std::string upper,
                                                                    uint64_t max_skipped) {
  return std::make_unique<BoundedIterator>(db_, MergedBatch(space_->family), metadata_cf(),
                                           std::move(lower), std::move(upper), &open_iterators_,
                                           !WipeStaged(space_->family), max_skipped);
}

// --- Group commit -------------------------------------------------------------------------------

void RocksDbEngine::ClearBatch() {
  // Clearing the mirror frees what open merged iterators point into.
  assert(open_iterators_.all == 0);
  stage_.Clear();
  system_staged_ = false;
  version_ceiling_ = logged_version_ceiling_;  // what was staged and not logged is gone
  ClearMirror();
}

void RocksDbEngine::ClearMirror() {
  if (!mirror_active_) return;
  // Clear keeps the buffer: one that held a large batch (a 100 MB SET while an iterator was
  // open, a big STORE) is freed instead, as the commit batch is, or it stays allocated for good.
  if (mirror_.GetWriteBatch()->GetDataSize() > kKeptCommitBatchBytes) {
    mirror_ = NewMirror();
  } else {
    mirror_.Clear();
  }
  mirror_active_ = false;
  unmirrored_.clear();
  unmirrored_marks_.clear();
  UpdatePutObserved();
}

Status RocksDbEngine::Commit(bool sync) {
  if (!staged_wipe_.empty()) return CommitWipe(sync);
  if (stage_.empty()) return Status::Ok();
  BuiltWriteBatch batch = stage_.ToBatch(handles_, std::move(commit_buffer_));
  // Each key-space write looks its key up in the memtable, and after the commit in the record
  // cache: start those loads together. The cache's lines were loaded for the batch's reads,
  // but up to hundreds of other calls came between, and its stores after the commit waited
  // on them again (5% of the loop on warm random keys); these loads overlap the WAL write.
  commit_keys_.clear();
  for (size_t i = 0; i < stage_.size(); ++i) {
    if (stage_.at(i).family == kMetadataFamily) commit_keys_.emplace_back(stage_.at(i).key);
  }
  default_memtable_->PrefetchForUpdate(commit_keys_);
  cache_.Prefetch(commit_keys_);
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  rocksdb::Status s = db_->Write(write_options, &batch);
  if (s.ok()) {
    map_staged_ = false;  // a swap's map, if staged, is in the log now
    FollowCommittedStage();
  }
  ClearBatch();
  commit_buffer_ = std::move(batch).TakeBuffer();
  // swap: a move-assignment from an empty string keeps the heap buffer (libstdc++ copies a
  // short string's characters into it).
  if (commit_buffer_.capacity() > kKeptCommitBatchBytes) std::string().swap(commit_buffer_);
  if (!s.ok()) {
    draws_.Clear();
    return IoError("write failed: " + s.ToString());
  }
  return Status::Ok();
}

void RocksDbEngine::HoldExpiryHorizon() {
  if (horizon_held_) return;
  horizon_->Hold(clock_->NowMillis());
  horizon_held_ = true;
}

void RocksDbEngine::ReleaseExpiryHorizon() {
  if (!horizon_held_ || HasStagedWrites()) return;
  horizon_->Release();
  horizon_held_ = false;
}

void RocksDbEngine::FollowCommittedStage() {
  logged_version_ceiling_ = version_ceiling_;
  std::optional<uint64_t> before_stage;
  for (size_t i = 0; i < stage_.size(); ++i) {
    const WriteStage::Entry& e = stage_.at(i);
    CacheCommitted(e);
    if (!IsKeySpaceFamily(e.family)) continue;
    if (e.deleted) {
      // The loop thread is the only writer, and the stage wrote one entry per staged write,
      // the batch's last: the latest number is its last entry's.
      if (!before_stage) before_stage = db_->GetLatestSequenceNumber() - stage_.size();
      CountDeletion(e.family, *before_stage);
    } else if (IsSweptRecord(e.value)) {
      CountDeletion(e.family, std::nullopt);
    }
  }
}

void RocksDbEngine::CacheCommitted(const WriteStage::Entry& e) {
  if (!IsKeySpaceFamily(e.family)) return;
  if (e.deleted) {
    cache_.PutAbsent(e.key, e.family);
  } else {
    cache_.Put(e.key, e.value, e.family);
  }
}

void RocksDbEngine::CountDeletion(uint8_t family, std::optional<uint64_t> before_sequence) {
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space == nullptr || space->family != family) continue;
    if (!before_sequence) {
      // A swept record rewritten in place keeps the number of the entry it replaced. A bound
      // on the memtable that takes writes, read once, stays one for later memtables.
      if (!space->memtable_after_sequence) {
        space->memtable_after_sequence = MemtableAfterSequence(*space);
      }
      before_sequence = space->memtable_after_sequence;
    }
    space->deleted_after_sequence =
        std::min(space->deleted_after_sequence.value_or(*before_sequence), *before_sequence);
    ++space->deleted_since_compaction;
    return;
  }
}

void RocksDbEngine::DiscardStaged() {
  ClearBatch();
  draws_.Clear();
  staged_wipe_.clear();
  if (!map_staged_) return;
  // A swap went with the batch: the databases go back to the map the log holds. (Should that
  // read fail, the swap stays in memory, and the next open undoes it.)
  map_staged_ = false;
  (void)ReadDatabaseMap();
}

Status RocksDbEngine::SyncWal() {
  // After a failed WAL write RocksDB's log writer refuses every further call, and builds with
  // assertions (Debian's) abort in SyncWAL: leave the log alone until the DB has resumed,
  // which switches to a new WAL.
  if (Status background = listener_->Current(); !background.ok()) return background;
  rocksdb::Status s = db_->FlushWAL(/*sync=*/true);
  if (!s.ok()) return IoError("WAL sync failed: " + s.ToString());
  return Status::Ok();
}

bool RocksDbEngine::StartWalSync(std::function<void(Status)> done) {
  return wal_syncer_->Start(std::move(done));
}

void RocksDbEngine::SetSyncEveryCommit(bool every_commit) {
  wal_files_->SetEnabled(every_commit, /*prepare_now=*/false);
}

Engine::ZeroedWalStats RocksDbEngine::GetZeroedWalStats() const {
  return {wal_files_->files_used(), wal_files_->ready()};
}

Engine::BackgroundEventStats RocksDbEngine::GetBackgroundEventStats() const {
  return {background_events_->stops(), background_events_->delays(), background_events_->flushes(),
          background_events_->compactions()};
}

// --- Maintenance and introspection --------------------------------------------------------------

void RocksDbEngine::FlushAll() {
  // Every family but the server metadata (policies are configuration, not keys).
  std::vector<bool> wiped(handles_.size(), true);
  wiped[FamilyIndex(SubFamily::kSystem)] = false;
  StageWipe(wiped);
}

void RocksDbEngine::FlushDatabase() {
  const bool alone = Databases().size() == 1;
  if (alone) return FlushAll();
  // The sub-entries of the database's keys are shared with the others': they go with
  // compaction, which finds their owners gone (compaction_filter.h).
  std::vector<bool> wiped(handles_.size(), false);
  wiped[space_->family] = true;
  StageWipe(wiped);
}

void RocksDbEngine::StageWipe(const std::vector<bool>& wiped) {
  // The mirror cannot drop entries: it is built again from the stage by the next iterator.
  assert(open_iterators_.all == 0);
  stage_.DropFamilies(wiped);
  ClearMirror();
  staged_wipe_.resize(std::max(staged_wipe_.size(), wiped.size()), false);
  for (size_t family = 0; family < wiped.size(); ++family) {
    if (wiped[family]) staged_wipe_[family] = true;
  }
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space != nullptr && WipeStaged(space->family)) space->expire_resume.reset();
  }
}

Status RocksDbEngine::CommitWipe(bool sync) {
  const std::vector<bool> wiped = std::exchange(staged_wipe_, {});
  Status status = WriteWipe(wiped, sync);
  // A staged swap's map is among the staged writes: in the log with the wipe, or lost with it.
  if (status.ok()) {
    map_staged_ = false;
    draws_.Clear();  // the wiped keys' draws: their memory back now, not when evicted
  } else {
    DiscardStaged();
  }
  return status;
}

Status RocksDbEngine::WriteWipe(const std::vector<bool>& wiped, bool sync) {
  auto is_wiped = [&](size_t family) { return family < wiped.size() && wiped[family]; };
  // Whatever happens below, the cache must not outlive what it caches.
  if (std::any_of(spaces_.begin(), spaces_.end(), [&](const std::unique_ptr<KeySpace>& space) {
        return space != nullptr && is_wiped(space->family);
      })) {
    cache_.Clear();
  }
  // Keys are arbitrary bytes, so no fixed key bounds every key: delete [first, last) by range
  // and `last` by itself, in every family, as one batch.
  rocksdb::WriteBatch wipe;
  struct WipedRange {
    rocksdb::ColumnFamilyHandle* family;
    KeySpace* space;  // null for a family of sub-entries
    std::string first;
    std::string last;
  };
  std::vector<WipedRange> ranges;
  for (size_t index = 0; index < handles_.size(); ++index) {
    if (!is_wiped(index)) continue;
    rocksdb::ColumnFamilyHandle* cf = handles_[index];
    KeySpace* space = nullptr;
    for (const std::unique_ptr<KeySpace>& each : spaces_) {
      if (each != nullptr && each->family == index) space = each.get();
    }
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
    it->SeekToFirst();
    if (!it->status().ok()) return IoError("flushall: " + it->status().ToString());
    if (!it->Valid()) continue;
    const std::string first = it->key().ToString();
    std::string last;
    if (space != nullptr) {
      last = KeySpaceUpperBound(*space);
    } else {
      it->SeekToLast();
      if (!it->status().ok()) return IoError("flushall: " + it->status().ToString());
      if (!it->Valid()) continue;
      last = it->key().ToString();
    }
    rocksdb::Status s;
    if (first < last) s = wipe.DeleteRange(cf, first, last);
    if (s.ok()) s = wipe.Delete(cf, last);
    if (!s.ok()) return IoError("flushall: " + s.ToString());
    if (space != nullptr) {
      if (Status shielded = ShieldMemtableFromWipe(*space, wipe); !shielded.ok()) return shielded;
    }
    ranges.push_back({cf, space, first, std::move(last)});
  }
  // What the batch staged after the flush comes after the deletions, which it outlives.
  stage_.AppendTo(&wipe, handles_);
  if (wipe.Count() > 0) {
    rocksdb::WriteOptions write_options;
    write_options.sync = sync;
    rocksdb::Status s = db_->Write(write_options, &wipe);
    if (!s.ok()) return IoError("flushall: " + s.ToString());
    // The loop thread is the only writer: the latest number is this batch's last entry's.
    const uint64_t first_sequence = db_->GetLatestSequenceNumber() - wipe.Count() + 1;
    for (const WipedRange& range : ranges) {
      if (range.space == nullptr) continue;
      range.space->last_wipe_sequence = first_sequence;
      // The counted deletions' tombstones went with the wipe (but for those of keys sorting
      // before its first live key, which its range starts at).
      range.space->ForgetDeletions();
    }
  }
  FollowCommittedStage();  // as Commit
  ClearBatch();
  // Give the disk back now, as Redis gives memory back: the files below level 0 that hold
  // nothing but wiped keys go at once (older than the wipe, all they hold is deleted), instead
  // of waiting for compactions that a quiet server may not run for a long time. What this
  // leaves (level 0, files that also hold newer keys), or a failure leaves, is deleted all
  // the same, and goes with compaction. The batch's own writes are safe from it: they are in
  // the active memtable, which only this thread's next write or flush can seal.
  std::vector<KeySpace*> wiped_spaces;
  for (const WipedRange& range : ranges) {
    const rocksdb::Slice begin(range.first);
    const rocksdb::Slice end(range.last);
    (void)rocksdb::DeleteFilesInRange(db_, range.family, &begin, &end, /*include_end=*/true);
    if (range.space != nullptr) wiped_spaces.push_back(range.space);
  }
  CompactWipedKeySpaces(wiped_spaces);
  return Status::Ok();
}

// An in-place update keeps its entry's sequence number: a key whose memtable entry is older
// than the wipe's range deletion would stay deleted however often it was rewritten, and so it
// would when the WAL replays the same writes into one memtable after a crash. Two ways out:
// - the memtable's keys each get a point deletion in the wipe, which the next write of the key
//   cannot update in place. Only while no sealed memtable waits for its flush: the replay of
//   an unflushed WAL fills one memtable with the keys of both.
// - the memtable is flushed first, so that neither it nor its WAL holds older entries.
// Point deletions cost next to nothing for the few keys a test suite writes between two
// FLUSHALLs, but leave the memtable with dead entries (and range deletions) that every scan
// of the key space steps over until it is flushed: a flush now and then bounds them.
Status RocksDbEngine::ShieldMemtableFromWipe(KeySpace& space, rocksdb::WriteBatch& wipe) {
  constexpr uint64_t kMaxMemtableEntries = 4096;
  constexpr int kMaxWipesPerMemtable = 16;
  rocksdb::ColumnFamilyHandle* cf = handles_[space.family];
  std::optional<std::vector<std::string>> keys;
  if (space.wipes_in_memtable < kMaxWipesPerMemtable &&
      FamilyIntProperty(space.family, "rocksdb.num-immutable-mem-table") == 0 &&
      FamilyIntProperty(space.family, "rocksdb.num-entries-active-mem-table") <=
          kMaxMemtableEntries) {
    keys = space.memtable->WritableUserKeys();
  }
  if (!keys) {
    rocksdb::Status s = SealMemtable(space, /*wait=*/true, /*wal_end=*/false);
    if (!s.ok()) return IoError("flushall: " + s.ToString());
    space.wipes_in_memtable = 1;
    FlushOtherMemtables(space.family);
    return Status::Ok();
  }
  for (const std::string& key : *keys) {
    if (rocksdb::Status s = wipe.Delete(cf, key); !s.ok()) {
      return IoError("flushall: " + s.ToString());
    }
  }
  ++space.wipes_in_memtable;
  return Status::Ok();
}

void RocksDbEngine::FlushOtherMemtables(uint8_t sealed_family) {
  // Each seal starts a WAL file, and a WAL file stays until every family has flushed what it
  // holds of it: an idle family (another database, the policies) would keep them all, one
  // for every 16 FLUSHALLs of a test suite, until the WAL's cap (128 MB of them). Flushed
  // too, not waited for; an empty memtable flushes nothing.
  std::vector<rocksdb::ColumnFamilyHandle*> others;
  for (uint8_t family = 0; family < handles_.size(); ++family) {
    if (family != sealed_family &&
        FamilyIntProperty(family, "rocksdb.num-entries-active-mem-table") > 0) {
      others.push_back(handles_[family]);
    }
  }
  if (others.empty()) return;
  rocksdb::FlushOptions flush;
  flush.wait = false;
  flush.allow_write_stall = true;
  (void)db_->Flush(flush, others);  // a failed flush leaves the files for the WAL's cap
}

rocksdb::Status RocksDbEngine::SealMemtable(KeySpace& space, bool wait, bool wal_end) {
  rocksdb::FlushOptions flush;
  flush.wait = wait;
  flush.allow_write_stall = !wait;  // a flush not waited for must not wait for a stall either
  if (!wal_end) wal_files_->SetPassedOver(true);
  rocksdb::Status s = db_->Flush(flush, handles_[space.family]);
  if (!wal_end) wal_files_->SetPassedOver(false);
  if (s.ok()) space.wipes_in_memtable = 0;
  return s;
}

std::string RocksDbEngine::KeySpaceUpperBound(const KeySpace& space) const {
  std::string bound = space.memtable->LargestUserKey();
  for (const rocksdb::SstFileMetaData& file : KeySpaceFiles(&space)) {
    bound = std::max(bound, file.largestkey);
  }
  return bound;
}

std::vector<rocksdb::SstFileMetaData> RocksDbEngine::KeySpaceFiles(const KeySpace* space) const {
  if (space == nullptr) space = space_;
  rocksdb::ColumnFamilyMetaData family;
  db_->GetColumnFamilyMetaData(handles_[space->family], &family);
  std::vector<rocksdb::SstFileMetaData> files;
  for (rocksdb::LevelMetaData& level : family.levels) {
    std::move(level.files.begin(), level.files.end(), std::back_inserter(files));
  }
  return files;
}

Status RocksDbEngine::CompactAll() {
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    rocksdb::Status s = db_->CompactRange(options, cf, nullptr, nullptr);
    if (!s.ok()) return IoError("compaction failed: " + s.ToString());
  }
  return Status::Ok();
}

Status RocksDbEngine::StartFlush() { return FlushAllFamilies(/*wait=*/false); }

Status RocksDbEngine::FlushForStop() { return FlushAllFamilies(/*wait=*/true); }

Status RocksDbEngine::FlushAllFamilies(bool wait) {
  rocksdb::FlushOptions flush;
  flush.wait = wait;
  flush.allow_write_stall = true;  // never wait for a stall to clear before flushing
  if (rocksdb::Status s = db_->Flush(flush, handles_); !s.ok()) {
    return IoError("flush failed: " + s.ToString());
  }
  return Status::Ok();
}

uint64_t RocksDbEngine::GetIntProperty(std::string_view name) const {
  const std::string property(name);
  uint64_t value = 0;
  // The block cache is shared by every family, and the running jobs are the database's:
  // count them once.
  if (property.rfind("rocksdb.block-cache-", 0) == 0 ||
      property.rfind("rocksdb.num-running-", 0) == 0) {
    return db_->GetIntProperty(metadata_cf(), property, &value) ? value : 0;
  }
  uint64_t sum = 0;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    if (db_->GetIntProperty(cf, property, &value)) sum += value;
  }
  return sum;
}

uint64_t RocksDbEngine::GetKeyspaceIntProperty(std::string_view name) const {
  return FamilyIntProperty(space_->family, name);
}

uint64_t RocksDbEngine::FamilyIntProperty(uint8_t family, std::string_view name) const {
  uint64_t value = 0;
  return db_->GetIntProperty(handles_[family], std::string(name), &value) ? value : 0;
}

StatusOr<uint64_t> RocksDbEngine::CountRaw(rocksdb::ColumnFamilyHandle* cf) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
  uint64_t count = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++count;
  if (!it->status().ok()) return IoError("iteration failed: " + it->status().ToString());
  return count;
}

StatusOr<uint64_t> RocksDbEngine::CountRawEntries() { return CountRaw(metadata_cf()); }

StatusOr<uint64_t> RocksDbEngine::CountRawSubEntries(SubFamily family) {
  return CountRaw(Family(family));
}

Status RocksDbEngine::BackgroundError() const { return listener_->Current(); }

StatusOr<std::string> RocksDbEngine::CreateCheckpoint(int64_t now_unix_s, size_t keep) {
  return storage::CreateCheckpoint(db_, dir_, now_unix_s, keep);
}

}  // namespace sluice::storage
