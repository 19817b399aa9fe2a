#pragma once

// math.random's generator: the 48-bit linear congruential generator of POSIX lrand48, which is
// what Redis's rand.c implements so every platform gives the same sequence. Redis 7.0 keeps
// one generator for the server's life (SCRIPT FLUSH does not reset it); math.randomseed(n)
// seeds it as srand48(n).

#include <cstdint>

namespace sluice::scripting {

class Rand48 {
 public:
  static constexpr int32_t kMax = 0x7fffffff;  // Redis's REDIS_LRAND48_MAX

  // 0 <= result <= kMax: the top 31 of the 48 state bits after one step.
  int32_t Next() {
    state_ = (kMultiplier * state_ + kIncrement) & kMask;
    return static_cast<int32_t>(state_ >> 17);
  }

  void Seed(int32_t seed) {
    state_ = ((static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E) & kMask;
  }

 private:
  static constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr uint64_t kIncrement = 0xB;
  static constexpr uint64_t kMask = (1ULL << 48) - 1;
  uint64_t state_ = 0x1234ABCD330EULL;  // lrand48's state before any seeding
};

}  // namespace sluice::scripting
