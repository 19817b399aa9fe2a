#include "server/metrics/allocator_stats.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
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
namespace {

#if defined(SLUICE_WITH_JEMALLOC)
uint64_t JemallocCounter(const char* name) {
  size_t value = 0;
  size_t size = sizeof(value);
  return mallctl(name, &value, &size, nullptr, 0) == 0 ? value : 0;
}

// malloc_stats_print's call-back: each piece of text appended to the report.
void AppendStats(void* report, const char* text) {
  static_cast<std::string*>(report)->append(text);
}
#endif

}  // namespace

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
  stats.allocated = JemallocCounter("stats.allocated");
  stats.active = JemallocCounter("stats.active");
  stats.resident = JemallocCounter("stats.resident");
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

uint64_t ResidentSetBytes() {
  // stdio, not an ifstream: INFO reads it at every call, and a stream's set-up cost more than
  // the read (17% of INFO memory).
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long long pages_total = 0, pages_resident = 0;
  const int read = std::fscanf(statm, "%llu %llu", &pages_total, &pages_resident);
  std::fclose(statm);
  if (read != 2) return 0;
  return pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string AllocatorReport() {
#if defined(SLUICE_WITH_JEMALLOC)
  std::string report;
  malloc_stats_print(AppendStats, &report, nullptr);
  return report;
#elif defined(SLUICE_ASAN_ALLOCATOR)
  return "Stats not supported for the current allocator";  // Redis's text
#else
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return "Stats not supported for the current allocator";
  malloc_info(0, out);
  std::fclose(out);
  std::string report(text, size);
  std::free(text);
  return report;
#endif
}

bool PurgeAllocator() {
#if defined(SLUICE_WITH_JEMALLOC)
  // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages, as Redis's
  // jemalloc_purge.
  const std::string purge = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  return mallctl(purge.c_str(), nullptr, nullptr, nullptr, 0) == 0;
#elif defined(SLUICE_ASAN_ALLOCATOR)
  return true;                                             // the sanitizer's allocator keeps its own pages
#else
  malloc_trim(0);  // returns whether it released any: either way, done
  return true;
#endif
}

bool SetAllocatorBackgroundThread(bool enabled) {
#if defined(SLUICE_WITH_JEMALLOC)
  // One thread purges every arena: sluiced allocates mostly on its loop thread.
  size_t threads = 1;
  mallctl("max_background_threads", nullptr, nullptr, &threads, sizeof(threads));
  return mallctl("background_thread", nullptr, nullptr, &enabled, sizeof(enabled)) == 0;
#else
  (void)enabled;
  return true;
#endif
}

}  // namespace sluice::server
