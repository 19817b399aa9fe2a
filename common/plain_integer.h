#pragma once

// A plain decimal integer ("-" allowed, leading zeros too) of at most 15 digits, which a double
// holds exactly, read as strtod reads it but without glibc's multi-precision path, which costs
// ten times as much. Scores, times and the numbers of limiter scripts are mostly such integers.
// Shared by the commands' number parsers (server/arg_cursor.h) and the process's strtod
// (scripting/lua_strtod.cc).

#include <cstddef>
#include <cstdint>

namespace sluice {

// Reads the integer at the start of `text`, looking at no more than `size` bytes (SIZE_MAX for
// a NUL-terminated text: the NUL ends the digits). Returns the bytes read, with the value in
// *out ("-0" is -0.0, as strtod reads it); 0, and *out untouched, when `text` starts with no
// digits or with more than 15. What follows the digits is the caller's to judge.
inline size_t ReadPlainInteger(const char* text, size_t size, double* out) {
  constexpr size_t kMostExactDigits = 15;
  const bool negative = size > 0 && text[0] == '-';
  const size_t first = negative ? 1 : 0;
  uint64_t value = 0;
  size_t at = first;
  for (; at < size && text[at] >= '0' && text[at] <= '9'; ++at) {
    if (at - first == kMostExactDigits) return 0;
    value = value * 10 + static_cast<uint64_t>(text[at] - '0');
  }
  if (at == first) return 0;
  const auto magnitude = static_cast<double>(value);
  *out = negative ? -magnitude : magnitude;
  return at;
}

}  // namespace sluice
