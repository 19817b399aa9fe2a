#include "storage/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice::storage {

std::string LockedDirMessage(const std::string& dir) {
  return "dir '" + dir + "' is locked by another sluiced process";
}

StatusOr<DirLock> DirLock::Acquire(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return IoErrno("can't open dir", dir);
  DirLock lock(fd);
  // flock, not fcntl: an fcntl lock belongs to the process, so RocksDB's own lock on LOCK in
  // this process would not be told apart, and closing any descriptor of the file drops it.
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return IoError(LockedDirMessage(dir));
    // A file system that cannot lock a directory (some network ones): RocksDB's own lock,
    // inside its open, is then the only one, as before this lock existed.
    return DirLock(-1, std::strerror(errno));
  }
  return lock;
}

DirLock::DirLock(DirLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), problem_(std::move(other.problem_)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    problem_ = std::move(other.problem_);
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace sluice::storage
