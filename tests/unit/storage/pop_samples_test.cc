#include "storage/pop_samples.h"

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
std::optional<Members> Released(PopSamples& samples, std::string_view key, uint64_t version) {
  std::optional<DrawnAhead> ahead = samples.Release(key, version);
  if (!ahead) return std::nullopt;
  return ahead->members();
}

DrawnAhead Ahead(Members members) { return DrawnAhead(std::move(members)); }

TEST(DrawnAheadTest, TakesFromTheBackAndCountsTheBytesLeft) {
  DrawnAhead ahead({"first-drawn-last", "b", "next"});
  EXPECT_EQ(ahead.member_bytes(), 21u);
  EXPECT_EQ(ahead.TakeNext(2), (Members{"b", "next"}));
  EXPECT_EQ(ahead.members(), Members{"first-drawn-last"});
  EXPECT_EQ(ahead.member_bytes(), 16u);
  EXPECT_EQ(ahead.TakeNext(0), Members{});
  EXPECT_EQ(ahead.TakeNext(1), Members{"first-drawn-last"});
  EXPECT_EQ(ahead.member_bytes(), 0u);
}

TEST(PopSamplesTest, WhatIsHeldComesBackOnceUnderItsVersion) {
  PopSamples samples;
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

TEST(PopSamplesTest, ForgetAndClearDropWhatIsHeldAndItsBytes) {
  PopSamples samples;
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

TEST(PopSamplesTest, OtherSetsMakeRoomPastTheBudget) {
  PopSamples samples;
  const Members quarter = {std::string(PopSamples::kMaxHeldBytes / 4, 'x')};
  for (int set = 0; set < 10; ++set) {
    samples.Hold("s" + std::to_string(set), 1, DrawnAhead(quarter));
    EXPECT_LE(samples.bytes(), PopSamples::kMaxHeldBytes);
    EXPECT_NE(samples.Peek("s" + std::to_string(set), 1), nullptr);  // the newest stays
  }
  EXPECT_EQ(samples.size(), 3u);
  // One set's draw may take the whole budget: every other goes.
  samples.Hold("big", 1, Ahead({std::string(PopSamples::kMaxHeldBytes, 'y')}));
  EXPECT_EQ(samples.size(), 1u);
  EXPECT_NE(samples.Peek("big", 1), nullptr);
}

TEST(PopSamplesTest, TheDrawAheadGrowsWithTheSetWithinBounds) {
  EXPECT_EQ(PopSamples::DrawAhead(10), PopSamples::kMinDrawAhead);
  EXPECT_EQ(PopSamples::DrawAhead(63'000), 63'000u / 16);
  EXPECT_EQ(PopSamples::DrawAhead(10'000'000), PopSamples::kMaxDrawAhead);
}

}  // namespace
}  // namespace sluice::storage::testing
