#include "resp/number_format.h"

#include <charconv>
#include <cmath>

namespace sluice::resp {

std::string_view FormatInt(int64_t v, char* buf) {
  auto [end, ec] = std::to_chars(buf, buf + kNumberBufferSize, v);
  return {buf, static_cast<size_t>(end - buf)};
}

std::string_view FormatDouble(double d, char* buf) {
  // Redis spells infinities itself rather than trusting libc; to_chars agrees, but say it here.
  if (std::isinf(d)) return d > 0 ? std::string_view("inf") : std::string_view("-inf");
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
