#include "storage/zeroed_wal.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "storage/sync_path.h"
#include "storage/zero_fill.h"

namespace sluice::storage {
namespace {

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string_view WithoutTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// A WAL file that started zeroed: counts what is written to it, and is forgotten when closed.
class ZeroedWalFileSystem::WrittenSizeFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  WrittenSizeFile(std::unique_ptr<rocksdb::FSWritableFile> file, ZeroedWalFileSystem* fs,
                  std::string name)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs), name_(std::move(name)) {}
  // Unregistered under the file system's lock before written_ goes.
  ~WrittenSizeFile() override { fs_->Closed(name_, tail_zeroed_ ? written_.load() : kUnknown); }

  const std::atomic<uint64_t>& written() const { return written_; }

  // Every block is written already: nothing to preallocate, and so nothing for the base
  // file's close to trim (PosixWritableFile cuts a file it preallocated to what was written).
  void SetPreallocationBlockSize(size_t /*size*/) override {}

  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    // Kept whole to be recycled; else cut, so that a restart replays no zeros.
    if (!fs_->recycling()) {
      rocksdb::IOStatus s = target()->Truncate(written_.load(), options, dbg);
      if (!s.ok()) return s;
    }
    return target()->Close(options, dbg);
  }

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    return Counted(target()->Append(data, options, dbg), data.size());
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    return Counted(target()->Append(data, options, info, dbg), data.size());
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->Truncate(size, options, dbg);
    if (s.ok()) written_.store(size, std::memory_order_release);
    return s;
  }

 private:
  // Counted once the bytes are in the file, so a copy up to the count reads them all.
  rocksdb::IOStatus Counted(rocksdb::IOStatus s, size_t bytes) {
    if (s.ok()) {
      written_.fetch_add(bytes, std::memory_order_release);
    } else {
      tail_zeroed_ = false;  // part of it may have been written
    }
    return s;
  }

  ZeroedWalFileSystem* fs_;
  std::string name_;
  std::atomic<uint64_t> written_{0};
  bool tail_zeroed_ = true;  // nothing but zeros after written_ (RocksDB's one writer thread)
};

ZeroedWalFileSystem::ZeroedWalFileSystem(std::shared_ptr<rocksdb::FileSystem> base, std::string dir,
                                         uint64_t file_bytes,
                                         std::chrono::milliseconds recycle_wait)
    : FileSystemWrapper(base),
      dir_(WithoutTrailingSlashes(dir)),
      path_(dir_ + "/" + kFileName),
      tmp_path_(path_ + ".tmp"),
      file_bytes_(file_bytes),
      recycle_wait_(recycle_wait) {}

ZeroedWalFileSystem::~ZeroedWalFileSystem() {
  // The next start makes its own: leave no unused zeroed file behind (a Prepare under way
  // sees enabled_ off and deletes what it made).
  SetEnabled(false, /*prepare_now=*/false);
}

bool ZeroedWalFileSystem::ready() const {
  std::lock_guard lock(mu_);
  return ready_;
}

void ZeroedWalFileSystem::SetEnabled(bool enabled, bool prepare_now) {
  {
    std::lock_guard lock(mu_);
    if (enabled == enabled_) return;
    enabled_ = enabled;
    if (!enabled) {
      // A Prepare under way stops, or sees that it was turned off, and deletes its file.
      ++times_turned_off_;
      ready_ = false;
      ::unlink(path_.c_str());
      wake_.notify_all();
      return;
    }
    // On again before the preparation under way has seen that it was turned off.
    if (preparing_) prepare_again_ = true;
  }
  if (!prepare_now) {
    PrepareInBackground(Source::kNew, 0);
  } else if (ClaimPreparation(Source::kNew)) {
    (void)Prepare(Source::kNew, 0, 0);  // without one, the first WAL is simply an ordinary file
  }
}

void ZeroedWalFileSystem::RemoveLeftovers() {
  std::lock_guard lock(mu_);
  ::unlink(tmp_path_.c_str());
  ::unlink(path_.c_str());
}

