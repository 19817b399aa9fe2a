#include "server/slow_log.h"

#include "server/arg_cursor.h"

namespace sluice::server {
namespace {

constexpr std::string_view kRedacted = "(redacted)";

std::string LoggedArgument(std::string_view arg) {
  if (arg.size() <= SlowLog::kMaxArgBytes) return std::string(arg);
  std::string cut(arg.substr(0, SlowLog::kMaxArgBytes));
  cut += "... (" + std::to_string(arg.size() - SlowLog::kMaxArgBytes) + " more bytes)";
  return cut;
}

}  // namespace

bool IsRedactedArgument(std::string_view command, std::span<const std::string_view> args,
                        size_t i) {
  if (command == "auth") return i >= 1;
  if (command == "hello") {  // HELLO [protover [AUTH username password] [SETNAME name]]
    for (size_t at = 2; at < args.size(); ++at) {  // the options, walked as HELLO reads them
      const size_t more = args.size() - 1 - at;
      if (EqualsIgnoreCase(args[at], "auth") && more >= 2) {
        if (i == at + 1 || i == at + 2) return true;
        at += 2;
      } else if (EqualsIgnoreCase(args[at], "setname") && more >= 1) {
        ++at;
      } else {
        break;
      }
    }
    return false;
  }
  if (command == "acl") {  // ACL SETUSER name rules...: the user and its rules (passwords)
    return args.size() > 1 && EqualsIgnoreCase(args[1], "setuser") && i >= 2;
  }
  if (command == "config") {  // CONFIG SET name value [name value ...]
    return args.size() > 1 && EqualsIgnoreCase(args[1], "set") && i >= 3 && i % 2 == 1 &&
           EqualsIgnoreCase(args[i - 1], "requirepass");
  }
  return false;
}

void SlowLog::Push(std::span<const std::string_view> args, const SlowCall& call) {
  SlowLogEntry entry;
  entry.id = next_id_++;
  entry.unix_seconds = call.unix_seconds;
  entry.duration_us = call.duration_us;
  const size_t kept = args.size() > kMaxArgs ? kMaxArgs : args.size();
  entry.args.reserve(kept);
  for (size_t i = 0; i < kept; ++i) {
    if (kept < args.size() && i == kept - 1) {
      entry.args.push_back("... (" + std::to_string(args.size() - kept + 1) + " more arguments)");
    } else if (IsRedactedArgument(call.command, args, i)) {
      entry.args.emplace_back(kRedacted);
    } else {
      entry.args.push_back(LoggedArgument(args[i]));
    }
  }
  if (call.from_script) {
    entry.peer = "?:0";
  } else {
    entry.peer = call.peer;
    entry.client_name = call.client_name;
  }
  entries_.push_front(std::move(entry));
}

}  // namespace sluice::server
