#pragma once

// The data directory's lock, taken before sluice touches any file there.
//
// RocksDB locks the directory's LOCK file, but only inside DB::Open, and sluice does work in
// the directory before that: it starts the RocksDB LOG anew (the last one becomes LOG.old)
// and, under appendfsync always, deletes and writes the zeroed WAL file (zeroed_wal.h). A
// second sluiced started on the directory of a running one would do all of that to the
// running one's files before RocksDB turned it away: the running server's next WAL could be a
// file the second was still writing zeros into.

#include <string>
#include <utility>

#include "common/status.h"

namespace sluice::storage {

class DirLock {
 public:
  // An exclusive flock(2) on the directory itself (no file of its own), held until the
  // DirLock is destroyed. Fails with "dir '<dir>' is locked by another sluiced process" while
  // another DirLock holds it, in this process or another; holds nothing where the file system
  // cannot lock a directory.
  static StatusOr<DirLock> Acquire(const std::string& dir);

  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  // False where the file system could not lock the directory.
  bool held() const { return fd_ >= 0; }
  // Why it could not (the lock call's error), empty while held.
  const std::string& problem() const { return problem_; }

 private:
  explicit DirLock(int fd, std::string problem = "") : fd_(fd), problem_(std::move(problem)) {}

  int fd_ = -1;
  std::string problem_;
};

// The message of a data directory held by another sluiced (DirLock's, and RocksDB's own lock's).
std::string LockedDirMessage(const std::string& dir);

}  // namespace sluice::storage
