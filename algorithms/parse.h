#pragma once

// Number parsing for limiter arguments, with Redis's rules (string2ll: optional '-', no '+',
// no spaces, no leading zeros, 64-bit range) and errors that name the argument.

#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "common/string2ll.h"

namespace sluice::algorithms {

// Redis's string2ll (common/string2ll.h).
using ::sluice::ParseInt64;
// Rust's i64::from_str (redis-cell's parser): also accepts a leading '+' and leading zeros.
bool ParseInt64Lenient(std::string_view s, int64_t* out);
// A finite decimal number ("2", "0.5", "1e3", "-1"); not "", " 1", "nan", "inf".
bool ParseFiniteDouble(std::string_view s, double* out);

// An integer >= 1, else "<name> must be a positive integer".
StatusOr<int64_t> ParsePositiveArg(std::string_view s, std::string_view name);
// An integer >= 0, else "<name> must be a non-negative integer".
StatusOr<int64_t> ParseNonNegativeArg(std::string_view s, std::string_view name);

}  // namespace sluice::algorithms
