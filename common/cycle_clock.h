#pragma once

// Interval timing for the command path. Where the CPU's time-stamp counter is invariant (the
// same rate in every state, on every core: x86-64 with CPUID's "invariant TSC", as on this
// project's machines), a reading is one rdtsc, about 9 ns, against about 20 ns for
// clock_gettime through a VM's vDSO; elsewhere it is steady_clock. Ticks become nanoseconds at
// a rate measured against steady_clock once, over the first millisecond of use (an error of
// a few parts in ten thousand, for durations of microseconds). For intervals only: a reading
// means nothing by itself, and the server's own clock (common/clock.h) stays the time of day.

#include <cstdint>

namespace sluice {

class CycleClock {
 public:
  static uint64_t Now() {
#if defined(__x86_64__)
    // The compiler's builtin rather than <x86intrin.h>'s __rdtsc: that header brings every
    // intrinsic (some 35,000 lines) into each file that times a command.
    if (Rate().counts_cycles) return __builtin_ia32_rdtsc();
#endif
    return SteadyNanos();
  }

  static uint64_t ToNanos(uint64_t ticks) {
    return static_cast<uint64_t>(static_cast<double>(ticks) * Rate().ns_per_tick);
  }

  // Nanoseconds from the reading `start` to now; 0 rather than a wrapped difference should a
  // thread that moved cores read a counter a little behind the first.
  static uint64_t NanosSince(uint64_t start) {
    const uint64_t now = Now();
    return now > start ? ToNanos(now - start) : 0;
  }

  // Whether readings are the time-stamp counter's (else steady_clock's nanoseconds).
  static bool CountsCycles() { return Rate().counts_cycles; }

 private:
  struct Calibration {
    bool counts_cycles = false;
    double ns_per_tick = 1.0;
  };
  static const Calibration& Rate() {
    static const Calibration rate = Calibrate();  // thread-safe, once
    return rate;
  }
  static Calibration Calibrate();
  static uint64_t SteadyNanos();
};

}  // namespace sluice
