#include "server/monitor_feed.h"

#include <algorithm>

#include "common/ascii.h"
#include "resp/number_format.h"
#include "server/pubsub.h"

namespace sluice::server {

namespace {

// The two-character escape sdscatrepr writes for `c`, if any.
std::string_view Escape(char c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '"':
      return "\\\"";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\a':
      return "\\a";
    case '\b':
      return "\\b";
    default:
      return {};
  }
}

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

void AppendQuoted(std::string_view arg, std::string* out) {
  constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : arg) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::string_view escape = Escape(c); !escape.empty()) {
      out->append(escape);
    } else if (byte >= 0x20 && byte < 0x7f) {
      out->push_back(c);
    } else {
      out->append("\\x");
      out->push_back(kHex[byte >> 4]);
      out->push_back(kHex[byte & 0xf]);
    }
  }
  out->push_back('"');
}

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
    AppendQuoted(Redacted(args, i) ? std::string_view("(redacted)") : args[i], &line);
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
