#include "resp/key_peek.h"

#include <cstdint>
#include <strings.h>

#include <array>
#include <cstring>
#include <optional>

#include "common/string2ll.h"
#include "resp/short_length.h"

namespace sluice::resp {

namespace {

// Longer requests are rarely the pipelined kind; peeking through them could cost time
// quadratic in their length while their arguments arrive in many small reads.
constexpr int64_t kMaxPeekedArguments = 64;

// Reads "<marker><integer>\r\n" at `*pos`; false (and *pos unchanged) if that is not there.
bool ReadHeader(std::string_view input, char marker, size_t* pos, int64_t* value) {
  if (*pos >= input.size() || input[*pos] != marker) return false;
  if (size_t cr = ReadShortLength(input, *pos + 1, value); cr != std::string_view::npos) {
    *pos = cr + 2;
    return true;
  }
  const char* start = input.data() + *pos + 1;
  const auto* cr = static_cast<const char*>(std::memchr(start, '\r', input.size() - *pos - 1));
  if (cr == nullptr || cr + 1 >= input.data() + input.size()) return false;
  if (!ParseInt64(std::string_view(start, static_cast<size_t>(cr - start)), value)) return false;
  *pos = static_cast<size_t>(cr - input.data()) + 2;
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Commands whose keys follow a script (or function) and a key count.
bool KeysFollowNumkeys(std::string_view name) {
  for (std::string_view command : {"evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro"}) {
    if (EqualsIgnoreCase(name, command)) return true;
  }
  return false;
}

// `head` holds the request's first min(count, 4) arguments.
std::optional<std::string_view> FirstKey(const std::array<std::string_view, 4>& head,
                                         int64_t count) {
  if (KeysFollowNumkeys(head[0])) {
    if (count >= 4 && head[2] != "0") return head[3];
    return std::nullopt;
  }
  if (count >= 2) return head[1];
  return std::nullopt;
}

}  // namespace

size_t PeekKeys(std::string_view input, std::span<std::string_view> out) {
  size_t found = 0;
  size_t pos = 0;
  // At most out.size() requests, with a key or not: a buffer full of PINGs is not walked
  // through on every call.
  for (size_t examined = 0; examined < out.size(); ++examined) {
    int64_t count = 0;
    if (!ReadHeader(input, '*', &pos, &count) || count > kMaxPeekedArguments) break;
    std::array<std::string_view, 4> head;  // the first four arguments
    for (int64_t i = 0; i < count; ++i) {
      int64_t len = 0;
      if (!ReadHeader(input, '$', &pos, &len) || len < 0) return found;
      if (static_cast<uint64_t>(len) + 2 > input.size() - pos) return found;  // incomplete
      if (i < 4) head[static_cast<size_t>(i)] = input.substr(pos, static_cast<size_t>(len));
      pos += static_cast<size_t>(len) + 2;
    }
    if (std::optional<std::string_view> key = FirstKey(head, count)) out[found++] = *key;
  }
  return found;
}

}  // namespace sluice::resp
