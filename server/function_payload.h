#pragma once

// FUNCTION DUMP / RESTORE payloads in Redis 7.0's format, so either server reads the other's:
// an RDB fragment holding, per library, the FUNCTION2 opcode (245) and the library's code as
// an RDB string, then storage/rdb_format.h's footer (the RDB version and a CRC-64 of all
// before it). sluice writes strings uncompressed and reads Redis's LZF-compressed ones too.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::server {

std::string EncodeFunctionPayload(std::span<const std::string_view> codes);

// The libraries' codes, or Redis's error: "DUMP payload version or checksum are wrong",
// "can not read data type", "given type is not a function", "Failed loading library
// payload". A library in 7.0-rc's format (opcode 246: name, engine, description, code), as
// 7.0 still reads it, becomes `#!<engine> name=<name>\n<code>`.
StatusOr<std::vector<std::string>> DecodeFunctionPayload(std::string_view payload);

}  // namespace sluice::server
