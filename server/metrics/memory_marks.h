#pragma once

// The allocator's count at two moments Redis reports in MEMORY STATS and INFO: once the server
// has started (startup.allocated) and at its highest (peak.allocated), sampled by the cron every
// 100 ms and whenever MEMORY STATS, DOCTOR or INFO memory reads the count, as Redis samples
// its peak.

#include <algorithm>
#include <cstdint>

namespace sluice::server {

struct MemoryMarks {
  uint64_t startup = 0;
  uint64_t peak = 0;

  void Sample(uint64_t allocated) { peak = std::max(peak, allocated); }
};

}  // namespace sluice::server
