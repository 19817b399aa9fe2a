#pragma once

// Frees large blocks on a thread of their own. Giving a block back to the kernel costs in
// proportion to the pages it had touched: about 7.5 ms for 64 MB on this project's VMs, with
// glibc's allocator or jemalloc alike (munmap, or an immediate purge). A hash table that grew
// or shrank to another, or a memtable's index, freed on the event loop paused every client
// that long; freed here, the loop only queues the pointer.

#include <cstddef>
#include <cstdint>

namespace sluice {

// Blocks of at least this many bytes are worth a hand-off (a 1 MB free costs about 0.1 ms).
inline constexpr size_t kBackgroundFreeBytes = size_t{1} << 20;

// std::free(block) soon, on the background thread (started at the first call). Thread-safe.
void FreeInBackground(void* block);

// For tests: blocks ever handed off, and those not yet freed.
uint64_t BackgroundFreesQueued();
size_t BackgroundFreesPending();

}  // namespace sluice
