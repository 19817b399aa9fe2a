#pragma once

// Counts what RocksDB's background work did to writes, for INFO persistence and /metrics. A
// stop (a column family with too many memtables waiting for a flush, or too many L0 files)
// makes every write wait, and so the loop: no command runs until it ends. A delay slows writes
// to a rate instead. Flushes and compactions are counted as they end: their CPU and their disk
// writes (which an fdatasync of the WAL may queue behind) are what a latency spike with no
// stop in it is most often made of.
// Callbacks come from RocksDB's threads; reads come from the loop thread.

#include <rocksdb/listener.h>

#include <atomic>
#include <cstdint>

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

 private:
  std::atomic<uint64_t> stops_{0};
  std::atomic<uint64_t> delays_{0};
  std::atomic<uint64_t> flushes_{0};
  std::atomic<uint64_t> compactions_{0};
};

}  // namespace sluice::storage
