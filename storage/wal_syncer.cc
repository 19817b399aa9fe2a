#include "storage/wal_syncer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

namespace sluice::storage {

namespace {

// RocksDB names its WAL files <number>.log (the info log is LOG).
bool IsWalFile(const std::filesystem::path& path) { return path.extension() == ".log"; }

std::string ErrnoText(int error) { return std::system_category().message(error); }

}  // namespace

WalSyncer::WalSyncer(std::string dir) : dir_(std::move(dir)), thread_([this] { Run(); }) {}

WalSyncer::~WalSyncer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool WalSyncer::Start(Done done) {
  {
    std::lock_guard lock(mu_);
    if (pending_ || stopping_) return false;
    pending_ = std::move(done);
  }
  wake_.notify_one();
  return true;
}

void WalSyncer::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || pending_; });
    if (!pending_) return;  // stopping, nothing asked for
    Done& done = pending_;  // only this thread changes pending_ while it is set
    lock.unlock();
    done(SyncWalFiles());
    lock.lock();
    pending_ = nullptr;
  }
}

Status WalSyncer::SyncWalFiles() const {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec);
  if (ec) return IoError("WAL sync: listing " + dir_ + ": " + ec.message());
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    if (!IsWalFile(path)) continue;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // deleted since the listing: obsolete
      return IoError("WAL sync: open " + path.string() + ": " + ErrnoText(errno));
    }
    const int synced = ::fdatasync(fd);
    const int error = errno;
    ::close(fd);
    if (synced != 0) {
      return IoError("WAL sync: fdatasync " + path.string() + ": " + ErrnoText(error));
    }
  }
  if (ec) return IoError("WAL sync: listing " + dir_ + ": " + ec.message());
  return Status::Ok();
}

}  // namespace sluice::storage
