#pragma once

// Zeroed WAL files for appendfsync always.
//
// Under always every commit waits for an fdatasync of the WAL. When the commit was appended to
// the file, that fdatasync also commits the file system's journal: the file's new size, and the
// blocks RocksDB preallocated (fallocate with KEEP_SIZE) turning from unwritten to written.
// When the commit overwrote blocks already written and synced, the fdatasync writes the data
// and nothing else. On ext4 (this project's virtio machine) that is 90 instead of 130 us per
// sync of a 1 KB commit, 115 instead of 200 us for 48 KB (docs/performance.md, change 26).
//
// So while every commit is synced, each new WAL file in the data directory starts as a file of
// zeros, written and synced ahead of need on a thread of its own, which RocksDB then writes
// from its start: FileSystem::ReuseWritableFile, the entry point of RocksDB's own log
// recycling, renames a file into place without truncating it. RocksDB's log reader takes an
// all-zero record header as the end of what was written (kZeroType: the rest of the block is
// skipped, and so on to the end of the file), a torn record before the zeros is cut off as in
// an appended file (point-in-time recovery), and a WAL file that RocksDB closes is cut to its
// written size. While it is open, the file system reports its size as what was written, as
// for an appended file: RocksDB copies a live WAL for a checkpoint up to that size, and a copy
// of the zeros could hold a page read before it was written followed by one read after.
//
// Only under always: there every commit's sync gains, and since each commit is synced before
// the next is written, no record can lie beyond a page that an OS crash lost. A zeroed file
// left by an earlier run is never trusted (a crash may have lost its rename into a WAL name
// after RocksDB had synced records into it, which would replay later): the directory's
// zeroed file is made anew at open.

#include <rocksdb/file_system.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "storage/background_worker.h"

namespace sluice::storage {

class ZeroedWalFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  // `dir`: the data directory, as RocksDB is given it; `file_bytes`: the size of each zeroed
  // file (about the most a WAL file grows to: max_total_wal_size).
  ZeroedWalFileSystem(std::shared_ptr<rocksdb::FileSystem> base, std::string dir,
                      uint64_t file_bytes);
  ~ZeroedWalFileSystem() override;

  static const char* kClassName() { return "SluiceZeroedWalFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // On (every commit is synced): a zeroed file is prepared, on the calling thread when
  // `prepare_now` (at open, so the first WAL gets one), else in the background. Off: the
  // waiting zeroed file is deleted, and new WAL files are created as RocksDB creates them.
  // Nothing is prepared where it would not pay or would crowd the disk: on tmpfs, or with less
  // than kFreeSpaceFactor zeroed files' worth of free space.
  void SetEnabled(bool enabled, bool prepare_now);

  // While on, new WAL files are ordinary ones and the waiting zeroed file stays for a later
  // one: for a flush that is not a WAL's end (FLUSHALL's), which would otherwise make every
  // such flush cost the writing of a whole zeroed file.
  void SetPassedOver(bool passed_over);

  // A new WAL file directly in `dir` takes the waiting zeroed file and starts preparing the
  // next (also when none was ready: a preparation may have failed on a full disk). Anything
  // else, or a WAL with no zeroed file to take, is created by the base file system.
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  // What was written, for a WAL file that started zeroed and is still open.
  rocksdb::IOStatus GetFileSize(const std::string& fname, const rocksdb::IOOptions& options,
                                uint64_t* size, rocksdb::IODebugContext* dbg) override;

  // WAL files that started as a zeroed file (INFO persistence).
  uint64_t files_used() const { return files_used_.load(std::memory_order_relaxed); }
  // Whether a zeroed file waits for the next WAL.
  bool ready() const;

  static constexpr uint64_t kFreeSpaceFactor = 8;
  // The waiting zeroed file, in `dir` (RocksDB leaves names it does not know alone).
  static constexpr const char* kFileName = "sluice-zeroed-wal";

 private:
  class WrittenSizeFile;
  void Forget(const std::string& name);
  bool IsWalFileOfDir(const std::string& fname) const;
  // Writes kFileName anew (zeros, synced, renamed into place, directory synced). Ok without
  // a file where it would not pay (see SetEnabled).
  Status Prepare();
  void PrepareInBackground();
  bool Worthwhile() const;

  const std::string dir_;
  const std::string path_;
  const std::string tmp_path_;
  const uint64_t file_bytes_;
  std::atomic<uint64_t> files_used_{0};

  mutable std::mutex mu_;
  bool enabled_ = false;
  bool ready_ = false;  // path_ holds a complete zeroed file made by this process
  bool passed_over_ = false;
  // The open WAL files that started zeroed, by name in dir_: the bytes written to each.
  std::map<std::string, const std::atomic<uint64_t>*> written_;

  BackgroundWorker worker_;  // last: destroyed first, waiting for a Prepare under way
};

}  // namespace sluice::storage
