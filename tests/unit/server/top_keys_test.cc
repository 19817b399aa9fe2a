// Space-saving top-K: exact while keys fit, bounded and never under-counting after that.

#include "server/metrics/top_keys.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace sluice::server {
namespace {

TEST(TopKeys, ExactWhileKeysFit) {
  TopKeys top(4);
  for (int i = 0; i < 5; ++i) top.Add("a");
  for (int i = 0; i < 3; ++i) top.Add("b");
  top.Add("c");
  auto entries = top.Top(10);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].key, "a");
  EXPECT_EQ(entries[0].count, 5u);
  EXPECT_EQ(entries[1].key, "b");
  EXPECT_EQ(entries[2].key, "c");
  EXPECT_EQ(entries[2].error, 0u);
  EXPECT_EQ(top.Top(1).size(), 1u);
}

TEST(TopKeys, NewKeyTakesOverTheSmallestCounter) {
  TopKeys top(2);
  top.Add("a");
  top.Add("a");
  top.Add("b");
  top.Add("c");  // replaces b (count 1): count 2, error 1
  auto entries = top.Top(2);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(top.size(), 2u);
  EXPECT_EQ(entries[1].key, "c");
  EXPECT_EQ(entries[1].count, 2u);
  EXPECT_EQ(entries[1].error, 1u);
}

TEST(TopKeys, LongKeysAreTrackedByTheirPrefix) {
  TopKeys top(2);
  top.Add(std::string(1000, 'x'));
  EXPECT_EQ(top.Top(1)[0].key.size(), TopKeys::kMaxKeyBytes);
}

// The space-saving guarantees over a skewed random stream: each listed count is at least the
// key's true count and at most true + error, and every key seen more than n/capacity times is
// listed.
TEST(TopKeys, GuaranteesOnARandomStream) {
  constexpr size_t kCapacity = 32;
  TopKeys top(kCapacity);
  std::map<std::string, uint64_t> truth;
  std::mt19937 gen(7);
  std::geometric_distribution<int> pick(0.08);
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    std::string key = "k" + std::to_string(pick(gen));
    truth[key]++;
    top.Add(key);
  }
  auto entries = top.Top(kCapacity);
  std::map<std::string, TopKeys::Entry> listed;
  for (const auto& e : entries) listed[e.key] = e;
  for (const auto& [key, e] : listed) {
    EXPECT_GE(e.count, truth[key]) << key;
    EXPECT_LE(e.count - e.error, truth[key]) << key;
  }
  for (const auto& [key, count] : truth) {
    if (count > n / kCapacity) {
      EXPECT_TRUE(listed.count(key)) << key << " seen " << count;
    }
  }
}

}  // namespace
}  // namespace sluice::server
