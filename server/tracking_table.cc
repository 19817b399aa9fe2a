#include "server/tracking_table.h"

#include <algorithm>
#include <utility>

namespace sluice::server {

void TrackingTable::Remember(std::string_view key, uint64_t client_id) {
  auto it = readers_.find(key);
  if (it == readers_.end()) {
    it = readers_.emplace(std::string(key), Readers{}).first;
    it->second.slot = order_.size();
    order_.push_back(&*it);
  }
  std::vector<uint64_t>& ids = it->second.ids;
  if (std::find(ids.begin(), ids.end(), client_id) != ids.end()) return;
  ids.push_back(client_id);
  ++items_;
}

std::vector<uint64_t> TrackingTable::Take(std::string_view key) {
  auto it = readers_.find(key);
  if (it == readers_.end()) return {};
  std::vector<uint64_t> ids = std::move(it->second.ids);
  items_ -= ids.size();
  // The last key takes the freed slot.
  const size_t slot = it->second.slot;
  order_[slot] = order_.back();
  order_.pop_back();
  if (slot < order_.size()) order_[slot]->second.slot = slot;
  readers_.erase(it);
  return ids;
}

std::optional<std::string> TrackingTable::KeyAt(uint64_t random) const {
  if (order_.empty()) return std::nullopt;
  return order_[random % order_.size()]->first;
}

void TrackingTable::ForgetAllKeys() {
  readers_.clear();
  order_.clear();
  items_ = 0;
}

bool TrackingTable::PrefixesOverlap(std::string_view a, std::string_view b) {
  const size_t shorter = std::min(a.size(), b.size());
  return a.substr(0, shorter) == b.substr(0, shorter);
}

void TrackingTable::Subscribe(std::string_view prefix, uint64_t client_id) {
  auto it = prefixes_.find(prefix);
  if (it == prefixes_.end()) it = prefixes_.emplace(std::string(prefix), Prefix{}).first;
  it->second.clients.insert(client_id);
}

void TrackingTable::Unsubscribe(std::string_view prefix, uint64_t client_id) {
  auto it = prefixes_.find(prefix);
  if (it == prefixes_.end()) return;
  it->second.clients.erase(client_id);
  if (!it->second.clients.empty()) return;
  noted_ -= std::min(noted_, it->second.keys.size());
  prefixes_.erase(it);
}

void TrackingTable::NoteModified(std::string_view key, uint64_t modifier_id) {
  for (auto& [prefix, state] : prefixes_) {
    if (!key.starts_with(prefix)) continue;
    auto [it, added] = state.keys.try_emplace(std::string(key), modifier_id);
    if (added) {
      ++noted_;
    } else {
      it->second = modifier_id;  // the last one counts, as Redis's raxInsert
    }
  }
}

}  // namespace sluice::server
