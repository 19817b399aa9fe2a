#include "resp/key_peek.h"

#include <cstdint>
#include <cstring>

#include "common/string2ll.h"

namespace sluice::resp {

namespace {

// Longer requests are rarely the pipelined kind; peeking through them could cost time
// quadratic in their length while their arguments arrive in many small reads.
constexpr int64_t kMaxPeekedArguments = 64;

// Reads "<marker><integer>\r\n" at `*pos`; false (and *pos unchanged) if that is not there.
bool ReadHeader(std::string_view input, char marker, size_t* pos, int64_t* value) {
  if (*pos >= input.size() || input[*pos] != marker) return false;
  const char* start = input.data() + *pos + 1;
  const auto* cr = static_cast<const char*>(std::memchr(start, '\r', input.size() - *pos - 1));
  if (cr == nullptr || cr + 1 >= input.data() + input.size()) return false;
  if (!ParseInt64(std::string_view(start, static_cast<size_t>(cr - start)), value)) return false;
  *pos = static_cast<size_t>(cr - input.data()) + 2;
  return true;
}

}  // namespace

size_t PeekFirstArguments(std::string_view input, std::span<std::string_view> out) {
  size_t found = 0;
  size_t pos = 0;
  while (found < out.size()) {
    int64_t count = 0;
    if (!ReadHeader(input, '*', &pos, &count) || count > kMaxPeekedArguments) break;
    std::string_view first_argument;
    for (int64_t i = 0; i < count; ++i) {
      int64_t len = 0;
      if (!ReadHeader(input, '$', &pos, &len) || len < 0) return found;
      if (static_cast<uint64_t>(len) + 2 > input.size() - pos) return found;  // incomplete
      if (i == 1) first_argument = input.substr(pos, static_cast<size_t>(len));
      pos += static_cast<size_t>(len) + 2;
    }
    if (count >= 2) out[found++] = first_argument;
  }
  return found;
}

}  // namespace sluice::resp
