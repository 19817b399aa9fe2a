#include "common/string2ll.h"

#include <limits>

namespace sluice {

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s == "0") {
    *out = 0;
    return true;
  }
  bool negative = s[0] == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty() || digits[0] < '1' || digits[0] > '9') return false;  // no "01", "-0"
  uint64_t magnitude = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    auto digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMax + 1) return false;
    *out = magnitude == kMax + 1 ? std::numeric_limits<int64_t>::min()
                                 : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > kMax) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

}  // namespace sluice
