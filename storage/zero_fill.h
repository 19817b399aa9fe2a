#pragma once

// Writes a file of zeros at the disk's own pace: each megabyte is on its way to the disk, and
// done, before the next is written. Meant for files prepared ahead of need beside a WAL whose
// every commit waits for an fdatasync (storage/zeroed_wal.h): that fdatasync then queues behind
// at most one megabyte of zeros. Left in the page cache to a final fdatasync, a whole file
// (136 MB with the default buffers) went to the disk at once and held every commit for a
// quarter of a second. The caller still syncs the file: this only sets the pace.

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sluice::storage {

inline constexpr uint64_t kZeroFillChunk = uint64_t{1} << 20;

// `bytes` zeros from the start of the open file `fd`; `path` names it in an error.
Status WriteZerosPaced(int fd, uint64_t bytes, const std::string& path);

}  // namespace sluice::storage
