// SCAN's cursor table: cursors are never 0, name where their scan stopped, and start at
// random in each run, so a cursor kept across a restart does not name another client's scan.

#include "server/scan_cursors.h"

#include <gtest/gtest.h>

namespace sluice::server {
namespace {

TEST(ScanCursorsTest, ACursorNamesWhereItsScanStopped) {
  ScanCursors cursors;
  const uint64_t a = cursors.Save("key:a");
  const uint64_t b = cursors.Save("key:b");
  EXPECT_NE(a, 0u);
  EXPECT_NE(b, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(cursors.Find(a), "key:a");
  EXPECT_EQ(cursors.Find(b), "key:b");
  EXPECT_EQ(cursors.Find(0), std::nullopt);
}

TEST(ScanCursorsTest, EachRunHandsOutOtherNumbers) {
  // Two runs (one before a restart, one after) share no cursor: the old run's cursor is
  // unknown to the new one, and restarts its scan.
  ScanCursors before;
  ScanCursors after;
  const uint64_t kept = before.Save("key:b");
  EXPECT_NE(after.Save("key:t"), kept);
  EXPECT_EQ(after.Find(kept), std::nullopt);
  EXPECT_LT(kept, uint64_t{1} << 53);  // exact as a JavaScript number
}

TEST(ScanCursorsTest, OnlyTheLatestCursorsAreKept) {
  ScanCursors cursors;
  const uint64_t first = cursors.Save("first");
  for (size_t i = 0; i < ScanCursors::kCapacity; ++i) cursors.Save("k");
  EXPECT_EQ(cursors.Find(first), std::nullopt);
}

}  // namespace
}  // namespace sluice::server
