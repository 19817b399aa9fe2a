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
  auto holds_elements = [&](std::string_view key) {
    const Members* held = samples.Peek(key, 1);
    return held != nullptr && !held->empty();
  };
  for (int set = 0; set < 10; ++set) {
    samples.Hold("s" + std::to_string(set), 1, DrawnAhead<std::string>(quarter));
    EXPECT_LE(samples.bytes(), DrawAheadBounds::kMaxHeldBytes);
    EXPECT_TRUE(holds_elements("s" + std::to_string(set)));  // the newest stays
  }
  // s7, s8, s9 hold theirs. Making room emptied the draws of s0 to s6, most recent first, and
  // the emptied s0 to s3 made room in turn.
  for (int set = 0; set < 10; ++set) {
    const std::string key = "s" + std::to_string(set);
    EXPECT_EQ(holds_elements(key), set >= 7) << key;
    EXPECT_EQ(samples.Peek(key, 1) != nullptr, set >= 4) << key;
  }
  std::optional<DrawnAhead<std::string>> popped =
      samples.Release("s7", 1);  // a pop of s7: held again
  ASSERT_TRUE(popped.has_value());
  samples.Hold("s7", 1, std::move(*popped));
  samples.Hold("s10", 1, DrawnAhead<std::string>(quarter));
  EXPECT_FALSE(holds_elements("s8"));
  EXPECT_TRUE(holds_elements("s7"));
  EXPECT_TRUE(holds_elements("s9"));
  // A draw larger than the budget is held alone (dropping it would serve its long element
  // less often than the others), and goes first.
  samples.Hold("big", 1, Ahead({std::string(DrawAheadBounds::kMaxHeldBytes, 'y')}));
  EXPECT_TRUE(holds_elements("big"));
  EXPECT_EQ(samples.size(), 1u);
  samples.Hold("s11", 1, DrawnAhead<std::string>(quarter));
  EXPECT_FALSE(holds_elements("big"));
  EXPECT_TRUE(holds_elements("s11"));
  EXPECT_EQ(samples.size(), 2u);
  EXPECT_LE(samples.bytes(), DrawAheadBounds::kMaxHeldBytes);
}

TEST(DrawsAheadTest, AKeyWhoseDrawMadeRoomIsNotReadWholeAgainInItsStreak) {
  DrawsAhead<std::string> samples;
  const Members half = {std::string(DrawAheadBounds::kMaxHeldBytes / 2, 'x')};
  samples.Hold("a", 1, DrawnAhead<std::string>::Whole(half));
  samples.Hold("b", 1, DrawnAhead<std::string>::Whole(half));  // a makes room
  std::optional<DrawnAhead<std::string>> a = samples.Release("a", 1);
  ASSERT_TRUE(a.has_value());  // still a streak: the call before on it was of this kind
  EXPECT_TRUE(a->empty());
  EXPECT_FALSE(a->whole());
  EXPECT_TRUE(a->too_large_for_whole());
  EXPECT_EQ(samples.bytes(), DrawnAhead<std::string>::Whole(half).bytes() + 1 +
                                 DrawAheadBounds::kHeldOverhead);  // b alone
}

TEST(DrawsAheadTest, TheDrawAheadGrowsWithTheSetWithinBounds) {
  EXPECT_EQ(DrawAheadBounds::AheadCount(10), DrawAheadBounds::kMinAhead);
  EXPECT_EQ(DrawAheadBounds::AheadCount(63'000), 63'000u / 16);
  EXPECT_EQ(DrawAheadBounds::AheadCount(10'000'000), DrawAheadBounds::kMaxAhead);
  // A collection too large to read whole draws as many short elements as that room holds.
  DrawsAhead<std::string> samples;
  const uint64_t room_holds =
      DrawAheadBounds::kMostWholeBytes / (sizeof(std::string) + DrawAheadBounds::kShortElement);
  EXPECT_GT(room_holds, DrawAheadBounds::kMaxAhead);
  EXPECT_EQ(samples.DrawAheadCount(10'000'000), room_holds);
  samples.set_most_whole_bytes(0);  // no whole reads: AheadCount's
  EXPECT_EQ(samples.DrawAheadCount(10'000'000), DrawAheadBounds::kMaxAhead);
}

}  // namespace
}  // namespace sluice::storage::testing
