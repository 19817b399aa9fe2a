#include "common/string2ll.h"

#include <limits>

namespace sluice {

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s == "0") {
    *out = 0;
    return true;
  }
  const bool negative = !s.empty() && s[0] == '-';
  const std::string_view digits = negative ? s.substr(1) : s;
  // int64_t has 19 digits at most, and any 19 digits fit in uint64_t: the loop needs no
  // overflow check, only the range check after it.
  if (digits.empty() || digits.size() > 19 || digits[0] < '1' || digits[0] > '9') {
    return false;  // also "01", "-0"
  }
  uint64_t magnitude = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    magnitude = magnitude * 10 + static_cast<uint64_t>(c - '0');
  }
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > kMax + (negative ? 1 : 0)) return false;
  // Unsigned negation wraps, and kMax + 1 becomes INT64_MIN.
  *out = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
  return true;
}

}  // namespace sluice
