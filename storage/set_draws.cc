#include "storage/set_draws.h"

#include <iterator>
#include <utility>

namespace sluice::storage {

namespace {

// A held draw's bookkeeping besides its members: the map's node and the age list's.
constexpr size_t kHeldOverhead = sizeof(std::string) + 96;

}  // namespace

DrawnAhead::DrawnAhead(std::vector<std::string> members) : members_(std::move(members)) {
  members_.shrink_to_fit();
  for (const std::string& member : members_) member_bytes_ += member.size();
}

std::vector<std::string> DrawnAhead::TakeNext(size_t count) {
  // The next is at the back: the taken come out back to front.
  std::vector<std::string> taken(
      std::make_move_iterator(members_.rbegin()),
      std::make_move_iterator(members_.rbegin() + static_cast<std::ptrdiff_t>(count)));
  members_.resize(members_.size() - count);
  for (const std::string& member : taken) member_bytes_ -= member.size();
  if (members_.size() * 2 < members_.capacity()) members_.shrink_to_fit();
  return taken;
}

std::optional<DrawnAhead> SetDraws::Release(std::string_view key, uint64_t version) {
  auto it = draws_.find(key);
  if (it == draws_.end()) return std::nullopt;
  std::optional<DrawnAhead> ahead;
  if (it->second.version == version) ahead = std::move(it->second.ahead);
  Erase(it);
  return ahead;
}

void SetDraws::Hold(std::string_view key, uint64_t version, DrawnAhead ahead) {
  Forget(key);
  const size_t bytes = ahead.bytes() + key.size() + kHeldOverhead;
  // Dropping it costs the set a call that draws only what it takes, then a streak again.
  if (bytes > kMaxHeldBytes) return;
  while (bytes_ + bytes > kMaxHeldBytes) Erase(draws_.find(*by_age_.front()));
  auto [it, inserted] =
      draws_.emplace(std::string(key), Held{version, std::move(ahead), bytes, {}});
  it->second.age = by_age_.insert(by_age_.end(), &it->first);
  bytes_ += bytes;
}

void SetDraws::Erase(Draws::iterator it) {
  bytes_ -= it->second.bytes;
  by_age_.erase(it->second.age);
  draws_.erase(it);
}

const std::vector<std::string>* SetDraws::Peek(std::string_view key, uint64_t version) const {
  auto it = draws_.find(key);
  if (it == draws_.end() || it->second.version != version) return nullptr;
  return &it->second.ahead.members();
}

}  // namespace sluice::storage
