#include "storage/background_events.h"

#include <algorithm>

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
                                               const rocksdb::FlushJobInfo& info) {
  flushes_.fetch_add(1, std::memory_order_relaxed);
  const std::lock_guard lock(flushed_mu_);
  uint64_t& through = flushed_through_[info.cf_id];
  through = std::max<uint64_t>(through, info.largest_seqno);
}

uint64_t BackgroundEventListener::FlushedThrough(uint32_t cf_id) const {
  const std::lock_guard lock(flushed_mu_);
  auto found = flushed_through_.find(cf_id);
  return found == flushed_through_.end() ? 0 : found->second;
}

void BackgroundEventListener::OnCompactionCompleted(rocksdb::DB* /*db*/,
                                                    const rocksdb::CompactionJobInfo& /*info*/) {
  compactions_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace sluice::storage
