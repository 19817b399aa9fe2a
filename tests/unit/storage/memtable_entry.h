#pragma once

// A memtable entry as RocksDB encodes one, for the memtable tests: varint32 length of the
// internal key, the user key, little-endian (sequence << 8 | type), then the value.

#include <cstdint>
#include <string>

namespace sluice::storage::testing {

inline std::string MemtableEntry(const std::string& user_key, uint64_t sequence, uint8_t type,
                                 const std::string& value = "") {
  std::string internal = user_key;
  const uint64_t tag = (sequence << 8) | type;
  for (int i = 0; i < 8; ++i) internal.push_back(static_cast<char>(tag >> (8 * i)));
  std::string entry;
  for (uint32_t n = static_cast<uint32_t>(internal.size());; n >>= 7) {
    if (n < 0x80) {
      entry.push_back(static_cast<char>(n));
      break;
    }
    entry.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  return entry + internal + value;
}

}  // namespace sluice::storage::testing
