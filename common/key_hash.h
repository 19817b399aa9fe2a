#pragma once

// The hash of a key for sluice's own hash tables (the record cache, the write stage, the key
// space memtable's index). A command hashes its key in each of them, so this is on every
// request's path: XXH3 (Debian's libxxhash-dev), inlined, takes about a quarter of the
// instructions of std::hash's out-of-line Murmur on keys of a few dozen bytes.

#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sluice {

inline uint64_t HashKey(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

}  // namespace sluice
