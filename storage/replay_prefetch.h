#pragma once

// Opening after a crash, RocksDB replays the WAL into the memtables. Each key-space write
// there is an in-place update that first finds its key through the memtable's index
// (indexed_memtable.h), one key after the other, each waiting for memory: 40% of a replay's
// time in `perf`. This filter sees each WAL record before it is applied and starts those
// loads for all of its keys together, as RocksDbEngine::Commit does for a live batch. It
// changes no record.

#include <rocksdb/db.h>
#include <rocksdb/wal_filter.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "storage/indexed_memtable.h"

namespace sluice::storage {

class ReplayPrefetch final : public rocksdb::WalFilter {
 public:
  // The key spaces are the `families` whose memtables an IndexedSkipListFactory makes.
  explicit ReplayPrefetch(const std::vector<rocksdb::ColumnFamilyDescriptor>& families);

  void ColumnFamilyLogNumberMap(const std::map<uint32_t, uint64_t>& log_numbers,
                                const std::map<std::string, uint32_t>& ids_by_name) override;
  WalProcessingOption LogRecordFound(unsigned long long log_number,
                                     const std::string& log_file_name,
                                     const rocksdb::WriteBatch& batch,
                                     rocksdb::WriteBatch* new_batch, bool* batch_changed) override;
  const char* Name() const override { return "sluice.ReplayPrefetch"; }

 private:
  struct KeySpace {
    IndexedSkipListFactory* memtable = nullptr;
    std::vector<std::string_view> keys;  // the record's writes, views into its batch
  };

  std::map<std::string, IndexedSkipListFactory*> by_name_;
  std::vector<KeySpace> spaces_;
  std::vector<KeySpace*> by_family_id_;  // nullptr: not a key space
};

}  // namespace sluice::storage
