// The dispatcher's recent commands: a name finds the command last added under it, spelled byte
// for byte the same; the entry added longest ago makes room; a name never added finds nothing.

#include "server/recent_commands.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace sluice::server {
namespace {

// Only their addresses matter here.
using Specs = std::array<CommandSpec, RecentCommands::kEntries + 2>;

TEST(RecentCommandsTest, AnEmptyCacheFindsNothing) {
  RecentCommands recent;
  EXPECT_EQ(recent.Find("get"), nullptr);
  EXPECT_EQ(recent.Find(""), nullptr);
}

TEST(RecentCommandsTest, FindsEachOfAsManyNamesAsItHolds) {
  const Specs specs{};
  RecentCommands recent;
  for (size_t i = 0; i < RecentCommands::kEntries; ++i) {
    recent.Add("cmd" + std::to_string(i), &specs[i]);
  }
  for (size_t i = 0; i < RecentCommands::kEntries; ++i) {
    EXPECT_EQ(recent.Find("cmd" + std::to_string(i)), &specs[i]) << i;
  }
  EXPECT_EQ(recent.Find("cmd"), nullptr);
}

TEST(RecentCommandsTest, NamesMatchByteForByte) {
  const Specs specs{};
  RecentCommands recent;
  recent.Add("zcard", &specs[0]);
  EXPECT_EQ(recent.Find("zcard"), &specs[0]);
  // Another spelling of the same command is another entry (the table lowers it).
  EXPECT_EQ(recent.Find("ZCARD"), nullptr);
  EXPECT_EQ(recent.Find("zcar"), nullptr);
  EXPECT_EQ(recent.Find("zcardx"), nullptr);
  recent.Add("ZCARD", &specs[0]);
  EXPECT_EQ(recent.Find("ZCARD"), &specs[0]);
  EXPECT_EQ(recent.Find("zcard"), &specs[0]);
}

TEST(RecentCommandsTest, TheNameAddedLongestAgoMakesRoom) {
  const Specs specs{};
  RecentCommands recent;
  for (size_t i = 0; i < RecentCommands::kEntries + 2; ++i) {
    recent.Add("cmd" + std::to_string(i), &specs[i]);
  }
  EXPECT_EQ(recent.Find("cmd0"), nullptr);
  EXPECT_EQ(recent.Find("cmd1"), nullptr);
  for (size_t i = 2; i < RecentCommands::kEntries + 2; ++i) {
    EXPECT_EQ(recent.Find("cmd" + std::to_string(i)), &specs[i]) << i;
  }
}

TEST(RecentCommandsTest, TheLatestAddedUnderANameWins) {
  const Specs specs{};
  RecentCommands recent;
  recent.Add("get", &specs[0]);
  recent.Add("set", &specs[1]);
  recent.Add("get", &specs[2]);
  EXPECT_EQ(recent.Find("get"), &specs[2]);
  EXPECT_EQ(recent.Find("set"), &specs[1]);
}

}  // namespace
}  // namespace sluice::server
