#pragma once

// What the heap allocator says about itself, for INFO's memory section and MEMORY STATS,
// MALLOC-STATS and PURGE: jemalloc's counters when sluiced is built with it (the default, as
// Redis is), AddressSanitizer's in the sanitizer builds, glibc's mallinfo2 otherwise.

#include <cstdint>
#include <string>

namespace sluice::server {

struct AllocatorStats {
  std::string name;        // INFO's mem_allocator: "jemalloc-5.3.0", "asan" or "libc"
  uint64_t allocated = 0;  // bytes in live allocations (INFO's used_memory)
  // jemalloc's stats.active (pages with live allocations) and stats.resident (pages it holds
  // in memory); 0 from an allocator that does not say (MEMORY STATS then does as Redis does).
  uint64_t active = 0;
  uint64_t resident = 0;
};

AllocatorStats ReadAllocatorStats();

// The process's resident set size in bytes (INFO's used_memory_rss), from /proc/self/statm.
uint64_t ResidentSetBytes();

// MEMORY MALLOC-STATS: jemalloc's malloc_stats_print text, glibc's malloc_info XML, or Redis's
// text for an allocator without statistics (AddressSanitizer's).
std::string AllocatorReport();

// MEMORY PURGE: gives the pages the allocator holds unused back to the system (jemalloc: every
// arena's purge; glibc: malloc_trim). False if jemalloc refused.
bool PurgeAllocator();

// jemalloc-bg-thread: starts or stops jemalloc's background purge thread, which gives freed
// pages back to the system over time even while nothing allocates. False where jemalloc
// refused; a no-op (true) for the other allocators.
bool SetAllocatorBackgroundThread(bool enabled);

}  // namespace sluice::server
