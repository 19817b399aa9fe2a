#pragma once

// The Engine on RocksDB: three column families ("default" holds the metadata records,
// "subkeys" and "zscore" the composite types' elements), a WriteBatchWithIndex for staged
// writes, compaction filters driven by the injected Clock.

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "storage/background_errors.h"
#include "storage/bounded_iterator.h"
#include "storage/compaction_filter.h"
#include "storage/engine.h"

namespace sluice::storage {

inline constexpr const char* kSubkeysFamilyName = "subkeys";
inline constexpr const char* kZScoreFamilyName = "zscore";
inline constexpr const char* kSystemFamilyName = "system";

// The RocksDB options sluice opens with (exposed for tests and tools).
rocksdb::DBOptions MakeDbOptions(const EngineOptions& options);
// Column family options without a compaction filter factory.
rocksdb::ColumnFamilyOptions MakeColumnFamilyOptions(const EngineOptions& options,
                                                     std::shared_ptr<rocksdb::Cache> cache);

class RocksDbEngine final : public Engine {
 public:
  static StatusOr<std::unique_ptr<RocksDbEngine>> Open(const EngineOptions& options,
                                                       const Clock* clock);
  ~RocksDbEngine() override;
  RocksDbEngine(const RocksDbEngine&) = delete;
  RocksDbEngine& operator=(const RocksDbEngine&) = delete;

  StatusOr<std::optional<Record>> Get(std::string_view key, int64_t now_ms) override;
  StatusOr<std::optional<Metadata>> GetMetadata(std::string_view key, int64_t now_ms) override;
  void Put(std::string_view key, const Record& record) override;
  void Delete(std::string_view key) override;

  uint64_t NextVersion() override;
  StatusOr<std::optional<std::string>> GetSubEntry(SubFamily family, std::string_view key) override;
  void PutSubEntry(SubFamily family, std::string_view key, std::string_view value) override;
  void DeleteSubEntry(SubFamily family, std::string_view key) override;
  std::unique_ptr<SubEntryIterator> NewSubEntryIterator(SubFamily family,
                                                        std::string_view prefix) override;

  bool HasStagedWrites() const override;
  Status Commit(bool sync) override;
  void DiscardStaged() override;
  Status SyncWal() override;

  StatusOr<ScanPage> Scan(std::string_view after_key, size_t count, const ScanFilter& filter,
                          int64_t now_ms) override;
  StatusOr<std::vector<std::string>> Keys(std::string_view pattern, int64_t now_ms) override;
  StatusOr<KeyCounts> CountKeys(int64_t now_ms) override;
  Status FlushAll() override;

  size_t ActiveExpireStep(int64_t now_ms, size_t max_examined) override;
  Status CompactAll() override;

  uint64_t GetIntProperty(std::string_view name) const override;
  StatusOr<uint64_t> CountRawEntries() override;
  StatusOr<uint64_t> CountRawSubEntries(SubFamily family) override;
  Status BackgroundError() const override;

 private:
  RocksDbEngine(const Clock* clock, std::shared_ptr<MetadataSource> metadata_source,
                std::shared_ptr<BackgroundErrorListener> listener);

  rocksdb::ColumnFamilyHandle* metadata_cf() const { return handles_[0]; }
  rocksdb::ColumnFamilyHandle* Family(SubFamily family) const;
  // Reads a metadata-family value through the batch. nullopt: not found.
  StatusOr<std::optional<std::string>> ReadMetadataValue(std::string_view key);
  // Merged (batch over DB) iterator over the metadata keys in [lower, upper).
  std::unique_ptr<BoundedIterator> NewMetadataIterator(std::string lower, std::string upper);
  StatusOr<uint64_t> CountRaw(rocksdb::ColumnFamilyHandle* cf);
  void ClearBatch();

  const Clock* clock_;
  std::shared_ptr<MetadataSource> metadata_source_;
  std::shared_ptr<BackgroundErrorListener> listener_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // metadata, subkeys, zscore, system
  rocksdb::WriteBatchWithIndex batch_;
  int open_iterators_ = 0;
  uint64_t last_version_ = 0;
  std::optional<std::string> expire_cursor_;  // last key the active cycle examined
};

}  // namespace sluice::storage
