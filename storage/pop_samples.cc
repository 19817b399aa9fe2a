#include "storage/pop_samples.h"

#include <utility>

namespace sluice::storage {

std::optional<std::vector<std::string>> PopSamples::Release(std::string_view key,
                                                            uint64_t version) {
  auto it = samples_.find(key);
  if (it == samples_.end()) return std::nullopt;
  std::optional<std::vector<std::string>> members;
  if (it->second.version == version) members = std::move(it->second.members);
  samples_.erase(it);
  return members;
}

void PopSamples::Hold(std::string_view key, uint64_t version, std::vector<std::string> members) {
  auto it = samples_.find(key);
  if (it == samples_.end()) {
    // Any other set's sample: a lost one costs its set one walk.
    if (samples_.size() >= kMaxSets) samples_.erase(samples_.begin());
    it = samples_.emplace(std::string(key), Sample()).first;
  }
  it->second = {version, std::move(members)};
}

const std::vector<std::string>* PopSamples::Peek(std::string_view key, uint64_t version) const {
  auto it = samples_.find(key);
  if (it == samples_.end() || it->second.version != version) return nullptr;
  return &it->second.members;
}

}  // namespace sluice::storage
