#include "storage/pop_samples.h"

#include <iterator>
#include <utility>

namespace sluice::storage {

DrawnAhead::DrawnAhead(std::vector<std::string> members) : members_(std::move(members)) {
  for (const std::string& member : members_) member_bytes_ += member.size();
}

std::vector<std::string> DrawnAhead::TakeNext(size_t count) {
  const auto first = members_.end() - static_cast<std::ptrdiff_t>(count);
  std::vector<std::string> taken(std::make_move_iterator(first),
                                 std::make_move_iterator(members_.end()));
  members_.erase(first, members_.end());
  for (const std::string& member : taken) member_bytes_ -= member.size();
  return taken;
}

std::optional<DrawnAhead> PopSamples::Release(std::string_view key, uint64_t version) {
  auto it = samples_.find(key);
  if (it == samples_.end()) return std::nullopt;
  std::optional<DrawnAhead> ahead;
  if (it->second.version == version) ahead = std::move(it->second.ahead);
  Erase(it);
  return ahead;
}

void PopSamples::Hold(std::string_view key, uint64_t version, DrawnAhead ahead) {
  Forget(key);
  // The strings' objects and characters, the key, and the map's entry, near enough.
  const size_t bytes = sizeof(std::string) * (ahead.size() + 4) + ahead.member_bytes() + key.size();
  // Other sets' samples make room, in no particular order: a lost one costs its set one walk.
  while (!samples_.empty() && bytes_ + bytes > kMaxHeldBytes) Erase(samples_.begin());
  samples_.emplace(std::string(key), Sample{version, std::move(ahead), bytes});
  bytes_ += bytes;
}

const std::vector<std::string>* PopSamples::Peek(std::string_view key, uint64_t version) const {
  auto it = samples_.find(key);
  if (it == samples_.end() || it->second.version != version) return nullptr;
  return &it->second.ahead.members();
}

}  // namespace sluice::storage
