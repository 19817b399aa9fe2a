#include "server/metrics/allocator_stats.h"

#include <string>

// Which allocator serves malloc: jemalloc when linked, AddressSanitizer's in sanitizer builds
// (glibc's counters then stay at zero), else glibc's.
#if defined(SLUICE_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>
#elif defined(__SANITIZE_ADDRESS__)
#define SLUICE_ASAN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLUICE_ASAN_ALLOCATOR 1
#endif
#endif

#if defined(SLUICE_ASAN_ALLOCATOR)
// The sanitizer runtime's allocator interface (sanitizer/allocator_interface.h, which GCC 12
// does not install).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#elif !defined(SLUICE_WITH_JEMALLOC)
#include <malloc.h>
#endif

namespace sluice::server {

AllocatorStats ReadAllocatorStats() {
  AllocatorStats stats;
#if defined(SLUICE_WITH_JEMALLOC)
  stats.name = "jemalloc-" + std::to_string(JEMALLOC_VERSION_MAJOR) + "." +
               std::to_string(JEMALLOC_VERSION_MINOR) + "." +
               std::to_string(JEMALLOC_VERSION_BUGFIX);
  // jemalloc's statistics are a snapshot taken when the epoch advances.
  uint64_t epoch = 1;
  size_t epoch_size = sizeof(epoch);
  mallctl("epoch", &epoch, &epoch_size, &epoch, epoch_size);
  size_t allocated = 0;
  size_t allocated_size = sizeof(allocated);
  if (mallctl("stats.allocated", &allocated, &allocated_size, nullptr, 0) == 0) {
    stats.allocated = allocated;
  }
#elif defined(SLUICE_ASAN_ALLOCATOR)
  stats.name = "asan";
  stats.allocated = __sanitizer_get_current_allocated_bytes();
#else
  stats.name = "libc";
  struct mallinfo2 heap = mallinfo2();
  stats.allocated = heap.uordblks + heap.hblkhd;
#endif
  return stats;
}

}  // namespace sluice::server
