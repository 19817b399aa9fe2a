#pragma once

// Checked integer arithmetic for the limiter math. Overflow is never UB and never wraps: a
// `Checked` latches the first overflow (as the argument cursor latches the first parse error),
// returns 0 from then on, and the caller turns `failed()` into an error Status once, at the end
// of a computation. Plus exact floor/ceil division and a 128-bit type for the few products
// that need it (sliding-window comparisons, bucket rescaling).

#include <cstdint>
#include <limits>

#include "common/status.h"

namespace sluice::algorithms {

__extension__ typedef __int128 Int128;  // GCC/Clang builtin; -std=c++20 keeps it
__extension__ typedef unsigned __int128 UInt128;

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr bool FitsInt64(Int128 v) { return v >= kInt64Min && v <= kInt64Max; }

class Checked {
 public:
  int64_t Add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (failed_ || __builtin_add_overflow(a, b, &r)) return Fail();
    return r;
  }
  int64_t Sub(int64_t a, int64_t b) {
    int64_t r = 0;
    if (failed_ || __builtin_sub_overflow(a, b, &r)) return Fail();
    return r;
  }
  int64_t Mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (failed_ || __builtin_mul_overflow(a, b, &r)) return Fail();
    return r;
  }
  // A 128-bit intermediate back to 64 bits.
  int64_t Narrow(Int128 v) {
    if (failed_ || !FitsInt64(v)) return Fail();
    return static_cast<int64_t>(v);
  }
  bool failed() const { return failed_; }

 private:
  int64_t Fail() {
    failed_ = true;
    return 0;
  }
  bool failed_ = false;
};

// Floor and ceiling of a / b for b > 0, exact for negative a (C++ `/` truncates toward 0).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
constexpr int64_t CeilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

// The 128-bit forms divide in 64 bits when both operands fit: most limiter figures do, and
// a 128-bit division is a libgcc call several times slower.
constexpr Int128 FloorDiv128(Int128 a, Int128 b) {
  if (FitsInt64(a) && FitsInt64(b)) {
    return FloorDiv(static_cast<int64_t>(a), static_cast<int64_t>(b));
  }
  Int128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
constexpr Int128 CeilDiv128(Int128 a, Int128 b) {
  if (FitsInt64(a) && FitsInt64(b)) {
    return CeilDiv(static_cast<int64_t>(a), static_cast<int64_t>(b));
  }
  Int128 q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

// Microseconds to milliseconds, rounded up (retry_after_ms, reset_after_ms, PEXPIREAT).
constexpr int64_t CeilUsToMs(int64_t us) { return CeilDiv(us, 1000); }

}  // namespace sluice::algorithms
