#pragma once

// The CRC-64 that seals a DUMP payload, as Redis computes it: the "Jones" polynomial
// 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor. Its check
// value (the CRC of "123456789") is 0xe9c6d914c4b8d9ca.

#include <cstdint>
#include <string_view>

namespace sluice::storage {

// The CRC of `data` continued from `crc` (0 to start).
uint64_t Crc64Jones(uint64_t crc, std::string_view data);

}  // namespace sluice::storage
