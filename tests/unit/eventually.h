#pragma once

// Polls for what a background thread does, which a test cannot step by hand.

#include <chrono>
#include <functional>
#include <thread>

namespace sluice::testing {

// True once `done` is; false if it is not within 20 s.
inline bool Eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace sluice::testing
