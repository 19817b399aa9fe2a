#include "storage/background_events.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <memory>
#include <string>

#include "temp_dir.h"
#include "tests/unit/eventually.h"

namespace sluice::storage {
namespace {

using sluice::testing::Eventually;

// A RocksDB whose background work is paused: memtables fill and are never flushed, until
// writes stop. Writes pass no_slowdown, so a stopped one fails (Incomplete) instead of waiting.
class PausedDb {
 public:
  explicit PausedDb(std::shared_ptr<BackgroundEventListener> listener) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 64 << 10;  // RocksDB's smallest
    options.max_write_buffer_number = 2;   // two memtables waiting for a flush stop writes
    options.listeners.push_back(std::move(listener));
    rocksdb::DB* db = nullptr;
    const rocksdb::Status s = rocksdb::DB::Open(options, dir_.path() + "/db", &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
    paused_ = db_ != nullptr && db_->PauseBackgroundWork().ok();
    EXPECT_TRUE(paused_);
  }
  ~PausedDb() { Continue(); }

  // Lets the flushes run again.
  void Continue() {
    if (paused_) {
      EXPECT_TRUE(db_->ContinueBackgroundWork().ok());
    }
    paused_ = false;
  }

  // Writes 1 KB values until a write fails; returns how it failed (ok if `limit` were taken).
  rocksdb::Status WriteUntilRefused(int limit) {
    rocksdb::WriteOptions no_wait;
    no_wait.no_slowdown = true;
    const std::string value(1024, 'v');
    for (int i = 0; i < limit; ++i) {
      const rocksdb::Status s = db_->Put(no_wait, "key" + std::to_string(i), value);
      if (!s.ok()) return s;
    }
    return rocksdb::Status::OK();
  }

  rocksdb::DB& db() { return *db_; }

 private:
  testing::TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  bool paused_ = false;
};

TEST(BackgroundEventListenerTest, CountsAStopOnceAndNothingBeforeIt) {
  auto listener = std::make_shared<BackgroundEventListener>();
  PausedDb db(listener);
  EXPECT_EQ(listener->stops(), 0u);
  // A memtable of 64 KB holds about 60 such values: the second full one stops writes.
  const rocksdb::Status refused = db.WriteUntilRefused(1000);
  ASSERT_TRUE(refused.IsIncomplete()) << refused.ToString();
  EXPECT_EQ(listener->stops(), 1u);
  EXPECT_EQ(listener->delays(), 0u);

  // The flushes run again: writes are taken, and the end of the stop is no new stop.
  db.Continue();
  ASSERT_TRUE(db.db().Flush(rocksdb::FlushOptions()).ok());
  EXPECT_TRUE(db.db().Put(rocksdb::WriteOptions(), "after", "1").ok());
  EXPECT_EQ(listener->stops(), 1u);
}

TEST(BackgroundEventListenerTest, CountsEachFlushAndCompactionAsItEnds) {
  auto listener = std::make_shared<BackgroundEventListener>();
  PausedDb db(listener);
  db.Continue();
  EXPECT_EQ(listener->flushes(), 0u);
  // Two flushes leave two L0 files; compacting the whole range merges them (a single file
  // could be moved down without a compaction job).
  for (const char* value : {"1", "2"}) {
    ASSERT_TRUE(db.db().Put(rocksdb::WriteOptions(), "key", value).ok());
    ASSERT_TRUE(db.db().Flush(rocksdb::FlushOptions()).ok());  // waits for the flush
  }
  // RocksDB may return from a flush before its listeners have run (the callbacks follow on
  // the flush thread, after the result is installed).
  EXPECT_TRUE(Eventually([&] { return listener->flushes() == 2u; }));
  EXPECT_EQ(listener->compactions(), 0u);
  ASSERT_TRUE(db.db().CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  EXPECT_EQ(listener->compactions(), 1u);
  EXPECT_EQ(listener->flushes(), 2u);
  EXPECT_EQ(listener->stops(), 0u);
}

}  // namespace
}  // namespace sluice::storage
