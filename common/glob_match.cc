#include "common/glob_match.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "common/ascii.h"

namespace sluice {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

uint8_t Lower(uint8_t c) { return static_cast<uint8_t>(AsciiToLower(static_cast<char>(c))); }

bool SameByte(char a, char b, bool nocase) {
  return nocase ? AsciiToLower(a) == AsciiToLower(b) : a == b;
}

// Matches the one-byte token at pattern[p] (anything but '*') against `c`. Sets *matched and
// returns the position after the token. Follows the branches of Redis's stringmatchlen_impl.
size_t MatchToken(std::string_view pattern, size_t p, char c, bool nocase, bool* matched) {
  const size_t m = pattern.size();
  switch (pattern[p]) {
    case '?':
      *matched = true;
      return p + 1;
    case '\\':
      if (m - p >= 2) {
        *matched = SameByte(pattern[p + 1], c, nocase);
        return p + 2;
      }
      *matched = SameByte('\\', c, nocase);
      return p + 1;
    case '[': {
      size_t q = p + 1;
      const bool negate = q < m && pattern[q] == '^';
      if (negate) ++q;
      bool match = false;
      size_t next = m;  // an unterminated class consumes the rest of the pattern
      while (q < m) {
        if (pattern[q] == '\\' && m - q >= 2) {
          ++q;
          if (pattern[q] == c) match = true;  // Redis compares escapes case-sensitively
        } else if (pattern[q] == ']') {
          next = q + 1;
          break;
        } else if (m - q >= 3 && pattern[q + 1] == '-') {
          uint8_t start = static_cast<uint8_t>(pattern[q]);
          uint8_t end = static_cast<uint8_t>(pattern[q + 2]);
          uint8_t byte = static_cast<uint8_t>(c);
          if (start > end) std::swap(start, end);
          if (nocase) {
            start = Lower(start);
            end = Lower(end);
            byte = Lower(byte);
          }
          q += 2;
          if (byte >= start && byte <= end) match = true;
        } else if (SameByte(pattern[q], c, nocase)) {
          match = true;
        }
        ++q;
      }
      *matched = negate ? !match : match;
      return next;
    }
    default:
      *matched = SameByte(pattern[p], c, nocase);
      return p + 1;
  }
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase) {
  // Redis's loop never runs on an empty string: only the empty pattern matches it.
  if (str.empty()) return pattern.empty();

  const size_t m = pattern.size();
  const size_t n = str.size();
  size_t p = 0;
  size_t s = 0;
  size_t star_p = kNone;  // pattern position just after the latest '*' group
  size_t star_s = 0;      // string position that '*' group currently stops at
  size_t star_groups = 0;

  while (s < n) {
    if (p < m && pattern[p] == '*') {
      while (p + 1 < m && pattern[p + 1] == '*') ++p;
      if (p + 1 == m) return true;  // a final '*' takes whatever is left
      if (++star_groups > kGlobMaxStarGroups) return false;
      star_p = p + 1;
      star_s = s;
      p = star_p;
      continue;
    }
    if (p < m) {
      bool matched = false;
      size_t next = MatchToken(pattern, p, str[s], nocase, &matched);
      if (matched) {
        p = next;
        ++s;
        continue;
      }
    }
    // Mismatch: let the latest '*' take one more byte. Earlier '*' groups never need to:
    // a longer match for them only leaves less string for the rest of the pattern.
    if (star_p == kNone) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < m && pattern[p] == '*') ++p;
  return p == m;
}

std::string_view GlobLiteralPrefix(std::string_view pattern) {
  return pattern.substr(0, std::min(pattern.size(), pattern.find_first_of("*?[\\")));
}

}  // namespace sluice
