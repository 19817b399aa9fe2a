#pragma once

// Redis's string2ll: the one strict integer syntax every layer shares (commands, limiter
// arguments, config values).

#include <cstdint>
#include <string_view>

namespace sluice {

// "0", "-12", "42"; not "", "+1", " 1", "01", "-0", "1.0", or anything outside int64_t.
// *out is set only on success.
bool ParseInt64(std::string_view s, int64_t* out);

}  // namespace sluice
