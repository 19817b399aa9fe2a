// Large hash tables are freed off the calling thread (common/background_free.h).

#include "common/background_free.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "common/pointer_hash_index.h"
#include "tests/unit/eventually.h"

namespace sluice {
namespace {

TEST(BackgroundFreeTest, QueuedBlocksAreFreed) {
  const uint64_t before = BackgroundFreesQueued();
  for (int i = 0; i < 10; ++i) FreeInBackground(std::malloc(size_t{4} << 20));
  FreeInBackground(nullptr);  // nothing to do
  EXPECT_EQ(BackgroundFreesQueued(), before + 10);
  // The thread takes every block queued (and frees it: a double or a bad free would fail the
  // sanitizers' build).
  EXPECT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
}

struct Item {
  uint64_t hash;
};

// A table of 1 MB or more goes to the background thread when a growth has moved out of it;
// the small ones before it are freed in place.
TEST(BackgroundFreeTest, AGrownIndexHandsItsLargeOldTablesOff) {
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
