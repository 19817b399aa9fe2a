#pragma once

// Frees large blocks on a thread of their own. Giving a block back to the kernel costs in
// proportion to the pages it had touched: about 7.5 ms for 64 MB on this project's VMs, with
// glibc's allocator or jemalloc alike (munmap, or an immediate purge). A hash table that grew
// or shrank to another, or a memtable's index, freed on the event loop paused every client
// that long; freed here, the loop only queues the pointer. The same thread frees a cache's
// millions of entries.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace sluice {

// Blocks of at least this many bytes are worth a hand-off (a 1 MB free costs about 0.1 ms).
inline constexpr size_t kBackgroundFreeBytes = size_t{1} << 20;

// std::free(block) soon, on the background thread (started at the first call). Thread-safe.
void FreeInBackground(void* block);
// Runs `task` soon on the same thread: frees of many small blocks (a cache's entries). It
// must touch nothing the caller still uses. Thread-safe.
void RunInBackground(std::function<void()> task);

// Gives the pages lying wholly inside `block` (from malloc) back to the kernel, their bytes
// read as zeros after it; returns how many bytes that was. The background thread does this
// before each free, and the free then finds nothing to give back. Filling a record cache of
// 2,000,000 entries, the slowest store (as a 16 or 32 MB table went back) took 3.7 to 5.9 ms
// without it and 0.8 to 2.1 ms with it under glibc's malloc (munmap holds the process's
// memory map to write, which the loop thread's heap growth waits for; madvise only reads
// it), and 1.7 to 4.7 ms against 1.5 to 2.2 ms under jemalloc, sluiced's allocator.
size_t DropPages(void* block);

// For tests: tasks (a block's free is one) ever queued, and those not yet done.
uint64_t BackgroundFreesQueued();
size_t BackgroundFreesPending();

}  // namespace sluice
