#include "storage/rocksdb_engine.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <system_error>
#include <utility>

#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

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
  // A WAL file can only go once every family has flushed past it: bound the WAL so a rarely
  // written family (zscore) does not keep old logs alive forever.
  db.max_total_wal_size = 4 * options.write_buffer_bytes;
  db.bytes_per_sync = 1 << 20;
  db.keep_log_file_num = 10;
  return db;
}

rocksdb::ColumnFamilyOptions MakeColumnFamilyOptions(const EngineOptions& options,
                                                     std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = std::move(cache);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.format_version = 5;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = options.write_buffer_bytes;
  cf.level_compaction_dynamic_level_bytes = true;

  // Values are small: no compression where data is young and rewritten soon (L0, L1), LZ4 on
  // the middle levels, ZSTD at the bottom where most data settles.
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  const rocksdb::CompressionType middle = Supported(supported, rocksdb::kLZ4Compression)
                                              ? rocksdb::kLZ4Compression
                                              : rocksdb::kNoCompression;
  cf.compression = middle;
  cf.compression_per_level.assign(static_cast<size_t>(cf.num_levels), middle);
  cf.compression_per_level[0] = rocksdb::kNoCompression;
  cf.compression_per_level[1] = rocksdb::kNoCompression;
  if (Supported(supported, rocksdb::kZSTD)) cf.bottommost_compression = rocksdb::kZSTD;
  return cf;
}

// --- Open and close -----------------------------------------------------------------------------

StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options, const Clock* clock) {
  StatusOr<std::unique_ptr<RocksDbEngine>> engine = RocksDbEngine::Open(options, clock);
  if (!engine.ok()) return engine.status();
  return std::unique_ptr<Engine>(std::move(*engine));
}

RocksDbEngine::RocksDbEngine(const Clock* clock, std::shared_ptr<MetadataSource> metadata_source,
                             std::shared_ptr<BackgroundErrorListener> listener)
    : clock_(clock),
      metadata_source_(std::move(metadata_source)),
      listener_(std::move(listener)),
      batch_(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true) {}

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

  auto source = std::make_shared<MetadataSource>();
  auto listener = std::make_shared<BackgroundErrorListener>();
  rocksdb::DBOptions db_options = MakeDbOptions(options);
  db_options.listeners.push_back(listener);

  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  rocksdb::ColumnFamilyOptions metadata_options = MakeColumnFamilyOptions(options, cache);
  metadata_options.compaction_filter_factory = std::make_shared<MetadataFilterFactory>(clock);
  rocksdb::ColumnFamilyOptions sub_options = MakeColumnFamilyOptions(options, cache);
  sub_options.compaction_filter_factory = std::make_shared<SubEntryFilterFactory>(clock, source);
  const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, metadata_options},
      {kSubkeysFamilyName, sub_options},
      {kZScoreFamilyName, sub_options},
      // Server metadata (named policies): no compaction filter, untouched by FLUSHALL.
      {kSystemFamilyName, MakeColumnFamilyOptions(options, cache)},
  };

  std::unique_ptr<RocksDbEngine> engine(new RocksDbEngine(clock, source, listener));
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir, families, &engine->handles_, &engine->db_);
  if (!s.ok()) {
    if (IsLockError(s)) return IoError("dir '" + dir + "' is locked by another sluiced process");
    return IoError("can't open RocksDB in '" + dir + "': " + s.ToString());
  }
  source->Attach(engine->db_, engine->metadata_cf());
  engine->last_version_ = static_cast<uint64_t>(std::max<int64_t>(clock->NowMicros(), 0));
  return engine;
}

RocksDbEngine::~RocksDbEngine() {
  assert(open_iterators_ == 0);
  if (db_ == nullptr) return;
  // Wait for running compactions (whose filters may read through metadata_source_) before
  // the handles they use go away.
  rocksdb::CancelAllBackgroundWork(db_, /*wait=*/true);
  metadata_source_->Detach();
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    rocksdb::Status s = db_->DestroyColumnFamilyHandle(handle);
    (void)s;  // only fails for the default handle, which is then simply not deleted
  }
  rocksdb::Status s = db_->Close();
  (void)s;  // nothing to report to from a destructor; the WAL already holds every commit
  delete db_;
}

rocksdb::ColumnFamilyHandle* RocksDbEngine::Family(SubFamily family) const {
  switch (family) {
    case SubFamily::kSubkeys: return handles_[1];
    case SubFamily::kZScore: return handles_[2];
    case SubFamily::kSystem: return handles_[3];
  }
  return handles_[1];
}

// --- Records ----------------------------------------------------------------------------------

