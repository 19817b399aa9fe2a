// server/metrics/database_keys.h: INFO keyspace's figures. A small database is counted
// exactly, a large one estimated; a database a FLUSHALL emptied is counted, although RocksDB's
// estimate still counts the removed keys.

#include "server/metrics/database_keys.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "storage/engine.h"
#include "tests/unit/storage/temp_dir.h"

namespace sluice::server {
namespace {

constexpr int64_t kStartMs = 1700000000000;

class DatabaseKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::EngineOptions options;
    options.dir = dir_.path() + "/db";
    auto opened = storage::Engine::Open(options, &clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    engine_ = std::move(*opened);
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

TEST_F(DatabaseKeysTest, AfterAFlushAllOfALargeDatabaseTheFewKeysLeftAreCounted) {
  // RocksDB's estimate ignores the flush's range deletion and still counts the 50,000 removed
  // keys: judging by it alone would report them.
  PutKeys(50000);
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(false).ok());
  PutKeys(2);
  ASSERT_GT(engine_->GetKeyspaceIntProperty("rocksdb.estimate-num-keys"), 40000u);
  std::vector<DatabaseKeys> keys = Read();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_FALSE(keys[0].estimated);
  EXPECT_EQ(keys[0].counts.keys, 2u);
  EXPECT_EQ(keys[0].counts.expires, 1u);
}

}  // namespace
}  // namespace sluice::server
