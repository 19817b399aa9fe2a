#pragma once

// Counts RocksDB's write stalls, for INFO persistence and /metrics. A stop (a column family
// with too many memtables waiting for a flush, or too many L0 files) makes every write wait,
// and so the loop: no command runs until it ends. A delay slows writes to a rate instead.
// Callbacks come from RocksDB's threads; reads come from the loop thread.

#include <rocksdb/listener.h>

#include <atomic>
#include <cstdint>

namespace sluice::storage {

class WriteStallListener final : public rocksdb::EventListener {
 public:
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;

  // Times a column family's writes were stopped, and slowed.
  uint64_t stops() const { return stops_.load(std::memory_order_relaxed); }
  uint64_t delays() const { return delays_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> stops_{0};
  std::atomic<uint64_t> delays_{0};
};

}  // namespace sluice::storage
