// Databases (SELECT): each has its own keys, counts, FLUSHDB and expiry; sub-entries are shared.

#include <gtest/gtest.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"
#include "tests/unit/eventually.h"

namespace sluice::storage::testing {
namespace {

TEST_F(EngineDatabasesTest, KeysOfOneDatabaseAreNotSeenInAnother) {
  PutAndCommit("k", StringRecord("zero"));
  Select(2);
  EXPECT_EQ(Value("k"), std::nullopt);
  PutAndCommit("k", StringRecord("two"));
  PutAndCommit("only-in-2", StringRecord("x"));
  EXPECT_EQ(Value("k"), "two");
  EXPECT_EQ(Keys(), 2u);
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
  EXPECT_EQ(Value("only-in-2"), std::nullopt);
  EXPECT_EQ(Keys(), 1u);
  StatusOr<std::vector<std::string>> keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::vector<std::string>{"k"});
  EXPECT_EQ(engine_->Databases(), (std::vector<int>{0, 2}));
}

TEST_F(EngineDatabasesTest, StagedWritesBelongToTheirDatabase) {
  engine_->Put("k", StringRecord("zero"));
  Select(1);
  EXPECT_EQ(Value("k"), std::nullopt);  // staged in database 0 only
  engine_->Put("k", StringRecord("one"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(Value("k"), "one");
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
}

TEST_F(EngineDatabasesTest, DatabasesSurviveARestart) {
  Select(3);
  PutAndCommit("k", StringRecord("three"));
  Reopen();
  EXPECT_EQ(engine_->database(), 0);
  EXPECT_EQ(engine_->Databases(), (std::vector<int>{0, 3}));
  EXPECT_EQ(Value("k"), std::nullopt);
  Select(3);
  EXPECT_EQ(Value("k"), "three");
}

TEST_F(EngineDatabasesTest, AnIndexOutOfRangeIsRefusedAndChangesNothing) {
  Select(1);
  EXPECT_FALSE(engine_->SelectDatabase(4).ok());
  EXPECT_FALSE(engine_->SelectDatabase(-1).ok());
  EXPECT_EQ(engine_->database(), 1);
  EXPECT_EQ(engine_->Databases(), (std::vector<int>{0, 1}));
}

TEST_F(EngineDatabasesTest, OpeningWithTooFewDatabasesFailsClearly) {
  Select(3);
  PutAndCommit("k", StringRecord("three"));
  engine_.reset();
  EngineOptions options = Options();
  options.databases = 2;
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(options, &clock_);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("database 3"), std::string::npos)
      << opened.status().message();
}

TEST_F(EngineDatabasesTest, FlushDatabaseWipesTheSelectedOneAndKeepsWhatOthersStaged) {
  PutAndCommit("a", StringRecord("zero"));
  Select(1);
  PutAndCommit("a", StringRecord("one"));
  engine_->Put("b", StringRecord("staged in 1"));
  Select(2);
  engine_->Put("c", StringRecord("staged in 2"));
  Select(1);
  engine_->FlushDatabase();
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_FALSE(engine_->HasStagedWrites());
  EXPECT_EQ(Keys(), 0u);
  Select(2);
  EXPECT_EQ(Value("c"), "staged in 2");
  Select(0);
  EXPECT_EQ(Value("a"), "zero");
  Reopen();  // the kept write went to the WAL with the wipe
  Select(2);
  EXPECT_EQ(Value("c"), "staged in 2");
  Select(1);
  EXPECT_EQ(Keys(), 0u);
}

// A test suite's FLUSHALLs seal the key space's memtable now and then, each seal starting a
// WAL file; a database nobody writes to must not keep them all (RocksDB keeps a WAL file until
// every family has flushed what it holds of it).
TEST_F(EngineDatabasesTest, AnIdleDatabaseKeepsNoTrailOfWalFiles) {
  Select(1);
  PutAndCommit("idle", StringRecord("x"));
  Select(0);
  for (int i = 0; i < 400; ++i) {
    PutAndCommit("k", StringRecord("v"));
    engine_->FlushDatabase();
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
  auto wal_files = [&] {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path() + "/db")) {
      n += entry.path().extension() == ".log";
    }
    return n;
  };
  // One WAL file in use, and the ones whose flushes have not ended yet.
  EXPECT_TRUE(sluice::testing::Eventually([&] { return wal_files() <= 2; })) << wal_files();
  Select(1);
  EXPECT_EQ(Value("idle"), "x");
}

TEST_F(EngineDatabasesTest, FlushAllWipesEveryDatabase) {
  PutAndCommit("a", StringRecord("zero"));
  Select(1);
  PutAndCommit("a", StringRecord("one"));
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(Keys(), 0u);
  Select(0);
  EXPECT_EQ(Keys(), 0u);
  PutAndCommit("a", StringRecord("again"));  // writes after a wipe are not lost in a restart
  Reopen();
  EXPECT_EQ(Value("a"), "again");
}

// MOVE keeps a composite key's metadata, version included: its elements stay where they are,
// and compaction must find their owner in the other database.
TEST_F(EngineDatabasesTest, SubEntriesStayWhileTheirOwnerLivesInAnyDatabase) {
  const uint64_t version = engine_->NextVersion();
  const Record hash = CompositeRecord(KeyType::kHash, version, 1);
  engine_->Put("h", hash);
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "f"), "v");
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->Delete("h");
  Select(1);
  engine_->Put("h", hash);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
  // A key of the same name in database 0 with another version does not keep them either way.
  Select(0);
  PutAndCommit("h", CompositeRecord(KeyType::kHash, engine_->NextVersion(), 0));
  Select(1);
  engine_->Delete("h");
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(EngineDatabasesTest, TheActiveCycleSweepsEveryDatabase) {
  for (int db : {0, 1, 3}) {
    Select(db);
    for (int i = 0; i < 5; ++i) {
      engine_->Put("k" + std::to_string(i), StringRecord("v", NowMs() + 10));
    }
    engine_->Put("live", StringRecord("v"));
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
  Select(2);  // a database with no keys
  AdvanceMs(20);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 1000, 1000), 15u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // drops the swept records
  for (int db : {0, 1, 3}) {
    Select(db);
    EXPECT_EQ(RawEntries(), 1u) << "database " << db;
  }
  // In small steps, too: a step goes on where the last one stopped, database after database.
  for (int db : {0, 1, 3}) {
    Select(db);
    for (int i = 0; i < 5; ++i) {
      engine_->Put("k" + std::to_string(i), StringRecord("v", NowMs() + 10));
    }
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
  AdvanceMs(20);
  size_t expired = 0;
  for (int step = 0; step < 10; ++step) expired += engine_->ActiveExpireStep(NowMs(), 2, 100);
  EXPECT_EQ(expired, 15u);
}

TEST_F(EngineDatabasesTest, SwappedDatabasesTradeTheirKeysForGood) {
  PutAndCommit("k", StringRecord("zero"));
  Select(2);
  PutAndCommit("k", StringRecord("two"));
  engine_->Put("staged", StringRecord("staged in 2"));
  ASSERT_TRUE(engine_->SwapDatabases(0, 2).ok());
  EXPECT_EQ(engine_->database(), 2);  // the selected index stays, and names the other keys
  EXPECT_EQ(Value("k"), "zero");
  EXPECT_EQ(Value("staged"), std::nullopt);
  ASSERT_TRUE(engine_->Commit(false).ok());
  Select(0);
  EXPECT_EQ(Value("k"), "two");
  EXPECT_EQ(Value("staged"), "staged in 2");  // the staged write went with its keys
  // With a database that had no keys yet: it gets them, and the other is empty.
  ASSERT_TRUE(engine_->SwapDatabases(0, 3).ok());
  EXPECT_EQ(Keys(), 0u);
  ASSERT_TRUE(engine_->Commit(false).ok());  // the swap is a write: for good once committed
  Reopen();
  EXPECT_EQ(engine_->Databases(), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(Keys(), 0u);
  Select(2);
  EXPECT_EQ(Value("k"), "zero");
  Select(3);
  EXPECT_EQ(Value("k"), "two");
  // A database made after the swap holds its own keys across a restart too.
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  Reopen();
  Select(1);
  EXPECT_EQ(Value("k"), "one");
  EXPECT_FALSE(engine_->SwapDatabases(0, 4).ok());
  EXPECT_TRUE(engine_->SwapDatabases(1, 1).ok());
  EXPECT_EQ(Value("k"), "one");
}

// SWAPDB's record of which family holds which database is a write like the others: it reaches
// the log with the batch it was staged in (a transaction's, a script's), or not at all.
TEST_F(EngineDatabasesTest, ASwapThatIsNotCommittedIsNotThereAfterARestart) {
  PutAndCommit("k", StringRecord("zero"));
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  engine_->Put("staged", StringRecord("with the swap"));
  ASSERT_TRUE(engine_->SwapDatabases(0, 1).ok());
  EXPECT_EQ(Value("k"), "zero");
  Reopen();  // as kill -9 before the batch's commit: none of it is there
  EXPECT_EQ(Value("k"), "zero");
  Select(1);
  EXPECT_EQ(Value("k"), "one");
  EXPECT_EQ(Value("staged"), std::nullopt);
}

TEST_F(EngineDatabasesTest, ADiscardedSwapIsUndone) {
  PutAndCommit("k", StringRecord("zero"));
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  ASSERT_TRUE(engine_->SwapDatabases(0, 1).ok());
  EXPECT_EQ(Value("k"), "zero");
  engine_->DiscardStaged();  // what the server does when the batch's commit fails
  EXPECT_EQ(Value("k"), "one");
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
  Reopen();
  EXPECT_EQ(Value("k"), "zero");
  // A swap committed later, with the batch it was staged in, is there for good.
  ASSERT_TRUE(engine_->SwapDatabases(0, 1).ok());
  engine_->Put("staged", StringRecord("with the swap"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->DiscardStaged();  // nothing left to undo
  EXPECT_EQ(Value("k"), "one");
  Reopen();
  EXPECT_EQ(Value("k"), "one");
  EXPECT_EQ(Value("staged"), "with the swap");
}

// Every database's records are cached, apart: a second read of a key in database 1 asks
// RocksDB nothing, and reads follow commits, deletes, FLUSHDB and SWAPDB in every database.
TEST_F(EngineDatabasesTest, TheRecordCacheServesEveryDatabaseApart) {
  PutAndCommit("k", StringRecord("zero"));
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  EXPECT_EQ(Value("k"), "one");
  const rocksdb::PerfLevel level = rocksdb::GetPerfLevel();
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  EXPECT_EQ(Value("k"), "one");
  EXPECT_EQ(Value("absent"), std::nullopt);
  EXPECT_EQ(Value("absent"), std::nullopt);
  const uint64_t gets = rocksdb::get_perf_context()->get_from_memtable_count;
  rocksdb::SetPerfLevel(level);
  EXPECT_EQ(gets, 1u);  // only the first read of "absent"
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
  Select(1);
  engine_->Delete("k");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(Value("k"), std::nullopt);
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
  Select(1);
  PutAndCommit("k", StringRecord("one again"));
  ASSERT_TRUE(engine_->SwapDatabases(0, 1).ok());
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(Value("k"), "zero");
  Select(0);
  EXPECT_EQ(Value("k"), "one again");
  engine_->FlushDatabase();
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(Value("k"), std::nullopt);
  Select(1);
  EXPECT_EQ(Value("k"), "zero");
}

}  // namespace
}  // namespace sluice::storage::testing
