// server/metrics/database_keys.h: INFO keyspace's figures. A small database is counted
// exactly, a large one estimated, a very large one without a count first; a database a
// FLUSHALL emptied is counted, although RocksDB's estimate still counts the removed keys, until
// compaction has dropped the flush's range deletion.

#include "server/metrics/database_keys.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "storage/engine.h"
#include "tests/unit/eventually.h"
#include "tests/unit/storage/temp_dir.h"

namespace sluice::server {
namespace {

constexpr int64_t kStartMs = 1700000000000;
// Enough records for INFO to take RocksDB's estimate without counting first.
constexpr int kVeryLarge = 120000;

// How many steps RocksDB's iterators took through memtables while `read` ran.
uint64_t MemtableSteps(const std::function<void()>& read) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  read();
  const uint64_t steps = rocksdb::get_perf_context()->next_on_memtable_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  return steps;
}

class DatabaseKeysTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    storage::EngineOptions options;
    options.dir = dir_.path() + "/db";
    // Most tests look at what a FLUSHALL leaves until compaction drops it.
    options.compact_after_wipe = compact_after_wipe_;
    options.before_queued_compaction = before_queued_compaction_;
    options.databases = 2;
    auto opened = storage::Engine::Open(options, &clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    engine_ = std::move(*opened);
  }

  // Closes the engine without a flush and opens it again: the WAL's replay goes into a file.
  void Reopen() {
    engine_.reset();
    Open();
  }

  // FLUSHALL of every key, then two keys of which one has an expiry.
  void FlushAllButTwo() {
    engine_->FlushAll();
    ASSERT_TRUE(engine_->Commit(false).ok());
    PutKeys(2);
    ASSERT_GT(engine_->GetKeyspaceIntProperty("rocksdb.estimate-num-keys"), 110000u);
  }

  // The one database's figures are RocksDB's estimate of kVeryLarge keys, reached without a
  // count: with the keys in the memtable, a count would step through it 10,000 times.
  void ExpectEstimatedWithoutACount() {
    ASSERT_GT(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 20000u);
    std::vector<DatabaseKeys> keys;
    const uint64_t steps = MemtableSteps([&] { keys = Read(); });
    ASSERT_EQ(keys.size(), 1u);
    EXPECT_TRUE(keys[0].estimated);
    EXPECT_NEAR(static_cast<double>(keys[0].counts.keys), kVeryLarge, kVeryLarge / 10);
    EXPECT_LT(steps, 5000u);  // the estimate's sample: 64 points of 16 records
  }

  // The figures of the one database, which has exactly two keys, one with an expiry.
  void ExpectTwoKeysCounted() {
    std::vector<DatabaseKeys> keys = Read();
    ASSERT_EQ(keys.size(), 1u);
    EXPECT_FALSE(keys[0].estimated);
    EXPECT_EQ(keys[0].counts.keys, 2u);
    EXPECT_EQ(keys[0].counts.expires, 1u);
  }

  // Commits `n` keys key:<i>, every other one with an expiry an hour away.
  void PutKeys(int n) {
    for (int i = 0; i < n; ++i) {
      storage::Record record;
      record.meta.type = storage::KeyType::kString;
      record.meta.expire_at_ms = i % 2 ? kStartMs + 3600 * 1000 : 0;
      record.payload = "v";
      engine_->Put("key:" + std::to_string(i), record);
    }
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  std::vector<DatabaseKeys> Read() { return KeysPerDatabase(*engine_, kStartMs); }

  storage::testing::TempDir dir_;
  bool compact_after_wipe_ = false;
  std::function<void()> before_queued_compaction_;
  ManualClock clock_{kStartMs * 1000};
  std::unique_ptr<storage::Engine> engine_;
};

TEST_F(DatabaseKeysTest, ASmallDatabaseIsCountedExactly) {
  PutKeys(101);
  std::vector<DatabaseKeys> keys = Read();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_FALSE(keys[0].estimated);
  EXPECT_EQ(keys[0].counts.keys, 101u);
  EXPECT_EQ(keys[0].counts.expires, 50u);
}

TEST_F(DatabaseKeysTest, ALargeDatabaseIsEstimated) {
  PutKeys(50000);
  std::vector<DatabaseKeys> keys = Read();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_TRUE(keys[0].estimated);
  EXPECT_NEAR(static_cast<double>(keys[0].counts.keys), 50000, 5000);
}

TEST_F(DatabaseKeysTest, AVeryLargeDatabaseIsEstimatedWithoutACount) {
  // A count gives up past 10,000 records, but walks them first: about 2 ms of the loop for
  // each INFO, which clients such as ioredis send at every connect.
  PutKeys(kVeryLarge);
  ExpectEstimatedWithoutACount();
}

TEST_F(DatabaseKeysTest, AfterAFlushAllOfALargeDatabaseTheFewKeysLeftAreCounted) {
  // RocksDB's estimate ignores the flush's range deletion, here in a memtable, and still counts
  // the removed keys: judging by it alone would report them.
  PutKeys(kVeryLarge);
  FlushAllButTwo();
  ExpectTwoKeysCounted();
}

TEST_F(DatabaseKeysTest, AFlushAllsRangeDeletionInAFileStillKeepsTheEstimateOut) {
  PutKeys(kVeryLarge);
  FlushAllButTwo();
  Reopen();  // the replay of the WAL, range deletion included, is flushed into a file
  ASSERT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 0u);
  ASSERT_GT(engine_->GetKeyspaceIntProperty("rocksdb.estimate-num-keys"), 110000u);
  ExpectTwoKeysCounted();
}