StatusOr<std::optional<std::string>> RocksDbEngine::ReadMetadataValue(std::string_view key) {
  std::string value;
  rocksdb::Status s =
      batch_.GetFromBatchAndDB(db_, rocksdb::ReadOptions(), metadata_cf(), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return IoError("read failed: " + s.ToString());
  return std::optional<std::string>(std::move(value));
}

StatusOr<std::optional<Record>> RocksDbEngine::Get(std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<std::string>> raw = ReadMetadataValue(key);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return std::optional<Record>();
  StatusOr<Record> record = DecodeRecord(**raw);
  if (!record.ok()) return record.status();
  if (IsExpiredAt(record->meta, now_ms)) {
    Delete(key);
    return std::optional<Record>();
  }
  return std::optional<Record>(std::move(*record));
}

StatusOr<std::optional<Metadata>> RocksDbEngine::GetMetadata(std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<std::string>> raw = ReadMetadataValue(key);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return std::optional<Metadata>();
  StatusOr<Metadata> meta = DecodeMetadata(**raw);
  if (!meta.ok()) return meta.status();
  if (IsExpiredAt(*meta, now_ms)) {
    Delete(key);
    return std::optional<Metadata>();
  }
  return std::optional<Metadata>(*meta);
}

// WriteBatchWithIndex's Put/Delete fail only past max_bytes (unset here) or on a
// column-family mismatch, neither of which can happen.
void RocksDbEngine::Put(std::string_view key, const Record& record) {
  rocksdb::Status s = batch_.Put(metadata_cf(), ToSlice(key), EncodeRecord(record));
  assert(s.ok());
  (void)s;
}

void RocksDbEngine::Delete(std::string_view key) {
  rocksdb::Status s = batch_.Delete(metadata_cf(), ToSlice(key));
  assert(s.ok());
  (void)s;
}

// --- Sub-entries --------------------------------------------------------------------------------

uint64_t RocksDbEngine::NextVersion() {
  const auto now_us = static_cast<uint64_t>(std::max<int64_t>(clock_->NowMicros(), 0));
  last_version_ = std::max(last_version_ + 1, now_us);
  return last_version_;
}

StatusOr<std::optional<std::string>> RocksDbEngine::GetSubEntry(SubFamily family,
                                                                std::string_view key) {
  std::string value;
  rocksdb::Status s =
      batch_.GetFromBatchAndDB(db_, rocksdb::ReadOptions(), Family(family), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return IoError("read failed: " + s.ToString());
  return std::optional<std::string>(std::move(value));
}

void RocksDbEngine::PutSubEntry(SubFamily family, std::string_view key, std::string_view value) {
  rocksdb::Status s = batch_.Put(Family(family), ToSlice(key), ToSlice(value));
  assert(s.ok());
  (void)s;
}

void RocksDbEngine::DeleteSubEntry(SubFamily family, std::string_view key) {
  rocksdb::Status s = batch_.Delete(Family(family), ToSlice(key));
  assert(s.ok());
  (void)s;
}

std::unique_ptr<SubEntryIterator> RocksDbEngine::NewSubEntryIterator(SubFamily family,
                                                                     std::string_view prefix) {
  return std::make_unique<BoundedIterator>(db_, &batch_, Family(family), std::string(prefix),
                                           PrefixSuccessor(prefix), &open_iterators_);
}

std::unique_ptr<BoundedIterator> RocksDbEngine::NewMetadataIterator(std::string lower,
                                                                    std::string upper) {
  return std::make_unique<BoundedIterator>(db_, &batch_, metadata_cf(), std::move(lower),
                                           std::move(upper), &open_iterators_);
}

// --- Group commit -------------------------------------------------------------------------------

bool RocksDbEngine::HasStagedWrites() const {
  // GetWriteBatch() is not const in RocksDB's API, though it only returns a pointer.
  return const_cast<rocksdb::WriteBatchWithIndex&>(batch_).GetWriteBatch()->Count() > 0;
}

void RocksDbEngine::ClearBatch() {
  // Clearing the batch frees what open merged iterators point into.
  assert(open_iterators_ == 0);
  batch_.Clear();
}

Status RocksDbEngine::Commit(bool sync) {
  if (!HasStagedWrites()) return Status::Ok();
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  rocksdb::Status s = db_->Write(write_options, batch_.GetWriteBatch());
  ClearBatch();
  if (!s.ok()) return IoError("write failed: " + s.ToString());
  return Status::Ok();
}

void RocksDbEngine::DiscardStaged() { ClearBatch(); }

Status RocksDbEngine::SyncWal() {
  rocksdb::Status s = db_->FlushWAL(/*sync=*/true);
  if (!s.ok()) return IoError("WAL sync failed: " + s.ToString());
  return Status::Ok();
}

// --- Maintenance and introspection --------------------------------------------------------------

Status RocksDbEngine::FlushAll() {
  ClearBatch();
  expire_cursor_.reset();
  // Keys are arbitrary bytes, so no fixed key bounds every key: delete [first, last) by range
  // and `last` by itself, in every family, as one synced batch.
  rocksdb::WriteBatch wipe;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    if (cf == Family(SubFamily::kSystem)) continue;  // policies are configuration, not keys
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
    it->SeekToFirst();
    if (!it->status().ok()) return IoError("flushall: " + it->status().ToString());
    if (!it->Valid()) continue;
    const std::string first = it->key().ToString();
    it->SeekToLast();
    if (!it->status().ok()) return IoError("flushall: " + it->status().ToString());
    if (!it->Valid()) continue;
    const std::string last = it->key().ToString();
    rocksdb::Status s;
    if (first < last) s = wipe.DeleteRange(cf, first, last);
    if (s.ok()) s = wipe.Delete(cf, last);
    if (!s.ok()) return IoError("flushall: " + s.ToString());
  }
  if (wipe.Count() == 0) return Status::Ok();
  rocksdb::WriteOptions write_options;
  write_options.sync = true;
  rocksdb::Status s = db_->Write(write_options, &wipe);
  if (!s.ok()) return IoError("flushall: " + s.ToString());
  return Status::Ok();
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

uint64_t RocksDbEngine::GetIntProperty(std::string_view name) const {
  const std::string property(name);
  uint64_t value = 0;
  // The block cache is shared by every family: count it once.
  if (property.rfind("rocksdb.block-cache-", 0) == 0) {
    return db_->GetIntProperty(metadata_cf(), property, &value) ? value : 0;
  }
  uint64_t sum = 0;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    if (db_->GetIntProperty(cf, property, &value)) sum += value;
  }
  return sum;
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

}  // namespace sluice::storage
