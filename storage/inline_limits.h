#pragma once

// When a small sorted set or list keeps its elements in its record's payload (as Redis keeps
// small ones in a listpack) rather than one sub-entry each: storage/zset_key.h, list_type.h.

#include <cstddef>

namespace sluice::storage {

// Redis's zset-max-listpack-entries and zset-max-listpack-value defaults.
struct InlineLimits {
  size_t max_entries = 128;
  size_t max_member = 64;  // bytes; at most 255 - 8 (a zset payload's length byte)
};

}  // namespace sluice::storage
