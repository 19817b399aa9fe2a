// Reading and atomically replacing the config file and the ACL file (server/config_file_io.h).

#include "server/config_file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sluice::server::config_internal {
namespace {

// The failed call's errno as Redis reports it (strerror), read before anything else runs.
Status SystemError() { return Err(std::strerror(errno)); }

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A new file beside `path`, never an existing one (O_EXCL), created 0644 so the kernel applies
// the umask as Redis's fchmod does; -1 with errno set on failure.
int CreateFileBeside(const std::string& path, std::string* created) {
  static unsigned counter = 0;  // the loop thread's only: tells this process's attempts apart
  for (int attempt = 0; attempt < 100; ++attempt) {
    *created = path + ".rewrite-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const int fd = ::open(created->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

Status WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? SystemError() : Err(std::strerror(EIO));
    content.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// The content, the old file's permissions if there was one, and a sync, in that order.
Status FillNewFile(int fd, std::string_view content, const struct stat* old) {
  SLUICE_RETURN_IF_ERROR(WriteAll(fd, content));
  if (old != nullptr && ::fchmod(fd, old->st_mode & 07777) != 0) return SystemError();
  if (::fsync(fd) != 0) return SystemError();
  return Status::Ok();
}

// The rename is durable only once the directory's entry is on disk.
Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return SystemError();
  Status synced = ::fsync(fd) == 0 ? Status::Ok() : SystemError();
  ::close(fd);
  return synced;
}

StatusOr<std::string> ReadAndClose(int fd) {
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status failed = SystemError();
      ::close(fd);
      return failed;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

StatusOr<std::string> ReadFileIfAny(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::string();
  if (fd < 0) return SystemError();
  return ReadAndClose(fd);
}

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SystemError();
  return ReadAndClose(fd);
}

Status ReplaceFileAtomically(const std::string& path, std::string_view content) {
  struct stat old {};
  const bool had_file = ::stat(path.c_str(), &old) == 0;
  std::string temp;
  const int fd = CreateFileBeside(path, &temp);
  if (fd < 0) return SystemError();
  Status done = FillNewFile(fd, content, had_file ? &old : nullptr);
  if (::close(fd) != 0 && done.ok()) done = SystemError();
  if (done.ok() && ::rename(temp.c_str(), path.c_str()) != 0) done = SystemError();
  if (!done.ok()) {
    ::unlink(temp.c_str());
    return done;
  }
  return SyncDirectory(DirectoryOf(path));
}

}  // namespace sluice::server::config_internal
