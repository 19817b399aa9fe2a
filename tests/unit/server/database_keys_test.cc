// server/metrics/database_keys.h: INFO keyspace's figures. A small database is counted
// exactly; a large one is estimated, without the exact count's read of 10,000 records first
// when RocksDB's own estimate already puts it far past that (5 ms of the loop per INFO, which
// monitoring agents send every few seconds and ioredis at every connect).

#include "server/metrics/database_keys.h"

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

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

  // KeysPerDatabase, and how many steps RocksDB's iterators took in the memtable for it.
  std::vector<DatabaseKeys> Read(uint64_t* nexts) {
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    std::vector<DatabaseKeys> keys = KeysPerDatabase(*engine_, kStartMs);
    *nexts = rocksdb::get_perf_context()->next_on_memtable_count;
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    return keys;
  }

  storage::testing::TempDir dir_;
  ManualClock clock_{kStartMs * 1000};
  std::unique_ptr<storage::Engine> engine_;
};

TEST_F(DatabaseKeysTest, ASmallDatabaseIsCountedExactly) {
  PutKeys(101);
  uint64_t nexts = 0;
  std::vector<DatabaseKeys> keys = Read(&nexts);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_FALSE(keys[0].estimated);
  EXPECT_EQ(keys[0].counts.keys, 101u);
  EXPECT_EQ(keys[0].counts.expires, 50u);
}

TEST_F(DatabaseKeysTest, ALargeDatabaseIsEstimatedWithoutACountFirst) {
  PutKeys(50000);  // in the memtable
  uint64_t nexts = 0;
  std::vector<DatabaseKeys> keys = Read(&nexts);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_TRUE(keys[0].estimated);
  EXPECT_NEAR(static_cast<double>(keys[0].counts.keys), 50000, 5000);
  // The estimate's sample alone: 16 records at each of at most 128 points.
  EXPECT_LE(nexts, 128u * 16);
}

}  // namespace
}  // namespace sluice::server
