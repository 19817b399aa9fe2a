#include "storage/zero_fill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace sluice::storage {

Status WriteZerosPaced(int fd, uint64_t bytes, const std::string& path) {
  const std::vector<char> zeros(kZeroFillChunk, 0);
  for (uint64_t offset = 0; offset < bytes;) {
    const size_t n = static_cast<size_t>(std::min(kZeroFillChunk, bytes - offset));
    const ssize_t written = ::pwrite(fd, zeros.data(), n, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return IoError("can't write '" + path + "': " + std::strerror(errno));
    // A file system without sync_file_range (or one that refuses it) is only not paced.
    (void)::sync_file_range(
        fd, static_cast<off_t>(offset), written,
        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    offset += static_cast<uint64_t>(written);
  }
  return Status::Ok();
}

}  // namespace sluice::storage
