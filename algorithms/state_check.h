#pragma once

// Whether bytes are a limiter state some algorithm decodes: RESTORE's check of a limiter
// payload, so that a value it accepts is one the limiter commands can read.

#include <string_view>

namespace sluice::algorithms {

// True for an encoded state of one of the seven algorithms (codec.h) that its Decode accepts.
// The server's container of several policies' states (kPolicySet) is not an algorithm's: false.
bool IsAlgorithmState(std::string_view encoded);

}  // namespace sluice::algorithms
