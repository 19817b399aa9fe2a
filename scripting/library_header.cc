#include "scripting/library_header.h"

#include <vector>

#include "common/ascii.h"
#include "scripting/shebang.h"

namespace sluice::scripting {

StatusOr<LibraryHeader> ParseLibraryHeader(std::string_view payload) {
  if (payload.substr(0, 2) != "#!") return Err("Missing library metadata");
  const size_t end = payload.find('\n');
  if (end == std::string_view::npos) return Err("Invalid library metadata");
  std::vector<std::string_view> words = SplitShebangWords(payload.substr(0, end));
  if (words.empty()) return Err("Invalid library metadata");
  LibraryHeader header;
  header.engine = std::string(words[0].substr(2));
  header.code_start = end;
  bool named = false;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word.size() < 5 || !EqualsIgnoreCase(word.substr(0, 5), "name=")) {
      return Err("Invalid metadata value given: " + std::string(word));
    }
    if (named) return Err("Invalid metadata value, name argument was given multiple times");
    header.name = std::string(word.substr(5));
    named = true;
  }
  if (!named) return Err("Library name was not given");
  return header;
}

bool IsValidFunctionName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '_') return false;
  }
  return true;
}

}  // namespace sluice::scripting
