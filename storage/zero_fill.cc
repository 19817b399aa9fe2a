#include "storage/zero_fill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <vector>

namespace sluice::storage {
namespace {

std::chrono::microseconds PauseAfter(uint64_t written, uint64_t bytes_per_second) {
  if (bytes_per_second == 0) return std::chrono::microseconds(0);
  return std::chrono::microseconds(written * 1'000'000 / bytes_per_second);
}

}  // namespace

Status WriteZerosPaced(int fd, uint64_t begin, uint64_t end, const std::string& path,
                       uint64_t bytes_per_second, const ZeroFillPause& pause) {
  const std::vector<char> zeros(kZeroFillChunk, 0);
  for (uint64_t offset = begin; offset < end;) {
    const size_t n = static_cast<size_t>(std::min(kZeroFillChunk, end - offset));
    const ssize_t written = ::pwrite(fd, zeros.data(), n, static_cast<off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return IoErrno("can't write", path);
    // A file system without sync_file_range (or one that refuses it) is only not paced.
    (void)::sync_file_range(
        fd, static_cast<off_t>(offset), written,
        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    offset += static_cast<uint64_t>(written);
    if (offset == end) break;
    const std::chrono::microseconds owed =
        PauseAfter(static_cast<uint64_t>(written), bytes_per_second);
    if (!pause) {
      std::this_thread::sleep_for(owed);
    } else if (!pause(owed)) {
      return Err("stopped writing zeros to '" + path + "'");
    }
  }
  return Status::Ok();
}

}  // namespace sluice::storage
