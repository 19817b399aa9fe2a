#pragma once

// INFO's *_human fields: a byte count as Redis 7.0's bytesToHuman writes it.

#include <cstdint>
#include <string>

namespace sluice::server {

// "1023B", "1.00K", "1.50M" ... "%.2f" of the count in the largest unit up to P it reaches
// (1024-based); a count of 1024 P or more in bytes again, as Redis.
std::string HumanBytes(uint64_t bytes);

}  // namespace sluice::server
