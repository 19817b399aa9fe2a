#pragma once

// Captures RocksDB's background error (disk full, I/O error in a flush or compaction) so the
// server can report it (INFO persistence, MISCONF), and forgets it when RocksDB's automatic
// recovery ends well. Callbacks come from RocksDB's threads; reads come from the loop thread.

#include <rocksdb/listener.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/status.h"

namespace sluice::storage {

class BackgroundErrorListener final : public rocksdb::EventListener {
 public:
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;
  // Turns off RocksDB's automatic recovery from a full disk: its SstFileManager waits for
  // free space of a whole write buffer (rocksdb-write-buffer-size) and polls every 5 s, and while it waits a
  // manual DB::Resume() is refused as busy. The server's cron calls Resume() every second
  // instead (Engine::StartResume), which succeeds as soon as the flush fits.
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason reason, rocksdb::Status bg_error,
                            bool* auto_recovery) override;

  // Ok when there is no pending background error; else an IoError describing it.
  Status Current() const;
  // Whether there is one (Current() may still find it cleared by then).
  bool HasError() const { return has_error_.load(std::memory_order_acquire); }
  // Counts the errors recorded so far: taken before DB::Resume(), for ClearIfNoneSince.
  uint64_t Generation() const;
  // Forgets the error.
  void Clear();
  // Forgets the error unless another was recorded after `generation` was taken: a successful
  // DB::Resume() on another thread must not wipe out an error that came while it ran (the
  // loop writes again as soon as RocksDB itself reports the recovery).
  void ClearIfNoneSince(uint64_t generation);
  // Records an error of the engine's own (a database reopened read-only).
  void Set(std::string text);

 private:
  // Set with error_, so HasError() and Current() need no lock while there is none: the
  // dispatcher asks HasError() before every write command.
  std::atomic<bool> has_error_{false};
  mutable std::mutex mu_;
  std::string error_;        // empty: none
  uint64_t generation_ = 0;  // errors recorded so far
};

}  // namespace sluice::storage
