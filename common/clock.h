#pragma once

// Time for the whole server. Everything time-dependent (limiters, expiry in reads, the
// active cycle and the compaction filter, TIME) reads one Clock; nothing else reads the
// system clock. Clocks are read from RocksDB background threads too, so they are thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace sluice {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMicros() const = 0;
  int64_t NowMillis() const { return NowMicros() / 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// The wall clock, whatever DEBUG CLOCK says: for what Redis reports in real time (client ages,
// LASTSAVE).
inline int64_t WallMillis() { return SystemClock().NowMillis(); }

// A clock that only moves when told to: for unit tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t now_us = 0) : now_us_(now_us) {}
  int64_t NowMicros() const override { return now_us_.load(std::memory_order_relaxed); }
  void SetMicros(int64_t now_us) { now_us_.store(now_us, std::memory_order_relaxed); }
  void AdvanceMicros(int64_t delta_us) { now_us_.fetch_add(delta_us, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_us_;
};

// The server's clock: real time until DEBUG CLOCK FREEZE, then frozen until RESUME.
class FreezableClock final : public Clock {
 public:
  static constexpr int64_t kRunning = INT64_MIN;

  int64_t NowMicros() const override {
    int64_t frozen = frozen_us_.load(std::memory_order_relaxed);
    return frozen == kRunning ? system_.NowMicros() : frozen;
  }
  bool frozen() const { return frozen_us_.load(std::memory_order_relaxed) != kRunning; }
  void Freeze(int64_t at_us) { frozen_us_.store(at_us, std::memory_order_relaxed); }
  void FreezeNow() { Freeze(system_.NowMicros()); }
  void Advance(int64_t delta_us) { frozen_us_.fetch_add(delta_us, std::memory_order_relaxed); }
  void Resume() { frozen_us_.store(kRunning, std::memory_order_relaxed); }

 private:
  SystemClock system_;
  std::atomic<int64_t> frozen_us_{kRunning};
};

}  // namespace sluice
