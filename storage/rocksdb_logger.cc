#include "storage/rocksdb_logger.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace sluice::storage {
namespace {

class TolerantFileLogger final : public rocksdb::Logger {
 public:
  TolerantFileLogger(std::string dir, uint64_t max_bytes)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL),
        path_(dir + "/LOG"),
        old_path_(dir + "/LOG.old"),
        max_bytes_(max_bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    Rotate();
  }

  ~TolerantFileLogger() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void LogHeader(const char* format, va_list ap) override {
    Logv(rocksdb::InfoLogLevel::HEADER_LEVEL, format, ap);
  }
  void Logv(const char* format, va_list ap) override {
    Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap);
  }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel()) return;
    try {  // nothing may throw into RocksDB
      Write(level, format, ap);
    } catch (...) {
    }
  }
  size_t GetLogFileSize() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<size_t>(size_);
  }

 protected:
  rocksdb::Status CloseImpl() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return rocksdb::Status::OK();
  }

 private:
  // The previous file becomes LOG.old; a new LOG starts empty. Errors leave fd_ at -1.
  void Rotate() {
    if (fd_ >= 0) ::close(fd_);
    ::rename(path_.c_str(), old_path_.c_str());  // ENOENT on first start: fine
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_TRUNC, 0644);
    size_ = 0;
  }

  void Write(rocksdb::InfoLogLevel level, const char* format, va_list ap) {
    static constexpr const char* kLevel[] = {"DEBUG", "INFO", "WARN", "ERROR", "FATAL", ""};
    char prefix[96];
    timeval now{};
    gettimeofday(&now, nullptr);
    tm parts{};
    localtime_r(&now.tv_sec, &parts);
    const auto level_index = static_cast<size_t>(level);
    const char* level_name = level_index < 6 ? kLevel[level_index] : "";
    int prefix_len =
        std::snprintf(prefix, sizeof(prefix), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %s%s%s",
                      parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
                      parts.tm_min, parts.tm_sec, static_cast<long>(now.tv_usec),
                      level_name[0] ? "[" : "", level_name, level_name[0] ? "] " : "");
    if (prefix_len < 0) return;

    va_list copy;
    va_copy(copy, ap);
    int body_len = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (body_len < 0) return;
    std::string line(prefix, static_cast<size_t>(prefix_len));
    line.resize(static_cast<size_t>(prefix_len) + static_cast<size_t>(body_len) + 1);
    std::vsnprintf(line.data() + prefix_len, static_cast<size_t>(body_len) + 1, format, ap);
    line.back() = '\n';

    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ < 0 || size_ > max_bytes_) Rotate();
    if (fd_ < 0) return;
    // One write: a full disk (ENOSPC), a read-only file system or an I/O error drops this line
    // and nothing else; the next line tries again.
    ssize_t n = ::write(fd_, line.data(), line.size());
    if (n > 0) size_ += static_cast<uint64_t>(n);
  }

  const std::string path_;
  const std::string old_path_;
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewTolerantFileLogger(const std::string& dir, uint64_t max_bytes) {
  return std::make_shared<TolerantFileLogger>(dir, max_bytes);
}

}  // namespace sluice::storage
