#pragma once

// INFO's total_error_replies and errorstats: error replies by code, the first word of the line
// ("ERR", "WRONGTYPE", "NOSCRIPT"...; "ERR" when none of the first 32 bytes is a space), as
// Redis 7.0's afterErrorReply counts them, for at most 128 codes (later new codes are only in
// the total), as Redis's.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "resp/reply_builder.h"

namespace sluice::server {

class ErrorStats {
 public:
  static constexpr size_t kMaxCodes = 128;

  // An error reply, as its line without the leading '-'.
  void Count(std::string_view line);
  void Count(const Status& status);
  // An error reply that repeats one counted already (a script failing with the error of its
  // redis.call): not counted again, but the command that sent it failed (TakeRepeated).
  void CountRepeated() { repeated_ = true; }
  bool TakeRepeated() { return std::exchange(repeated_, false); }

  uint64_t total() const { return total_; }
  // In the order of their codes, as Redis lists them.
  const std::map<std::string, uint64_t, std::less<>>& by_code() const { return by_code_; }

 private:
  void CountCode(std::string_view code);

  uint64_t total_ = 0;
  bool repeated_ = false;
  std::map<std::string, uint64_t, std::less<>> by_code_;
};

// Writes `status` as an error reply and counts it: every error reply a client gets goes
// through here (or through ErrorStats::Count where the reply is written otherwise).
inline void ReplyCountedError(ErrorStats& errors, resp::ReplyBuilder& reply, const Status& status) {
  errors.Count(status);
  reply.Error(status);
}

}  // namespace sluice::server
