#include "server/metrics/human_bytes.h"

#include <cstdio>

namespace sluice::server {

std::string HumanBytes(uint64_t bytes) {
  static constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(bytes));
    return buf;
  }
  uint64_t unit = 1024;
  for (char name : kUnits) {
    if (bytes / unit < 1024) {
      std::snprintf(buf, sizeof(buf), "%.2f%c",
                    static_cast<double>(bytes) / static_cast<double>(unit), name);
      return buf;
    }
    unit *= 1024;
  }
  std::snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(bytes));
  return buf;
}

}  // namespace sluice::server
