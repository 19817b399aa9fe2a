#pragma once

// A key qualified by its database, as the server-wide registries know keys (WATCH, clients
// blocked on keys, BLOCK's queues): one byte of database index, then the key. Registries that
// serve a key later (a blocked pop, a queued limiter request) select its database again.

#include <string>
#include <string_view>

#include "storage/engine.h"

namespace sluice::server {

static_assert(storage::kMaxDatabases <= 256, "a database index must fit in a DbKey's byte");

inline std::string DbKey(int db, std::string_view key) {
  std::string qualified;
  qualified.reserve(key.size() + 1);
  qualified.push_back(static_cast<char>(static_cast<unsigned char>(db)));
  qualified.append(key);
  return qualified;
}

struct DbKeyParts {
  int db = 0;
  std::string_view key;
};

inline DbKeyParts SplitDbKey(std::string_view qualified) {
  if (qualified.empty()) return {};
  return {static_cast<unsigned char>(qualified.front()), qualified.substr(1)};
}

// A registry's key (a DbKey) with its database selected in the engine for this object's
// lifetime: what serves a waiter later decides on the state in the key's database.
class InKeysDatabase {
 public:
  InKeysDatabase(storage::Engine& engine, std::string_view qualified)
      : parts_(SplitDbKey(qualified)), scope_(engine, parts_.db) {}
  int db() const { return parts_.db; }
  std::string_view key() const { return parts_.key; }
  const Status& status() const { return scope_.status(); }

 private:
  DbKeyParts parts_;  // before scope_, which is made from it
  storage::DatabaseScope scope_;
};

}  // namespace sluice::server
