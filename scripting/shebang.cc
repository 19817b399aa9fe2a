#include "scripting/shebang.h"

#include <string>
#include <vector>

namespace sluice::scripting {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

Status ApplyFlag(std::string_view name, ScriptFlags* flags) {
  if (SetScriptFlag(name, flags)) return Status::Ok();
  return Err("Unexpected flag in script shebang: " + std::string(name));
}

}  // namespace

std::vector<std::string_view> SplitShebangWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool SetScriptFlag(std::string_view name, ScriptFlags* flags) {
  if (name == "no-writes") {
    flags->no_writes = true;
  } else if (name == "allow-oom") {
    flags->allow_oom = true;
  } else if (name == "allow-stale") {
    flags->allow_stale = true;
  } else if (name == "no-cluster") {
    flags->no_cluster = true;
  } else if (name == "allow-cross-slot-keys") {
    flags->allow_cross_slot_keys = true;
  } else {
    return false;
  }
  return true;
}

StatusOr<Shebang> ParseShebang(std::string_view body) {
  Shebang result;
  if (body.substr(0, 2) != "#!") return result;
  size_t end = body.find('\n');
  if (end == std::string_view::npos) return Err("Invalid script shebang");
  std::vector<std::string_view> words = SplitShebangWords(body.substr(0, end));
  if (words.empty()) return Err("Invalid engine in script shebang");
  if (words[0] != "#!lua") {
    return Err("Unexpected engine in script shebang: " + std::string(words[0]));
  }
  result.length = end;
  result.flags.has_shebang = true;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (word.substr(0, 6) != "flags=") {
      return Err("Unknown lua shebang option: " + std::string(word));
    }
    // "flags=" alone names no flag; "a,,b" has an empty one, which Redis refuses.
    std::string_view list = word.substr(6);
    if (list.empty()) continue;
    size_t start = 0;
    for (;;) {
      size_t comma = list.find(',', start);
      std::string_view name = list.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      SLUICE_RETURN_IF_ERROR(ApplyFlag(name, &result.flags));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  return result;
}

}  // namespace sluice::scripting
