#pragma once

// Finds where one RESP2 reply ends, without building it: the paced load generator only needs
// to match replies to requests (their order is the requests' order) and to tell errors apart.

#include <cstddef>
#include <string_view>

namespace sluice::bench {

enum class ScanStatus { kComplete, kNeedMore, kBad };

struct ScanResult {
  ScanStatus status = ScanStatus::kNeedMore;
  size_t length = 0;   // bytes of the complete reply (kComplete only)
  bool error = false;  // a top-level error reply (`-...`)
};

// Scans the reply that starts at buf[0]: simple strings, errors, integers, bulk strings,
// arrays nested to any depth, and the nil bulk and nil array. Rescans from the start when more
// bytes arrive; replies to limiter commands are a few dozen bytes, so that costs nothing.
ScanResult ScanReply(std::string_view buf);

}  // namespace sluice::bench
