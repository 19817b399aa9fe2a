#pragma once

// The common RESP length header, read without searching for its '\r' or parsing a general
// integer: pipelined requests are mostly "*3\r\n$14\r\n...", and the search and the parse
// were a tenth of the loop thread on small commands.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::resp {

// Reads a positive decimal of at most 18 digits (no sign, no leading zero) at input[pos]
// that is followed by '\r' and at least one more byte. Returns the offset of that '\r' and
// sets *value; returns npos for anything else ("0", "-1", a longer or malformed number, or
// a line not fully arrived), which the caller hands to its general path.
inline size_t ReadShortLength(std::string_view input, size_t pos, int64_t* value) {
  constexpr size_t kMaxDigits = 18;  // keeps the value below 10^18: no overflow check
  if (pos >= input.size() || input[pos] < '1' || input[pos] > '9') return std::string_view::npos;
  const size_t limit = std::min(input.size(), pos + kMaxDigits);
  int64_t number = 0;
  size_t i = pos;
  for (; i < limit && input[i] >= '0' && input[i] <= '9'; ++i) {
    number = number * 10 + (input[i] - '0');
  }
  if (i + 1 >= input.size() || input[i] != '\r') return std::string_view::npos;
  *value = number;
  return i;
}

}  // namespace sluice::resp
