#pragma once

// ACL LOG: the recent refusals (commands, keys, channels) and failed AUTHs, newest first. As
// Redis 7.0, a refusal like one logged less than 60 s before (same reason, context, object and
// user) counts on that entry and moves it to the front instead of adding one.

#include <cstdint>
#include <deque>
#include <string>

namespace sluice::server {

struct AclLogEntry {
  int64_t count = 1;
  std::string reason;   // "command", "key", "channel", "auth"
  std::string context;  // "toplevel", "multi", "lua"
  std::string object;   // the command's full name, the key, the channel, or "AUTH"
  std::string username;
  int64_t created_ms = 0;  // of the last occurrence
  std::string client_info;  // the client's CLIENT LIST line
};

class AclLog {
 public:
  static constexpr size_t kMaxEntries = 128;  // Redis's acllog-max-len default

  void Add(AclLogEntry entry);
  const std::deque<AclLogEntry>& entries() const { return entries_; }
  void Reset() { entries_.clear(); }

 private:
  std::deque<AclLogEntry> entries_;
};

}  // namespace sluice::server
