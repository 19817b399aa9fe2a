#pragma once

// WATCH bookkeeping: which clients watch which keys. Every write command touches the keys it
// names (the dispatcher does it from the command table's key positions), which marks their
// watchers dirty so their EXEC aborts, as Redis's signalModifiedKey.

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/client.h"

namespace sluice::server {

class WatchRegistry {
 public:
  void Watch(Client* client, std::string_view key) {
    auto& watchers = watchers_[std::string(key)];
    if (std::find(watchers.begin(), watchers.end(), client) == watchers.end()) {
      watchers.push_back(client);
    }
  }

  void UnwatchAll(Client* client) {
    for (const WatchedKey& watched : client->watched) {
      auto it = watchers_.find(watched.key);
      if (it == watchers_.end()) continue;
      std::erase(it->second, client);
      if (it->second.empty()) watchers_.erase(it);
    }
    client->watched.clear();
    client->watch_dirty = false;
  }

  void Touch(std::string_view key) {
    if (watchers_.empty()) return;
    auto it = watchers_.find(std::string(key));
    if (it == watchers_.end()) return;
    for (Client* client : it->second) client->watch_dirty = true;
  }

  std::vector<std::string> WatchedKeys() const {
    std::vector<std::string> keys;
    keys.reserve(watchers_.size());
    for (const auto& [key, watchers] : watchers_) keys.push_back(key);
    return keys;
  }

  bool empty() const { return watchers_.empty(); }

 private:
  std::unordered_map<std::string, std::vector<Client*>> watchers_;
};

}  // namespace sluice::server
