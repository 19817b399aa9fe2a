#pragma once

// Test data written as hex (payloads captured from redis-server, for instance).

#include <string>
#include <string_view>

namespace sluice::testing {

// The bytes `hex` spells, two digits a byte.
inline std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

}  // namespace sluice::testing
