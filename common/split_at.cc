// Splitting at a separator as Redis's sdssplitlen (common/split_at.h).

#include "common/split_at.h"

namespace sluice {

std::vector<std::string_view> SplitAt(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  if (text.empty()) return parts;  // sdssplitlen: no elements for a zero length
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace sluice
