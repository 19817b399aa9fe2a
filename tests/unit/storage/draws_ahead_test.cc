#include "storage/draws_ahead.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::storage::testing {
namespace {

using Members = std::vector<std::string>;

// What Release gave back: its members, or nullopt.
std::optional<Members> Released(DrawsAhead<std::string>& samples, std::string_view key,
                                uint64_t version) {
  std::optional<DrawnAhead<std::string>> ahead = samples.Release(key, version);
  if (!ahead) return std::nullopt;
  return ahead->elements();
}

DrawnAhead<std::string> Ahead(Members members) { return DrawnAhead(std::move(members)); }

TEST(DrawnAheadTest, TakesFromTheBackAndCountsWhatIsLeft) {
  Members members = {"first-drawn-last", "a", "b", "next"};
  members.reserve(100);
  DrawnAhead<std::string> ahead(std::move(members));
  EXPECT_EQ(ahead.bytes(), 22 + 4 * sizeof(std::string));  // the spare slots are given back
  EXPECT_EQ(ahead.TakeNext(1), Members{"next"});
  EXPECT_EQ(ahead.bytes(), 18 + 4 * sizeof(std::string));  // three of four slots used
  EXPECT_EQ(ahead.TakeNext(2), (Members{"b", "a"}));       // in the order drawn
  EXPECT_EQ(ahead.elements(), Members{"first-drawn-last"});
  EXPECT_EQ(ahead.bytes(), 16 + sizeof(std::string));  // under half: given back
  EXPECT_EQ(ahead.TakeNext(0), Members{});
  EXPECT_EQ(ahead.TakeNext(1), Members{"first-drawn-last"});
  EXPECT_EQ(ahead.bytes(), 0u);
}

TEST(DrawsAheadTest, WhatIsHeldComesBackOnceUnderItsVersion) {
  DrawsAhead<std::string> samples;
  EXPECT_EQ(Released(samples, "s", 1), std::nullopt);  // no pop yet
  samples.Hold("s", 1, {});                            // a pop, nothing drawn ahead
  EXPECT_EQ(Released(samples, "s", 1), Members{});
  samples.Hold("s", 1, Ahead({"a", "b"}));
  EXPECT_EQ(Released(samples, "s", 1), (Members{"a", "b"}));
  EXPECT_EQ(Released(samples, "s", 1), std::nullopt);
  samples.Hold("s", 1, Ahead({"a"}));
  EXPECT_EQ(Released(samples, "s", 2), std::nullopt);  // a new set under the name: dropped
  EXPECT_EQ(samples.size(), 0u);
  EXPECT_EQ(samples.bytes(), 0u);
}

TEST(DrawsAheadTest, ForgetAndClearDropWhatIsHeldAndItsBytes) {
  DrawsAhead<std::string> samples;
  samples.Hold("s", 1, Ahead({"a", "b"}));
  samples.Hold("t", 2, Ahead({std::string(1000, 'x')}));
  EXPECT_GT(samples.bytes(), 1000u);
  samples.Forget("t");
  EXPECT_EQ(samples.Peek("t", 2), nullptr);
  EXPECT_GT(samples.bytes(), 0u);
  EXPECT_LT(samples.bytes(), 1000u);
  samples.Hold("s", 1, Ahead({"c"}));  // in place of the one before
  EXPECT_EQ(*samples.Peek("s", 1), Members{"c"});
  samples.Clear();
  EXPECT_EQ(samples.size(), 0u);
  EXPECT_EQ(samples.bytes(), 0u);
}

TEST(DrawsAheadTest, TheLeastRecentlyHeldMakeRoomPastTheBudget) {
  DrawsAhead<std::string> samples;
  const Members quarter = {std::string(DrawAheadBounds::kMaxHeldBytes / 4, 'x')};
  for (int set = 0; set < 10; ++set) {
    samples.Hold("s" + std::to_string(set), 1, DrawnAhead<std::string>(quarter));
    EXPECT_LE(samples.bytes(), DrawAheadBounds::kMaxHeldBytes);
    EXPECT_NE(samples.Peek("s" + std::to_string(set), 1), nullptr);  // the newest stays
  }
  EXPECT_EQ(samples.size(), 3u);  // s7, s8, s9
  std::optional<DrawnAhead<std::string>> popped =
      samples.Release("s7", 1);  // a pop of s7: held again
  ASSERT_TRUE(popped.has_value());
  samples.Hold("s7", 1, std::move(*popped));
  samples.Hold("s10", 1, DrawnAhead<std::string>(quarter));
  EXPECT_EQ(samples.Peek("s8", 1), nullptr);
  EXPECT_NE(samples.Peek("s7", 1), nullptr);
  EXPECT_NE(samples.Peek("s9", 1), nullptr);
  // A draw larger than the budget is held alone (dropping it would serve its long element
  // less often than the others), and goes first.
  samples.Hold("big", 1, Ahead({std::string(DrawAheadBounds::kMaxHeldBytes, 'y')}));
  EXPECT_NE(samples.Peek("big", 1), nullptr);
  EXPECT_EQ(samples.size(), 1u);
  samples.Hold("s11", 1, DrawnAhead<std::string>(quarter));
  EXPECT_EQ(samples.Peek("big", 1), nullptr);
  EXPECT_EQ(samples.size(), 1u);
  EXPECT_LE(samples.bytes(), DrawAheadBounds::kMaxHeldBytes);
}

TEST(DrawsAheadTest, TheDrawAheadGrowsWithTheSetWithinBounds) {
  EXPECT_EQ(DrawAheadBounds::AheadCount(10), DrawAheadBounds::kMinAhead);
  EXPECT_EQ(DrawAheadBounds::AheadCount(63'000), 63'000u / 16);
  EXPECT_EQ(DrawAheadBounds::AheadCount(10'000'000), DrawAheadBounds::kMaxAhead);
}

}  // namespace
}  // namespace sluice::storage::testing
