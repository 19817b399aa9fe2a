#pragma once

// What the heap allocator says about itself, for INFO's memory section: jemalloc's counters
// when sluiced is built with it (the default, as Redis is), AddressSanitizer's in the sanitizer
// builds, glibc's mallinfo2 otherwise.

#include <cstdint>
#include <string>

namespace sluice::server {

struct AllocatorStats {
  std::string name;        // INFO's mem_allocator: "jemalloc-5.3.0", "asan" or "libc"
  uint64_t allocated = 0;  // bytes in live allocations (INFO's used_memory)
};

AllocatorStats ReadAllocatorStats();

}  // namespace sluice::server
