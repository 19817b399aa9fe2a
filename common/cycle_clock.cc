#include "common/cycle_clock.h"

#include <chrono>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace sluice {
namespace {

// How long the rate is measured for: long against the ~20 ns a steady_clock read may be off.
constexpr uint64_t kCalibrationNs = 1'000'000;

bool HasInvariantTsc() {
#if defined(__x86_64__)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // "TscInvariant"
#else
  return false;
#endif
}

}  // namespace

uint64_t CycleClock::SteadyNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

CycleClock::Calibration CycleClock::Calibrate() {
  Calibration rate;
#if defined(__x86_64__)
  if (!HasInvariantTsc()) return rate;
  const uint64_t start_ns = SteadyNanos();
  const uint64_t start_tick = __rdtsc();
  uint64_t ns = start_ns;
  uint64_t tick = start_tick;
  while (ns - start_ns < kCalibrationNs) {
    ns = SteadyNanos();
    tick = __rdtsc();
  }
  if (tick <= start_tick) return rate;  // a counter that does not count: keep steady_clock
  rate.counts_cycles = true;
  rate.ns_per_tick = static_cast<double>(ns - start_ns) / static_cast<double>(tick - start_tick);
#endif
  return rate;
}

}  // namespace sluice
