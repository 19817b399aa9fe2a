#include "resp/number_format.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

namespace sluice::resp {
namespace {

// "00" to "99": two digits per division, half the divisions of one digit at a time.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

constexpr std::array<uint64_t, 20> kPowersOf10 = [] {
  std::array<uint64_t, 20> powers{};
  uint64_t p = 1;
  for (uint64_t& power : powers) {
    power = p;
    p *= 10;
  }
  return powers;
}();

// The length is known before the first digit is written, so the digits go straight to their
// places (libstdc++'s to_chars finds it with a loop of divisions): log10(2) ~ 1233 / 4096
// turns the bit width into the length or one less, and one comparison settles which.
int DecimalLength(uint64_t v) {
  const int guess = static_cast<int>((std::bit_width(v | 1) * 1233) >> 12);
  return guess + (v >= kPowersOf10[guess] ? 1 : 0);
}

char* WriteDecimal(uint64_t v, char* at) {
  char* end = at + DecimalLength(v);
  char* p = end;
  while (v >= 100) {
    p -= 2;
    std::memcpy(p, &kDigitPairs[2 * (v % 100)], 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(p - 2, &kDigitPairs[2 * v], 2);
  } else {
    p[-1] = static_cast<char>('0' + v);
  }
  return end;
}

}  // namespace

std::string_view FormatInt(int64_t v, char* buf) {
  // Replies are mostly small counts and flags: those take one store.
  if (v >= 0 && v < 10) {
    buf[0] = static_cast<char>('0' + v);
    return {buf, 1};
  }
  char* at = buf;
  auto magnitude = static_cast<uint64_t>(v);
  if (v < 0) {
    *at++ = '-';
    magnitude = 0 - magnitude;  // INT64_MIN's magnitude too, in unsigned arithmetic
  }
  return {buf, static_cast<size_t>(WriteDecimal(magnitude, at) - buf)};
}

std::string_view FormatDouble(double d, char* buf) {
  // Redis spells infinities itself rather than trusting libc; to_chars agrees, but say it here.
  if (std::isinf(d)) return d > 0 ? std::string_view("inf") : std::string_view("-inf");
  // A whole number below 10^17 is exactly an integer of at most 17 digits, which "%.17g"
  // prints as it is: the integer path costs a tenth of to_chars' precision path. (Scores are
  // mostly such: timestamps, counters.) -0 would lose its sign there: it goes the long way.
  if (std::fabs(d) < 1e17 && d == std::trunc(d) && !(d == 0 && std::signbit(d))) {
    return FormatInt(static_cast<int64_t>(d), buf);
  }
  // to_chars with general format and a precision is specified as printf's "%.17g".
  auto [end, ec] = std::to_chars(buf, buf + kNumberBufferSize, d, std::chars_format::general, 17);
  return {buf, static_cast<size_t>(end - buf)};
}

void AppendInt(int64_t v, std::string* out) {
  char buf[kNumberBufferSize];
  out->append(FormatInt(v, buf));
}

void AppendDouble(double d, std::string* out) {
  char buf[kNumberBufferSize];
  out->append(FormatDouble(d, buf));
}

}  // namespace sluice::resp
