#include "bench/paced/reply_scanner.h"

#include <cstdint>

#include "common/string2ll.h"

namespace sluice::bench {
namespace {

// A `$` or `*` header's count: -1 (nil) or a non-negative number small enough that adding to
// it cannot overflow (Redis's own limits are far below).
bool ParseCount(std::string_view text, int64_t* out) {
  constexpr int64_t kMaxCount = 999'999'999'999'999;
  int64_t n = 0;
  if (!ParseInt64(text, &n) || n < -1 || n > kMaxCount) return false;
  *out = n;
  return true;
}

}  // namespace

ScanResult ScanReply(std::string_view buf) {
  constexpr ScanResult kNeedMore{ScanStatus::kNeedMore};
  constexpr ScanResult kBad{ScanStatus::kBad};
  size_t pos = 0;
  // Elements still to read in a pre-order walk: an array's elements follow its header, so a
  // header of `*n` just adds n to the count and nesting needs no stack.
  int64_t remaining = 1;
  while (remaining > 0) {
    size_t eol = buf.find("\r\n", pos);
    if (eol == std::string_view::npos) return kNeedMore;
    if (eol == pos) return kBad;  // a line without a type byte
    char type = buf[pos];
    std::string_view line = buf.substr(pos + 1, eol - pos - 1);
    pos = eol + 2;
    --remaining;
    int64_t count = 0;
    switch (type) {
      case '+':
      case '-':
      case ':':
        break;
      case '$':
        if (!ParseCount(line, &count)) return kBad;
        if (count >= 0) {
          size_t end = pos + static_cast<size_t>(count);  // the bulk's bytes may hold CRLFs
          if (buf.size() < end + 2) return kNeedMore;
          if (buf[end] != '\r' || buf[end + 1] != '\n') return kBad;
          pos = end + 2;
        }
        break;
      case '*':
        if (!ParseCount(line, &count)) return kBad;
        if (count > 0) remaining += count;
        break;
      default:
        return kBad;
    }
  }
  return {ScanStatus::kComplete, pos, buf[0] == '-'};
}

}  // namespace sluice::bench
