#pragma once

// Writes a file of zeros at the disk's own pace: each megabyte is on its way to the disk, and
// done, before the next is written. Meant for files prepared ahead of need beside a WAL whose
// every commit waits for an fdatasync (storage/zeroed_wal.h): that fdatasync then queues behind
// at most one megabyte of zeros. Left in the page cache to a final fdatasync, a whole file
// (136 MB with the default buffers) went to the disk at once and held every commit for a
// quarter of a second. The caller still syncs the file: this only sets the pace.
//
// A rate slows it further. At the disk's pace alone the zeros still took most of its time
// while they lasted (every commit's sync 20 to 30 ms for half a second after a WAL switch);
// at 64 MB/s (storage/zeroed_wal.h) they leave most of it to the commits.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"

namespace sluice::storage {

inline constexpr uint64_t kZeroFillChunk = uint64_t{1} << 20;

// Called between chunks with the pause the rate asks for (zero without a rate); false stops
// the writing. Without one, the pause is a sleep.
using ZeroFillPause = std::function<bool(std::chrono::microseconds)>;

// Zeros over bytes [begin, end) of the open file `fd`, whatever they held; `path` names it in
// an error. No faster than `bytes_per_second` unless that is 0.
Status WriteZerosPaced(int fd, uint64_t begin, uint64_t end, const std::string& path,
                       uint64_t bytes_per_second = 0, const ZeroFillPause& pause = {});

}  // namespace sluice::storage
