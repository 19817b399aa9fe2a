#include "server/metrics/top_keys.h"

#include <algorithm>

namespace sluice::server {

void TopKeys::Add(std::string_view key) {
  key = key.substr(0, kMaxKeyBytes);
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.count++;
      return;
    }
  }
  if (entries_.size() < capacity_) {
    entries_.push_back({std::string(key), 1, 0});
    return;
  }
  if (entries_.empty()) return;  // capacity 0
  auto smallest =
      std::min_element(entries_.begin(), entries_.end(),
                       [](const Entry& a, const Entry& b) { return a.count < b.count; });
  smallest->key.assign(key);
  smallest->error = smallest->count;
  smallest->count++;
}

std::vector<TopKeys::Entry> TopKeys::Top(size_t n) const {
  std::vector<Entry> sorted = entries_;
  std::sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.key < b.key;
  });
  if (sorted.size() > n) sorted.resize(n);
  return sorted;
}

}  // namespace sluice::server
