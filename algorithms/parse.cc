#include "algorithms/parse.h"

#include <charconv>
#include <cmath>

#include "algorithms/messages.h"

namespace sluice::algorithms {

namespace {

// Digits only, accumulating a magnitude up to 2^63 (so that INT64_MIN parses).
bool ParseMagnitude(std::string_view digits, uint64_t* out) {
  if (digits.empty()) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, uint64_t{10}, &v)) return false;
    if (__builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v)) return false;
  }
  *out = v;
  return true;
}

bool ApplySign(bool negative, uint64_t magnitude, int64_t* out) {
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  if (negative) {
    if (magnitude > kLimit) return false;
    *out = magnitude == kLimit ? INT64_MIN : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude >= kLimit) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

}  // namespace

bool ParseInt64Lenient(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool negative = s[0] == '-';
  std::string_view digits = (s[0] == '-' || s[0] == '+') ? s.substr(1) : s;
  uint64_t magnitude = 0;
  return ParseMagnitude(digits, &magnitude) && ApplySign(negative, magnitude, out);
}

bool ParseFiniteDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

StatusOr<int64_t> ParsePositiveArg(std::string_view s, std::string_view name) {
  int64_t v = 0;
  if (!ParseInt64(s, &v) || v < 1) return PositiveIntegerError(name);
  return v;
}

StatusOr<int64_t> ParseNonNegativeArg(std::string_view s, std::string_view name) {
  int64_t v = 0;
  if (!ParseInt64(s, &v) || v < 0) return NonNegativeIntegerError(name);
  return v;
}

}  // namespace sluice::algorithms
