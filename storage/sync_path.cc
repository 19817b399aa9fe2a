#include "storage/sync_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace sluice::storage {

Status SyncPath(const std::string& path, bool missing_ok) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && missing_ok) return Status::Ok();
    return IoError("open " + path + ": " + std::system_category().message(errno));
  }
  const int synced = ::fdatasync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0)
    return IoError("fdatasync " + path + ": " + std::system_category().message(error));
  return Status::Ok();
}

}  // namespace sluice::storage
