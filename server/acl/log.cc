#include "server/acl/log.h"

#include <algorithm>
#include <utility>

namespace sluice::server {

void AclLog::Add(AclLogEntry entry) {
  constexpr int64_t kGroupingMs = 60'000;
  auto same = std::find_if(entries_.begin(), entries_.end(), [&](const AclLogEntry& e) {
    return e.reason == entry.reason && e.context == entry.context && e.object == entry.object &&
           e.username == entry.username && entry.created_ms - e.created_ms < kGroupingMs;
  });
  if (same != entries_.end()) {
    entry.count = same->count + 1;
    entries_.erase(same);
  }
  entries_.push_front(std::move(entry));
  if (entries_.size() > kMaxEntries) entries_.pop_back();
}

}  // namespace sluice::server
