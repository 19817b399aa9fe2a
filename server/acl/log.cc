#include "server/acl/log.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace sluice::server {

void AclLog::Add(AclLogEntry entry) {
  // As Redis: only the 10 newest entries are looked at, and one counts as the same refusal up
  // to 60 s apart, inclusive.
  constexpr int64_t kGroupingMs = 60'000;
  constexpr size_t kScanned = 10;
  const auto scanned_end = entries_.begin() + std::min(kScanned, entries_.size());
  auto same = std::find_if(entries_.begin(), scanned_end, [&](const AclLogEntry& e) {
    return e.reason == entry.reason && e.context == entry.context && e.object == entry.object &&
           e.username == entry.username && std::abs(entry.created_ms - e.created_ms) <= kGroupingMs;
  });
  if (same == scanned_end) same = entries_.end();
  if (same != entries_.end()) {
    entry.count = same->count + 1;
    entries_.erase(same);
  }
  entries_.push_front(std::move(entry));
  if (entries_.size() > kMaxEntries) entries_.pop_back();
}

}  // namespace sluice::server