bool ZeroedWalFileSystem::TurnedOffSinceClaimed() const {
  return times_turned_off_ != claimed_while_on_;
}

void ZeroedWalFileSystem::AfterBackgroundPreparation() {
  bool again = false;
  {
    std::lock_guard lock(mu_);
    again = std::exchange(prepare_again_, false);
  }
  if (again) PrepareInBackground(Source::kNew, 0);
}

void ZeroedWalFileSystem::SetRecycling(bool recycling) {
  std::lock_guard lock(mu_);
  recycling_ = recycling;
}

bool ZeroedWalFileSystem::recycling() const {
  std::lock_guard lock(mu_);
  return recycling_;
}

bool ZeroedWalFileSystem::ClaimPreparation(Source source) {
  {
    std::lock_guard lock(mu_);
    if (!enabled_ || ready_ || preparing_) return false;
    if (source == Source::kRecycled && !recycling_) return false;
    preparing_ = true;
    claimed_while_on_ = times_turned_off_;
  }
  if (Worthwhile()) return true;
  std::lock_guard lock(mu_);
  preparing_ = false;
  return false;
}

void ZeroedWalFileSystem::PrepareInBackground(Source source, uint64_t recycled_written) {
  if (source != Source::kRecycled && !ClaimPreparation(source)) return;
  // Held across Start: a preparation whose work has ended but whose done has not yet run
  // (the worker still busy) must see prepare_again_ below when its done runs.
  std::lock_guard lock(mu_);
  if (source == Source::kNextDeletedWal) awaiting_deleted_wal_ = true;
  const bool started = worker_.Start(
      [this, source, recycled_written] {
        if (source != Source::kNextDeletedWal) {
          return Prepare(source, kBackgroundBytesPerSecond, recycled_written);
        }
        Source from = Source::kRecycled;
        uint64_t written = 0;
        {
          std::unique_lock lock(mu_);
          wake_.wait_for(lock, recycle_wait_,
                         [this] { return !awaiting_deleted_wal_ || TurnedOffSinceClaimed(); });
          if (awaiting_deleted_wal_) from = Source::kNew;  // none came in time
          awaiting_deleted_wal_ = false;
          written = deleted_wal_written_;
        }
        return Prepare(from, kBackgroundBytesPerSecond, written);
      },
      [this](Status) { AfterBackgroundPreparation(); });
  if (started) return;
  // The worker is still returning from the last preparation, which ended: as if not claimed,
  // and that one's done (AfterBackgroundPreparation) starts a new one.
  preparing_ = false;
  awaiting_deleted_wal_ = false;
  prepare_again_ = true;
  if (source == Source::kRecycled) ::unlink(tmp_path_.c_str());
}

bool ZeroedWalFileSystem::Worthwhile() const {
  struct statfs fs;
  if (::statfs(dir_.c_str(), &fs) != 0) return false;
  // tmpfs syncs nothing, so there is nothing to gain, and the zeros would take memory.
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) return false;
  const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_bsize;
  return free_bytes / kFreeSpaceFactor >= file_bytes_;
}

Status ZeroedWalFileSystem::Prepare(Source source, uint64_t bytes_per_second,
                                    uint64_t recycled_written) {
  const Status status = WriteZeroedFile(source, bytes_per_second, recycled_written);
  std::lock_guard lock(mu_);
  preparing_ = false;
  // Turned off meanwhile, even if on again: the file may have been deleted since.
  if (!status.ok() || TurnedOffSinceClaimed()) {
    ::unlink(tmp_path_.c_str());
    ::unlink(path_.c_str());
    return status;
  }
  ready_ = true;
  return status;
}

