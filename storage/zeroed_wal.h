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
// The blocks of a WAL that RocksDB is done with become the next zeroed file: a WAL file that
// closes keeps its whole size (the zeros after its records included), and when RocksDB
// deletes it (after the flush of its memtables), it is renamed to the zeroed file's name and
// written over with zeros. A switch frees and allocates no WAL blocks. Freeing them cost
// every commit a stall on a file system mounted with `discard` (as many cloud disks are):
// ext4 discards freed blocks as its journal commits, so cutting a closed WAL to its written
// size, then deleting it, held each commit's fdatasync behind discards of 136 MB, about
// 100 ms at each WAL switch on this project's machine.
//
// Only under always: there every commit's sync gains, and since every commit a client waits
// for is synced before the next is written, no such record can lie beyond a page that an OS
// crash lost. (The expiry cycle's deletions are written without a sync: those after the last
// sync may come back in part, which only replays deletions of keys that read as expired
// anyway; the next synced commit covers them all.) A zeroed file
// left by an earlier run is never trusted (a crash may have lost its rename into a WAL name
// after RocksDB had synced records into it, which would replay later): the directory's
// zeroed file is made anew at open.

#include <rocksdb/file_system.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
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
  // `recycle_wait`: how long a new WAL that follows a zeroed one waits for that one to be
  // deleted, to become the next zeroed file, before a new file is prepared instead.
  ZeroedWalFileSystem(std::shared_ptr<rocksdb::FileSystem> base, std::string dir,
                      uint64_t file_bytes, std::chrono::milliseconds recycle_wait = kRecycleWait);
  ~ZeroedWalFileSystem() override;

  static const char* kClassName() { return "SluiceZeroedWalFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // On (every commit is synced): a zeroed file is prepared, on the calling thread when
  // `prepare_now` (at open, so the first WAL gets one), else in the background. Off: the
  // waiting zeroed file is deleted, and new WAL files are created as RocksDB creates them.
  // Nothing is prepared where it would not pay or would crowd the disk: on tmpfs, or with less
  // than kFreeSpaceFactor zeroed files' worth of free space.
  void SetEnabled(bool enabled, bool prepare_now);

  // Deletes what an earlier run may have left: a zeroed file, or a WAL being recycled into one
  // (a crash, followed by a start without always, would keep it). At open, under the
  // directory's lock (dir_lock.h), before RocksDB starts.
  void RemoveLeftovers();

  // While on, new WAL files are ordinary ones and the waiting zeroed file stays for a later
  // one: for a flush that is not a WAL's end (FLUSHALL's), which would otherwise make every
  // such flush cost the writing of a whole zeroed file.
  void SetPassedOver(bool passed_over);

  // While on (the database is open for writing), a zeroed WAL that closes keeps its zeros, and
  // a WAL that RocksDB deletes becomes the next zeroed file. Off (the database closing), a
  // zeroed WAL that closes is cut to what was written, so that the next start reads no zeros
  // in the WAL that was live (a closed one still waiting for its flush keeps them: the reader
  // stops at the first), and deleted files are deleted.
  void SetRecycling(bool recycling);

  // A new WAL file directly in `dir` takes the waiting zeroed file. The next one is the WAL it
  // follows, recycled when RocksDB deletes it, when that started zeroed too and is deleted
  // within the recycle wait; else it is a new file, prepared at once (also when none was
  // ready: a preparation may have failed on a full disk).
  // Anything else, or a WAL with no zeroed file to take, is created by the base file system.
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  // A WAL file of `dir` (or its trash, named by RocksDB's delete scheduler) is recycled into
  // the next zeroed file while recycling, no zeroed file waits, none is being prepared and no
  // other name links to it (a checkpoint's).
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  // Follows a closed zeroed WAL's rename (to trash, by RocksDB's delete scheduler).
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  // What was written, for a WAL file that started zeroed and is still open.
  rocksdb::IOStatus GetFileSize(const std::string& fname, const rocksdb::IOOptions& options,
                                uint64_t* size, rocksdb::IODebugContext* dbg) override;

  // WAL files that started as a zeroed file (INFO persistence).
  uint64_t files_used() const { return files_used_.load(std::memory_order_relaxed); }
  // Whether a zeroed file waits for the next WAL.
  bool ready() const;
  // Whether a background preparation is still under way, its done included (tests: a request
  // made before it returns is put off, and becomes a new file).
  bool preparing_in_background() const { return worker_.Busy(); }

  static constexpr uint64_t kFreeSpaceFactor = 8;
  // RocksDB deletes a WAL once every family has flushed past it: a few tenths of a second
  // after the switch here, unless a family's memtable keeps it alive until a later switch.
  static constexpr std::chrono::milliseconds kRecycleWait{2000};
  // How fast a zeroed file is written in the background (at open it is written at the disk's
  // pace): a whole one (136 MB) in about 2 s, where a WAL at the fastest commits seen here
  // (17 MB/s, pipeline 16) fills in 7.5 s.
  static constexpr uint64_t kBackgroundBytesPerSecond = uint64_t{64} << 20;
  // The waiting zeroed file, in `dir` (RocksDB leaves names it does not know alone).
  static constexpr const char* kFileName = "sluice-zeroed-wal";

 private:
  class WrittenSizeFile;
  // Where a zeroed file's blocks come from: new ones, a deleted WAL's at tmp_path_, or (in the
  // background only) the next WAL deleted within recycle_wait_, else new ones.
  enum class Source { kNew, kRecycled, kNextDeletedWal };

  // What may not be zeros in a closed WAL file: all of it.
  static constexpr uint64_t kUnknown = UINT64_MAX;

  // A WAL file that started zeroed closed; `written`: the bytes before which alone a byte may
  // not be zero, or kUnknown.
  void Closed(const std::string& name, uint64_t written);
  bool recycling() const;
  bool IsWalFileOfDir(const std::string& fname) const;
  bool IsWalOrItsTrash(const std::string& fname) const;
  // A WAL file (or its trash) that nothing else links to.
  bool Recyclable(const std::string& fname) const;
  // Whether a preparation from `source` may start now; if so, it is marked under way.
  bool ClaimPreparation(Source source);
  // Writes kFileName from `source` (zeros wherever it may hold anything else, synced, renamed
  // into place, directory synced), no faster than `bytes_per_second` unless 0. Claimed first.
  // `recycled_written`: what was written to a recycled WAL, as Closed was told.
  Status Prepare(Source source, uint64_t bytes_per_second, uint64_t recycled_written);
  Status WriteZeroedFile(Source source, uint64_t bytes_per_second, uint64_t recycled_written);
  void PrepareInBackground(Source source, uint64_t recycled_written);
  // The done of every background preparation: starts the one asked for meanwhile, if any.
  void AfterBackgroundPreparation();
  bool TurnedOffSinceClaimed() const;  // under mu_
  bool Worthwhile() const;

  const std::string dir_;
  const std::string path_;
  const std::string tmp_path_;
  const uint64_t file_bytes_;
  const std::chrono::milliseconds recycle_wait_;
  std::atomic<uint64_t> files_used_{0};

  mutable std::mutex mu_;
  bool enabled_ = false;
  bool ready_ = false;  // path_ holds a complete zeroed file made by this process
  bool passed_over_ = false;
  bool recycling_ = false;
  // A preparation was claimed and has not ended.
  bool preparing_ = false;
  // Counts SetEnabled(false): a preparation claimed before the last one makes no ready file.
  uint64_t times_turned_off_ = 0;
  uint64_t claimed_while_on_ = 0;  // times_turned_off_ when the preparation was claimed
  // Turned on while a preparation was under way: another follows it.
  bool prepare_again_ = false;
  // A preparation waits for the next deleted WAL (Source::kNextDeletedWal).
  bool awaiting_deleted_wal_ = false;
  uint64_t deleted_wal_written_ = 0;  // what was written to the WAL it got, as Closed was told
  // Ends a background preparation's pause, or its wait for a deleted WAL.
  std::condition_variable wake_;
  // The open WAL files that started zeroed, by name in dir_: the bytes written to each.
  std::map<std::string, const std::atomic<uint64_t>*> written_;
  // Those closed and not yet deleted, followed through renames (to trash): as Closed was told.
  std::map<std::string, uint64_t> closed_;

  BackgroundWorker worker_;  // last: destroyed first, waiting for a Prepare under way
};

}  // namespace sluice::storage
