#pragma once

// MONITOR: every command the server runs, as one line to each client in monitor mode, in
// Redis 7.0's format: `<unix seconds>.<microseconds> [0 <client address>] "arg" "arg"...`
// (`[0 lua]` for a script's commands), each argument quoted and escaped as Redis's
// sdscatrepr, passwords shown as "(redacted)". What is shown and when is the dispatcher's
// (Dispatcher::Execute): commands that ran, after they ran, but for EVAL and its kin, which
// come before the commands of their script; never administrative ones.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"

namespace sluice::server {

// One MONITOR line, without the RESP framing: "<time> [<db> <origin>] <args>".
std::string MonitorLine(int64_t unix_us, int db, std::string_view origin,
                        std::span<const std::string_view> args);

class MonitorFeed {
 public:
  void Add(Client* client);
  void Remove(Client* client);
  bool empty() const { return monitors_.empty(); }

  // Sends the command `from` ran to every monitor; `from_script`: a script's command.
  void Feed(const Client& from, bool from_script, std::span<const std::string_view> args,
            int64_t unix_us);

 private:
  std::vector<Client*> monitors_;  // in the order they started
};

}  // namespace sluice::server