Status ZeroedWalFileSystem::WriteZeroedFile(Source source, uint64_t bytes_per_second,
                                            uint64_t recycled_written) {
  // Never trust a file of an earlier run or attempt: write it anew. A recycled WAL waits at
  // tmp_path_: only what was written to it needs zeros again (all of it when that is unknown),
  // then what it lacks of the full size.
  ::unlink(path_.c_str());
  int flags = O_WRONLY | O_CLOEXEC;
  if (source == Source::kNew) {
    ::unlink(tmp_path_.c_str());
    flags |= O_CREAT | O_TRUNC;
  }
  Fd fd(::open(tmp_path_.c_str(), flags, 0644));
  if (fd.get() < 0) return IoErrno("can't open", tmp_path_);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return IoErrno("can't stat", tmp_path_);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  // A WAL that grew past the zeroed file's size gives back what it grew by.
  if (size > file_bytes_) {
    if (::ftruncate(fd.get(), static_cast<off_t>(file_bytes_)) != 0) {
      return IoErrno("can't cut", tmp_path_);
    }
    size = file_bytes_;
  }
  const uint64_t written = std::min(source == Source::kNew ? 0 : recycled_written, size);
  const ZeroFillPause pause = [this](std::chrono::microseconds owed) {
    std::unique_lock lock(mu_);
    return !wake_.wait_for(lock, owed, [this] { return TurnedOffSinceClaimed(); });
  };
  Status status = WriteZerosPaced(fd.get(), 0, written, tmp_path_, bytes_per_second, pause);
  if (status.ok()) {
    status = WriteZerosPaced(fd.get(), size, file_bytes_, tmp_path_, bytes_per_second, pause);
  }
  if (status.ok() && ::fdatasync(fd.get()) != 0) status = IoErrno("can't sync", tmp_path_);
  if (status.ok() && ::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    status = IoErrno("can't rename", tmp_path_);
  }
  if (status.ok()) status = SyncPath(dir_, /*missing_ok=*/false);
  return status;
}

bool ZeroedWalFileSystem::IsWalFileOfDir(const std::string& fname) const {
  // RocksDB names a WAL file "<wal dir>/<number>.log", the wal dir being the data directory.
  constexpr std::string_view kSuffix = ".log";
  const size_t slash = fname.rfind('/');
  if (slash == std::string::npos) return false;
  const std::string_view name = std::string_view(fname).substr(slash + 1);
  if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) return false;
  return IsDigits(name.substr(0, name.size() - kSuffix.size())) &&
         WithoutTrailingSlashes(std::string_view(fname).substr(0, slash)) == dir_;
}

bool ZeroedWalFileSystem::IsWalOrItsTrash(const std::string& fname) const {
  // RocksDB's delete scheduler renames a file to "<name>.trash" before deleting it, or to
  // "<name><n>.trash" while that name is taken.
  constexpr std::string_view kTrash = ".trash";
  if (!fname.ends_with(kTrash)) return IsWalFileOfDir(fname);
  std::string_view name = std::string_view(fname).substr(0, fname.size() - kTrash.size());
  while (!name.ends_with(".log") && !name.empty() && name.back() >= '0' && name.back() <= '9') {
    name.remove_suffix(1);
  }
  return IsWalFileOfDir(std::string(name));
}

bool ZeroedWalFileSystem::Recyclable(const std::string& fname) const {
  if (!IsWalOrItsTrash(fname)) return false;
  // A checkpoint hard-links every live WAL but the last: such a file's records are the
  // checkpoint's too, so only this name of it goes.
  struct stat st;
  return ::stat(fname.c_str(), &st) == 0 && st.st_nlink == 1;
}

void ZeroedWalFileSystem::SetPassedOver(bool passed_over) {
  std::lock_guard lock(mu_);
  passed_over_ = passed_over;
}

