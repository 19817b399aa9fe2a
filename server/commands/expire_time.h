#pragma once

// Parsing of expiry arguments shared by SET, SETEX, PSETEX and the EXPIRE family, with
// Redis 7.0's validation and "invalid expire time in '<cmd>' command" errors.

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/status.h"

namespace sluice::server {

enum class ExpireUnit { kRelativeSeconds, kRelativeMillis, kAbsoluteSeconds, kAbsoluteMillis };

// EX / PX / EXAT / PXAT (case-insensitive) to its unit; nullopt for anything else.
std::optional<ExpireUnit> ExpireOptionUnit(std::string_view option);

// SET ... EX/PX/EXAT/PXAT and SETEX/PSETEX: the value must be a positive integer and the
// resulting absolute time positive and representable. Returns the absolute unix ms.
StatusOr<int64_t> ParseSetExpire(std::string_view arg, ExpireUnit unit, int64_t now_ms,
                                 std::string_view command);

// EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT: any integer, checked only for overflow (a time in the
// past deletes the key). Returns the absolute unix ms.
StatusOr<int64_t> ParseExpireCommandTime(std::string_view arg, ExpireUnit unit, int64_t now_ms,
                                         std::string_view command);

}  // namespace sluice::server
