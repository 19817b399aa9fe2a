#include "server/metrics/error_stats.h"

#include "resp/error_prefix.h"

namespace sluice::server {

void ErrorStats::Count(std::string_view line) {
  const size_t space = line.substr(0, 32).find(' ');
  CountCode(space == std::string_view::npos ? std::string_view("ERR") : line.substr(0, space));
}

void ErrorStats::Count(const Status& status) {
  const std::string_view prefix = resp::ErrorPrefix(status.code());
  if (prefix.empty()) {
    Count(status.message());  // Code::kRaw: the message carries its own code
  } else {
    CountCode(prefix);
  }
}

void ErrorStats::CountCode(std::string_view code) {
  ++total_;
  auto it = by_code_.find(code);
  if (it != by_code_.end()) {
    ++it->second;
  } else if (by_code_.size() < kMaxCodes) {
    by_code_.emplace(code, 1);
  }
}

}  // namespace sluice::server
