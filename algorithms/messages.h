#pragma once

// Error texts of the limiter layer (the server replies `-ERR <text>`, or `-WRONGTYPE <text>`
// for Code::kWrongType). Argument errors name the argument, as the contract asks:
// "capacity must be a positive integer".

#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::algorithms {

inline constexpr std::string_view kMsgOverflow =
    "limiter arithmetic would overflow (arguments or clock out of range)";
inline constexpr std::string_view kMsgCorruptState = "corrupt limiter state";
inline constexpr std::string_view kMsgWrongType =
    "Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kMsgSyntax = "syntax error";
inline constexpr std::string_view kMsgCost = "cost must be a non-negative integer";
inline constexpr std::string_view kMsgSlidingLogTooLarge = "limit must be at most 1000000";
inline constexpr std::string_view kMsgGcraZeroInterval =
    "count is too large for period_ms (emission interval under 1 ns)";
inline constexpr std::string_view kMsgSmoothRate = "permits_per_second must be a positive number";
inline constexpr std::string_view kMsgSmoothMaxBurst = "maxburst must be a non-negative number";
inline constexpr std::string_view kMsgSmoothColdFactor = "coldfactor must be a number >= 1";

// redis-cell's CL.THROTTLE texts (sent as `-ERR <text>`; redis-cell itself wraps them in its
// own "Cell error: " prefix, which sluice drops so that errors carry ERR).
inline constexpr std::string_view kMsgCellNotInteger = "Couldn't parse as integer: ";
inline constexpr std::string_view kMsgCellZeroRate = "Zero rates are not supported";

inline Status OverflowError() { return Err(std::string(kMsgOverflow)); }
inline Status CorruptStateError() { return Err(std::string(kMsgCorruptState)); }
inline Status WrongTypeError() { return {Code::kWrongType, std::string(kMsgWrongType)}; }
inline Status SyntaxError() { return {Code::kSyntax, std::string(kMsgSyntax)}; }
inline Status CostError() { return Err(std::string(kMsgCost)); }

// "<name> must be a positive integer" / "<name> must be a non-negative integer".
inline Status PositiveIntegerError(std::string_view name) {
  return Err(std::string(name) + " must be a positive integer");
}
inline Status NonNegativeIntegerError(std::string_view name) {
  return Err(std::string(name) + " must be a non-negative integer");
}

}  // namespace sluice::algorithms
