#include "storage/background_events.h"

namespace sluice::storage {

void BackgroundEventListener::OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) {
  // RocksDB calls this on a change only: each call into a state is one entry into it (a
  // delay that turns into a stop counts once as each).
  if (info.condition.cur == rocksdb::WriteStallCondition::kStopped) {
    stops_.fetch_add(1, std::memory_order_relaxed);
  } else if (info.condition.cur == rocksdb::WriteStallCondition::kDelayed) {
    delays_.fetch_add(1, std::memory_order_relaxed);
  }
}

void BackgroundEventListener::OnFlushCompleted(rocksdb::DB* /*db*/,
                                               const rocksdb::FlushJobInfo& /*info*/) {
  flushes_.fetch_add(1, std::memory_order_relaxed);
}

void BackgroundEventListener::OnCompactionCompleted(rocksdb::DB* /*db*/,
                                                    const rocksdb::CompactionJobInfo& /*info*/) {
  compactions_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace sluice::storage
