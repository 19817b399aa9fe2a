#pragma once

// The server's own durable records (named policies, function libraries), kept in the storage
// engine's system family, outside the key space, so FLUSHALL keeps them. Each kind lives
// under a prefix of its own ("policy:<name>", "function:<name>"). Writes are staged: durable
// with the command's group commit, before its reply.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"

namespace sluice::server {

class SystemRecords {
 public:
  using Record = std::pair<std::string, std::string>;  // name, value

  SystemRecords(storage::Engine& engine, std::string_view prefix)
      : engine_(engine), prefix_(prefix) {}

  void Put(std::string_view name, std::string_view value);
  void Erase(std::string_view name);
  // Every record of this kind, by name (read at start, and by FUNCTION FLUSH/RESTORE).
  StatusOr<std::vector<Record>> ReadAll() const;

 private:
  std::string Key(std::string_view name) const;

  storage::Engine& engine_;
  std::string_view prefix_;
};

}  // namespace sluice::server
