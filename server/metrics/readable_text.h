#pragma once

// Keys and policy names are binary-safe; Prometheus labels and JSON need valid UTF-8.

#include <string>
#include <string_view>

namespace sluice::server {

// `text` itself when it is valid UTF-8; otherwise every byte >= 0x80 becomes the four
// characters \xNN (as redis-cli shows such bytes), so distinct inputs stay distinguishable.
std::string ReadableUtf8(std::string_view text);

}  // namespace sluice::server