TEST_F(DatabaseKeysTest, AFlushAllOfAVeryLargeDatabaseIsCompactedAwayInTheBackground) {
  compact_after_wipe_ = true;
  Reopen();
  PutKeys(kVeryLarge);
  engine_->FlushAll();  // flushes the keys into a level-0 file first, which it leaves
  ASSERT_TRUE(engine_->Commit(false).ok());
  PutKeys(2);
  // The file's removed keys go, and with them the range deletion: the estimate is right again.
  EXPECT_TRUE(sluice::testing::Eventually([&] {
    return engine_->GetKeyspaceIntProperty("rocksdb.estimate-num-keys") < 10 &&
           engine_->KeyEstimateIsSound();
  }));
  ExpectTwoKeysCounted();
}

TEST_F(DatabaseKeysTest, AWipeWhileAnotherIsCompactedIsCompactedToo) {
  compact_after_wipe_ = true;
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> compactions = 0;
  before_queued_compaction_ = [&, released] {
    if (compactions++ > 0) return;
    entered.set_value();
    released.wait();  // the first compaction holds until the second wipe is queued
  };
  Reopen();
  {
    storage::DatabaseScope in_1(*engine_, 1);
    PutKeys(kVeryLarge);
  }
  PutKeys(kVeryLarge);
  engine_->FlushDatabase();  // database 0's
  ASSERT_TRUE(engine_->Commit(false).ok());
  entered.get_future().wait();
  {
    storage::DatabaseScope in_1(*engine_, 1);
    engine_->FlushDatabase();  // while database 0's is under way
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
  release.set_value();
  for (int db : {0, 1}) {
    storage::DatabaseScope in_it(*engine_, db);
    EXPECT_TRUE(sluice::testing::Eventually([&] {
      return engine_->GetKeyspaceIntProperty("rocksdb.estimate-num-keys") == 0 &&
             engine_->KeyEstimateIsSound();
    })) << "database "
        << db;
  }
  engine_.reset();  // before the hook's promises go
}

TEST_F(DatabaseKeysTest, ClosingDuringAWipesCompactionLosesNothing) {
  compact_after_wipe_ = true;
  std::atomic<bool> started = false;
  before_queued_compaction_ = [&] { started = true; };
  Reopen();
  PutKeys(kVeryLarge);
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(false).ok());
  PutKeys(2);
  ASSERT_TRUE(sluice::testing::Eventually([&] { return started.load(); }));
  before_queued_compaction_ = nullptr;
  Reopen();  // while it waits for the flush or compacts: it gives up
  ExpectTwoKeysCounted();
}

TEST_F(DatabaseKeysTest, OnceCompactionDropsAFlushAllsRangeDeletionTheEstimateIsTakenAgain) {
  PutKeys(kVeryLarge);
  FlushAllButTwo();
  ASSERT_TRUE(engine_->CompactAll().ok());  // flushes the memtable with the wipe, then merges
  PutKeys(kVeryLarge);
  ExpectEstimatedWithoutACount();
}

}  // namespace
}  // namespace sluice::server
