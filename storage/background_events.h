#pragma once

// Counts what RocksDB's background work did to writes, for INFO persistence and /metrics. A
// stop (a column family with too many memtables waiting for a flush, or too many L0 files)
// makes every write wait, and so the loop: no command runs until it ends. A delay slows writes
// to a rate instead. Flushes and compactions are counted as they end: their CPU and their disk
// writes (which an fdatasync of the WAL may queue behind) are what a latency spike with no
// stop in it is most often made of. Each family's flushes also tell how far its memtables
// are written out, which says whether a FLUSHALL's range deletion is still in one.
// Callbacks come from RocksDB's threads; reads come from the loop thread.

#include <rocksdb/listener.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace sluice::storage {

class BackgroundEventListener final : public rocksdb::EventListener {
 public:
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;

  // Times a column family's writes were stopped, and slowed.
  uint64_t stops() const { return stops_.load(std::memory_order_relaxed); }
  uint64_t delays() const { return delays_.load(std::memory_order_relaxed); }
  // Memtable flushes and compactions RocksDB reported done.
  uint64_t flushes() const { return flushes_.load(std::memory_order_relaxed); }
  uint64_t compactions() const { return compactions_.load(std::memory_order_relaxed); }
  // The largest sequence number a completed flush of column family `cf_id` wrote out, 0 for
  // none: a family's memtables flush oldest first, so no memtable of it still holds a write
  // whose batch began at or below this number.
  uint64_t FlushedThrough(uint32_t cf_id) const;

 private:
  std::atomic<uint64_t> stops_{0};
  std::atomic<uint64_t> delays_{0};
  std::atomic<uint64_t> flushes_{0};
  std::atomic<uint64_t> compactions_{0};
  mutable std::mutex flushed_mu_;
  std::unordered_map<uint32_t, uint64_t> flushed_through_;  // by column family id
};

}  // namespace sluice::storage
