#include "storage/background_errors.h"

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

TEST(BackgroundErrorListenerTest, ClearIfNoneSinceKeepsAnErrorRecordedMeanwhile) {
  BackgroundErrorListener listener;
  listener.Set("RocksDB flush failed: no space");
  const uint64_t before_resume = listener.Generation();
  // What RocksDB does inside a successful Resume: it reports the recovery...
  listener.Clear();
  EXPECT_TRUE(listener.Current().ok());
  // ... and a write on the loop thread fails again before Resume returns.
  listener.Set("RocksDB write failed: no space");
  listener.ClearIfNoneSince(before_resume);
  EXPECT_EQ(listener.Current().message(), "RocksDB write failed: no space");
}

TEST(BackgroundErrorListenerTest, ClearIfNoneSinceClearsWhenNothingNewCame) {
  BackgroundErrorListener listener;
  listener.Set("RocksDB compaction failed: no space");
  const uint64_t before_resume = listener.Generation();
  listener.ClearIfNoneSince(before_resume);
  EXPECT_TRUE(listener.Current().ok());
  // An error after the clear is recorded as usual.
  listener.Set("RocksDB flush failed: I/O error");
  EXPECT_FALSE(listener.Current().ok());
}

// The dispatcher asks HasError() before every write and builds Current()'s Status only when
// it says yes: the two must agree through every change.
TEST(BackgroundErrorListenerTest, HasErrorFollowsCurrent) {
  BackgroundErrorListener listener;
  EXPECT_FALSE(listener.HasError());
  listener.Set("RocksDB flush failed: no space");
  EXPECT_TRUE(listener.HasError());
  listener.Clear();
  EXPECT_FALSE(listener.HasError());
  listener.Set("RocksDB write failed: no space");
  const uint64_t before_resume = listener.Generation();
  listener.Set("RocksDB write failed: I/O error");
  listener.ClearIfNoneSince(before_resume);
  EXPECT_TRUE(listener.HasError());
  listener.ClearIfNoneSince(listener.Generation());
  EXPECT_FALSE(listener.HasError());
  EXPECT_TRUE(listener.Current().ok());
}

}  // namespace
}  // namespace sluice::storage
