#pragma once

// Builds Prometheus's text exposition format (version 0.0.4): a HELP and TYPE line per
// metric family, then its samples. Label values are escaped and made valid UTF-8.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::server {

class PrometheusWriter {
 public:
  using Label = std::pair<std::string_view, std::string_view>;
  using Labels = std::initializer_list<Label>;

  // `type` is counter, gauge or histogram.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, uint64_t value, Labels labels = {});
  void Sample(std::string_view name, double value, Labels labels = {});

  std::string Take() { return std::move(text_); }

 private:
  void Head(std::string_view name, Labels labels);

  std::string text_;
};

}  // namespace sluice::server
