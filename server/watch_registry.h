#pragma once

// WATCH bookkeeping: which clients watch which keys (of which database). Every write command
// touches the keys it names (the dispatcher does it from the command table's key positions),
// which marks their watchers dirty so their EXEC aborts, as Redis's signalModifiedKey.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/client.h"
#include "server/db_key.h"

namespace sluice::server {

class WatchRegistry {
 public:
  void Watch(Client* client, int db, std::string_view key) {
    auto& watchers = watchers_[DbKey(db, key)];
    if (std::find(watchers.begin(), watchers.end(), client) == watchers.end()) {
      watchers.push_back(client);
    }
  }

  void UnwatchAll(Client* client) {
    for (const WatchedKey& watched : client->watched) {
      auto it = watchers_.find(DbKey(watched.db, watched.key));
      if (it == watchers_.end()) continue;
      std::erase(it->second, client);
      if (it->second.empty()) watchers_.erase(it);
    }
    client->watched.clear();
    client->watch_dirty = false;
  }

  void Touch(int db, std::string_view key) {
    if (watchers_.empty()) return;
    auto it = watchers_.find(DbKey(db, key));
    if (it == watchers_.end()) return;
    for (Client* client : it->second) client->watch_dirty = true;
  }

  // The watched keys of database `db`, or of every database (nullopt).
  std::vector<WatchedKey> WatchedKeys(std::optional<int> db) const {
    std::vector<WatchedKey> keys;
    for (const auto& [qualified, watchers] : watchers_) {
      const DbKeyParts parts = SplitDbKey(qualified);
      if (!db || parts.db == *db) keys.push_back({parts.db, std::string(parts.key)});
    }
    return keys;
  }

  bool empty() const { return watchers_.empty(); }

 private:
  std::unordered_map<std::string, std::vector<Client*>> watchers_;
};

}  // namespace sluice::server
