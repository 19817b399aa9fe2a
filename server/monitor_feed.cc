#include "server/monitor_feed.h"

#include <algorithm>

#include "common/ascii.h"
#include "resp/inline_args.h"
#include "resp/number_format.h"
#include "server/pubsub.h"

namespace sluice::server {

namespace {

// Redis redacts what AUTH and HELLO's AUTH option carry (redactClientCommandArgument).
bool Redacted(std::span<const std::string_view> args, size_t i) {
  if (EqualsIgnoreCase(args[0], "auth")) return i >= 1;
  if (!EqualsIgnoreCase(args[0], "hello")) return false;
  for (size_t j = 2; j < i; ++j) {
    if (EqualsIgnoreCase(args[j], "auth") && i <= j + 2) return true;
  }
  return false;
}

}  // namespace

std::string MonitorLine(int64_t unix_us, int db, std::string_view origin,
                        std::span<const std::string_view> args) {
  std::string line;
  char digits[resp::kNumberBufferSize];
  line.append(resp::FormatInt(unix_us / 1'000'000, digits));
  const std::string micros(resp::FormatInt(unix_us % 1'000'000, digits));
  line.append(".").append(6 - micros.size(), '0').append(micros);
  line.append(" [").append(resp::FormatInt(db, digits)).append(" ").append(origin).append("]");
  for (size_t i = 0; i < args.size(); ++i) {
    line.push_back(' ');
    resp::AppendRepr(Redacted(args, i) ? std::string_view("(redacted)") : args[i], &line);
  }
  return line;
}

void MonitorFeed::Add(Client* client) {
  if (std::find(monitors_.begin(), monitors_.end(), client) == monitors_.end()) {
    monitors_.push_back(client);
  }
}

void MonitorFeed::Remove(Client* client) { std::erase(monitors_, client); }

void MonitorFeed::Feed(const Client& from, bool from_script, std::span<const std::string_view> args,
                       int64_t unix_us) {
  std::string unix_origin;
  std::string_view origin = from.addr;
  if (from_script) {
    origin = "lua";
  } else if (from.is_unix) {
    unix_origin = "unix:" + from.addr.substr(0, from.addr.rfind(':'));  // addr is "path:0"
    origin = unix_origin;
  }
  const std::string line = MonitorLine(unix_us, from.db, origin, args);
  for (Client* monitor : monitors_) {
    if (monitor->push_sink != nullptr) monitor->push_sink->DeliverMonitorLine(line);
  }
}

}  // namespace sluice::server
