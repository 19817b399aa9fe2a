#pragma once

// Captures RocksDB's background error (disk full, I/O error in a flush or compaction) so the
// server can report it (INFO persistence, MISCONF), and forgets it when RocksDB's automatic
// recovery ends well. Callbacks come from RocksDB's threads; reads come from the loop thread.

#include <rocksdb/listener.h>

#include <mutex>
#include <string>

#include "common/status.h"

namespace sluice::storage {

class BackgroundErrorListener final : public rocksdb::EventListener {
 public:
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;

  // Ok when there is no pending background error; else an IoError describing it.
  Status Current() const;

 private:
  mutable std::mutex mu_;
  std::string error_;  // empty: none
};

}  // namespace sluice::storage
