#include "algorithms/state_check.h"

#include <gtest/gtest.h>

#include <string>

#include "algorithms/codec.h"
#include "algorithms/fixed_window.h"
#include "algorithms/gcra.h"

namespace sluice::algorithms {
namespace {

TEST(StateCheckTest, AcceptsWhatAnAlgorithmEncoded) {
  EXPECT_TRUE(IsAlgorithmState(FixedWindowState{.window_start_us = 5, .count = 2}.Encode()));
  GcraState gcra;
  gcra.tat_ns = 123456789;
  EXPECT_TRUE(IsAlgorithmState(gcra.Encode()));
}

TEST(StateCheckTest, RefusesWhatNoAlgorithmDecodes) {
  const std::string window = FixedWindowState{.window_start_us = 5, .count = 2}.Encode();
  EXPECT_FALSE(IsAlgorithmState(""));
  EXPECT_FALSE(IsAlgorithmState("xyz"));
  EXPECT_FALSE(IsAlgorithmState(window.substr(0, window.size() - 1)));  // cut short
  EXPECT_FALSE(IsAlgorithmState(window + "x"));                         // bytes left over
  EXPECT_FALSE(IsAlgorithmState(FixedWindowState{.window_start_us = 5, .count = -1}.Encode()));
  // The server's container of several policies' states is not an algorithm's.
  EXPECT_FALSE(
      IsAlgorithmState(StateWriter(AlgorithmTag::kPolicySet).Finish() + std::string(1, '\0')));
}

}  // namespace
}  // namespace sluice::algorithms
