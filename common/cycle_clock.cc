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
// A reading of both clocks is the counter between two steady_clock reads, taken again (up to
// kPairAttempts times) while those two are further apart than kPairWidthNs: a thread
// preempted between them, on a busy VM for tens of microseconds, would put a percent's error
// into the rate.
constexpr uint64_t kPairWidthNs = 2'000;
constexpr int kPairAttempts = 100;

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

uint64_t SteadyNowNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

#if defined(__x86_64__)
struct PairedReading {
  uint64_t ns = 0;
  uint64_t tick = 0;
};

PairedReading ReadBothClocks() {
  PairedReading best;
  uint64_t best_width = UINT64_MAX;
  for (int attempt = 0; attempt < kPairAttempts && best_width > kPairWidthNs; ++attempt) {
    const uint64_t before = SteadyNowNanos();
    const uint64_t tick = __rdtsc();
    const uint64_t after = SteadyNowNanos();
    if (after - before < best_width) {
      best_width = after - before;
      best = {before + best_width / 2, tick};
    }
  }
  return best;
}
#endif

}  // namespace

uint64_t CycleClock::SteadyNanos() { return SteadyNowNanos(); }

CycleClock::Calibration CycleClock::Calibrate() {
  Calibration rate;
#if defined(__x86_64__)
  if (!HasInvariantTsc()) return rate;
  const PairedReading start = ReadBothClocks();
  while (SteadyNowNanos() - start.ns < kCalibrationNs) {
    // busy: the thread keeps its core, so both clocks run through the same interval
  }
  const PairedReading end = ReadBothClocks();
  if (end.tick <= start.tick) return rate;  // a counter that does not count: keep steady_clock
  rate.counts_cycles = true;
  rate.ns_per_tick =
      static_cast<double>(end.ns - start.ns) / static_cast<double>(end.tick - start.tick);
#endif
  return rate;
}

}  // namespace sluice