rocksdb::IOStatus ZeroedWalFileSystem::NewWritableFile(
    const std::string& fname, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  if (!IsWalFileOfDir(fname)) return target()->NewWritableFile(fname, options, result, dbg);
  bool take = false;
  bool enabled = false;
  bool follows_zeroed = false;  // the current WAL started zeroed: it becomes the next one
  {
    std::lock_guard lock(mu_);
    if (passed_over_) return target()->NewWritableFile(fname, options, result, dbg);
    take = ready_;
    ready_ = false;
    enabled = enabled_;
    follows_zeroed = !written_.empty() && recycling_;
  }
  rocksdb::IOStatus reused;
  if (take) reused = target()->ReuseWritableFile(fname, path_, options, result, dbg);
  // The next WAL's, also after a preparation that failed (a full disk): started only now,
  // since a preparation first deletes what is left at path_. After a zeroed WAL, it is that
  // one, once deleted (if in time).
  if (enabled) {
    PrepareInBackground(take && follows_zeroed ? Source::kNextDeletedWal : Source::kNew, 0);
  }
  if (!take || !reused.ok()) {
    // None ready, or it could not be renamed into place: an ordinary file will do.
    return target()->NewWritableFile(fname, options, result, dbg);
  }
  files_used_.fetch_add(1, std::memory_order_relaxed);
  auto file = std::make_unique<WrittenSizeFile>(std::move(*result), this, Basename(fname));
  {
    std::lock_guard lock(mu_);
    written_[Basename(fname)] = &file->written();
  }
  *result = std::move(file);
  return reused;
}

rocksdb::IOStatus ZeroedWalFileSystem::DeleteFile(const std::string& fname,
                                                  const rocksdb::IOOptions& options,
                                                  rocksdb::IODebugContext* dbg) {
  if (!Recyclable(fname)) return target()->DeleteFile(fname, options, dbg);
  uint64_t written = kUnknown;
  {
    std::lock_guard lock(mu_);
    if (auto it = closed_.find(Basename(fname)); it != closed_.end()) {
      written = it->second;
      closed_.erase(it);
    }
    // Renamed under the lock, so that the waiting preparation cannot give up meanwhile.
    if (awaiting_deleted_wal_ && recycling_ && enabled_ &&
        ::rename(fname.c_str(), tmp_path_.c_str()) == 0) {
      awaiting_deleted_wal_ = false;
      deleted_wal_written_ = written;
      wake_.notify_all();
      return rocksdb::IOStatus::OK();
    }
  }
  if (ClaimPreparation(Source::kRecycled)) {
    if (::rename(fname.c_str(), tmp_path_.c_str()) == 0) {
      PrepareInBackground(Source::kRecycled, written);
      return rocksdb::IOStatus::OK();
    }
    std::lock_guard lock(mu_);
    preparing_ = false;
  }
  return target()->DeleteFile(fname, options, dbg);
}

rocksdb::IOStatus ZeroedWalFileSystem::GetFileSize(const std::string& fname,
                                                   const rocksdb::IOOptions& options,
                                                   uint64_t* size, rocksdb::IODebugContext* dbg) {
  if (IsWalFileOfDir(fname)) {
    std::lock_guard lock(mu_);
    if (auto it = written_.find(Basename(fname)); it != written_.end()) {
      *size = it->second->load(std::memory_order_acquire);
      return rocksdb::IOStatus::OK();
    }
  }
  return target()->GetFileSize(fname, options, size, dbg);
}

void ZeroedWalFileSystem::Closed(const std::string& name, uint64_t written) {
  std::lock_guard lock(mu_);
  written_.erase(name);
  closed_[name] = written;
}

rocksdb::IOStatus ZeroedWalFileSystem::RenameFile(const std::string& src, const std::string& target,
                                                  const rocksdb::IOOptions& options,
                                                  rocksdb::IODebugContext* dbg) {
  rocksdb::IOStatus s = FileSystemWrapper::RenameFile(src, target, options, dbg);
  if (s.ok() && IsWalFileOfDir(src)) {
    std::lock_guard lock(mu_);
    if (auto it = closed_.find(Basename(src)); it != closed_.end()) {
      closed_[Basename(target)] = it->second;
      closed_.erase(it);
    }
  }
  return s;
}

}  // namespace sluice::storage
