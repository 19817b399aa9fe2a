#include "server/metrics/prometheus_writer.h"

#include <charconv>

#include "server/metrics/readable_text.h"

namespace sluice::server {

void PrometheusWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  text_ += help;  // our own constant texts: no backslashes or newlines to escape
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void PrometheusWriter::Head(std::string_view name, Labels labels) {
  text_ += name;
  if (labels.size() == 0) {
    text_ += ' ';
    return;
  }
  text_ += '{';
  bool first = true;
  for (const auto& [label, raw_value] : labels) {
    if (!first) text_ += ',';
    first = false;
    text_ += label;
    text_ += "=\"";
    for (char c : ReadableUtf8(raw_value)) {
      if (c == '\\') {
        text_ += "\\\\";
      } else if (c == '"') {
        text_ += "\\\"";
      } else if (c == '\n') {
        text_ += "\\n";
      } else {
        text_ += c;
      }
    }
    text_ += '"';
  }
  text_ += "} ";
}

void PrometheusWriter::Sample(std::string_view name, uint64_t value, Labels labels) {
  Head(name, labels);
  text_ += std::to_string(value);
  text_ += '\n';
}

void PrometheusWriter::Sample(std::string_view name, double value, Labels labels) {
  Head(name, labels);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  text_.append(buf, ec == std::errc() ? end : buf);
  text_ += '\n';
}

}  // namespace sluice::server
