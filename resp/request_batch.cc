#include "resp/request_batch.h"

#include <algorithm>

#include "common/ascii.h"

namespace sluice::resp {

namespace {

// After a batch holding more arguments than this, the storage is given back.
constexpr size_t kKeptArguments = 4096;

// Commands whose keys follow a script (or function) and a key count. Asked of every request
// (the batch's key prefetch), so the names are string_view constants: a list of C strings
// cost six strlen calls a request.
bool KeysFollowNumkeys(std::string_view name) {
  static constexpr std::string_view kCommands[] = {"evalsha", "eval",  "evalsha_ro",
                                                   "eval_ro", "fcall", "fcall_ro"};
  // Every one starts with E or F: other commands (PING, SET, the limiters) stop at this test,
  // which saves six comparisons a request.
  const char first = name.empty() ? '\0' : static_cast<char>(name[0] | 0x20);
  if (first != 'e' && first != 'f') return false;
  return std::ranges::any_of(
      kCommands, [name](std::string_view command) { return EqualsIgnoreCase(name, command); });
}

}  // namespace

void RequestBatch::Parse(RequestParser& parser, std::string_view input, size_t max_requests) {
  requests_.clear();
  if (args_.capacity() > kKeptArguments) std::vector<std::string_view>().swap(args_);
  args_.clear();
  size_t pos = 0;
  while (requests_.size() < max_requests && pos < input.size() && input[pos] == '*') {
    size_t consumed = 0;
    if (parser.Parse(input.substr(pos), &consumed, &scratch_) != RequestParser::Result::kOk) {
      break;
    }
    pos += consumed;
    requests_.push_back({pos, args_.size(), scratch_.size()});
    args_.insert(args_.end(), scratch_.begin(), scratch_.end());
  }
  if (scratch_.capacity() > kKeptArguments) std::vector<std::string_view>().swap(scratch_);
}

size_t RequestBatch::FirstKeys(std::span<std::string_view> out) const {
  size_t found = 0;
  for (size_t i = 0; i < requests_.size() && found < out.size(); ++i) {
    if (std::optional<std::string_view> key = FirstKeyHint(args(i))) out[found++] = *key;
  }
  return found;
}

std::optional<std::string_view> FirstKeyHint(std::span<const std::string_view> args) {
  if (args.empty()) return std::nullopt;
  if (KeysFollowNumkeys(args[0])) {
    if (args.size() >= 4 && args[2] != "0") return args[3];
    return std::nullopt;
  }
  if (args.size() >= 2) return args[1];
  return std::nullopt;
}

}  // namespace sluice::resp
