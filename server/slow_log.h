#pragma once

// SLOWLOG: the latest commands that ran for at least slowlog-log-slower-than microseconds,
// newest first, at most slowlog-max-len of them, as Redis 7.0 keeps them: each with its first
// 32 arguments (the 32nd then says how many more there were), each argument cut at 128 bytes
// (saying how many more), and passwords shown as "(redacted)".

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {

struct SlowLogEntry {
  int64_t id = 0;
  int64_t unix_seconds = 0;
  int64_t duration_us = 0;
  std::vector<std::string> args;
  std::string peer;         // "ip:port"
  std::string client_name;  // CLIENT SETNAME, or empty
};

// What the entry of one command records besides its arguments.
struct SlowCall {
  std::string_view command;  // the command table's name (lower case), for redaction
  int64_t duration_us = 0;
  int64_t unix_seconds = 0;
  std::string_view peer;
  std::string_view client_name;
  bool from_script = false;  // logged as Redis logs a script's calls: peer "?:0", no name
};

class SlowLog {
 public:
  static constexpr size_t kMaxArgs = 32;
  static constexpr size_t kMaxArgBytes = 128;

  // Adds the call if it took at least `slower_than_us` (negative: the log is off, and kept as
  // it is), then drops the oldest entries beyond `max_len`. Inline: every command passes here.
  void MaybePush(std::span<const std::string_view> args, const SlowCall& call,
                 int64_t slower_than_us, uint64_t max_len) {
    if (slower_than_us < 0) return;
    if (call.duration_us >= slower_than_us) Push(args, call);
    while (entries_.size() > max_len) entries_.pop_back();
  }

  const std::deque<SlowLogEntry>& entries() const { return entries_; }  // newest first
  size_t size() const { return entries_.size(); }
  void Reset() { entries_.clear(); }

 private:
  void Push(std::span<const std::string_view> args, const SlowCall& call);

  std::deque<SlowLogEntry> entries_;  // newest first
  int64_t next_id_ = 0;
};

// Whether args[i] of a call to `command` is a secret the slow log shows as "(redacted)": AUTH's
// arguments, HELLO's AUTH username and password, CONFIG SET requirepass's value, ACL SETUSER's
// user and rules.
bool IsRedactedArgument(std::string_view command, std::span<const std::string_view> args, size_t i);

}  // namespace sluice::server
