#pragma once

// ASCII case folding, as Redis compares command names and options: strcasecmp in the C
// locale, whatever locale the process runs in. And trimming, as Redis's sdstrim.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace sluice {

inline char AsciiToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

inline std::string AsciiLowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiToLower(c);
  return out;
}

// Orders strings as their ASCII-lowered forms (a transparent comparator for std::map).
struct LessIgnoreCase {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return AsciiToLower(x) < AsciiToLower(y);
    });
  }
};

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}

// `s` without the leading and trailing bytes that are in `chars` (Redis's sdstrim); by default
// the blanks Redis trims from a config or ACL file's lines.
inline std::string_view TrimChars(std::string_view s, std::string_view chars = " \t\r\n") {
  const size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(chars) - begin + 1);
}

}  // namespace sluice
