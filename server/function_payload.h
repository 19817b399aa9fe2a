#pragma once

// FUNCTION DUMP / RESTORE payloads in Redis 7.0's format, so either server reads the other's:
// an RDB fragment holding, per library, the FUNCTION2 opcode (245) and the library's code as
// an RDB string, then the RDB version (2 bytes, little-endian; 10 for Redis 7.0) and a CRC64
// (Jones polynomial, as Redis's crc64) of all before it. sluice writes strings uncompressed
// and reads Redis's LZF-compressed ones too.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::server {

std::string EncodeFunctionPayload(std::span<const std::string_view> codes);

// The libraries' codes, or Redis's error: "DUMP payload version or checksum are wrong",
// "can not read data type", "Pre-GA function format not supported", "given type is not a
// function", "Failed loading library payload".
StatusOr<std::vector<std::string>> DecodeFunctionPayload(std::string_view payload);

// Redis's crc64 (crc-64-jones, reflected, initial value 0): crc64("123456789") is
// 0xe9c6d914c4b8d9ca.
uint64_t Crc64(uint64_t crc, std::string_view data);

}  // namespace sluice::server
