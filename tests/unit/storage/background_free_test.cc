// Large hash tables are freed off the calling thread (common/background_free.h).

#include "common/background_free.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/pointer_hash_index.h"
#include "tests/unit/eventually.h"

namespace sluice {
namespace {

TEST(BackgroundFreeTest, QueuedBlocksAreFreed) {
  ASSERT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
  const uint64_t before = BackgroundFreesQueued();
  for (int i = 0; i < 10; ++i) FreeInBackground(std::malloc(size_t{4} << 20));
  FreeInBackground(nullptr);  // nothing to do
  EXPECT_EQ(BackgroundFreesQueued(), before + 10);
  // The thread takes every block queued (and frees it: a double or a bad free would fail the
  // sanitizers' build).
  EXPECT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
}

// What the thread does before each free: the block's whole pages go back, its first bytes
// (sharing a page with the allocator's header) stay.
TEST(BackgroundFreeTest, DropPagesGivesTheBlocksWholePagesBack) {
  constexpr size_t kBytes = size_t{4} << 20;
  auto* block = static_cast<unsigned char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 0xAB, kBytes);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t dropped = DropPages(block);
  EXPECT_GE(dropped, kBytes - 2 * page);
  EXPECT_LE(dropped, kBytes);
  EXPECT_EQ(block[kBytes / 2], 0) << "a dropped page reads as zeros";
  const size_t lead = (page - reinterpret_cast<uintptr_t>(block) % page) % page;
  if (lead > 0) EXPECT_EQ(block[lead - 1], 0xAB) << "the bytes before the first whole page";
  std::free(block);
  EXPECT_EQ(DropPages(nullptr), 0u);
}

struct Item {
  uint64_t hash;
};

// A table of 1 MB or more goes to the background thread when a growth has moved out of it;
// the small ones before it are freed in place.
TEST(BackgroundFreeTest, AGrownIndexHandsItsLargeOldTablesOff) {
  // Tasks other tests queued may queue the tables they free from that thread.
  ASSERT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
  PointerHashIndex<Item> index;
  std::vector<Item> items(100000);
  const uint64_t before = BackgroundFreesQueued();
  for (size_t k = 0; k < items.size(); ++k) {
    items[k].hash = k * 0x9E3779B97F4A7C15ull;
    index.Reserve(index.size() + 1);
    index.Insert(index.Probe(items[k].hash, [](Item*) { return false; }), items[k].hash,
                 &items[k]);
  }
  index.FinishMoving();
  // Tables of 1,024 to 131,072 buckets of 16 bytes were left behind: only the 65,536- and
  // 131,072-bucket ones (1 and 2 MB) were large enough; the one in use is still held.
  EXPECT_EQ(index.bucket_count(), 262144u);
  EXPECT_EQ(BackgroundFreesQueued(), before + 2) << "the 1 MB and 2 MB tables";
  index.Clear();
  EXPECT_EQ(BackgroundFreesQueued(), before + 3) << "and the 4 MB one";
  EXPECT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
}

}  // namespace
}  // namespace sluice
