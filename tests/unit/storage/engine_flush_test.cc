// FLUSHALL and FLUSHDB are staged writes: reads see the wipe at once, and it reaches the log with
// its batch (a transaction's, a script's) or not at all.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

class EngineFlushTest : public EngineDatabasesTest {
 protected:
  std::vector<std::string> AllKeys() {
    StatusOr<std::vector<std::string>> keys = engine_->Keys("*", NowMs());
    EXPECT_TRUE(keys.ok());
    return keys.ok() ? *keys : std::vector<std::string>{};
  }

  // A committed hash "h" (version 7) with one field, and two strings.
  void CommitSomeKeys() {
    engine_->Put("a", StringRecord("old a"));
    engine_->Put("b", StringRecord("old b"));
    engine_->Put("h", CompositeRecord(KeyType::kHash, 7, 1));
    engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 7, "f"), "v");
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
};

TEST_F(EngineFlushTest, ReadsSeeAStagedFlushAndWhatIsStagedAfterIt) {
  CommitSomeKeys();
  ASSERT_EQ(Value("a"), "old a");  // in the record cache now
  engine_->Put("staged-before", StringRecord("x"));

  engine_->FlushAll();

  EXPECT_TRUE(engine_->HasStagedWrites());
  EXPECT_EQ(Value("a"), std::nullopt);
  EXPECT_EQ(Value("staged-before"), std::nullopt);  // superseded by the flush
  EXPECT_EQ(AllKeys(), std::vector<std::string>{});
  EXPECT_EQ(Keys(), 0u);
  StatusOr<Engine::KeyCounts> estimate = engine_->EstimateKeys();
  ASSERT_TRUE(estimate.ok());
  EXPECT_EQ(estimate->keys, 0u);
  StatusOr<ScanPage> page = engine_->Scan("", 10, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->keys.empty());
  StatusOr<std::optional<std::string>> field =
      engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 7, "f"));
  ASSERT_TRUE(field.ok());
  EXPECT_EQ(*field, std::nullopt);

  engine_->Put("b", StringRecord("new b"));
  EXPECT_EQ(Value("b"), "new b");
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"b"});
  EXPECT_EQ(Keys(), 1u);
}

TEST_F(EngineFlushTest, AStagedFlushReachesTheDiskOnlyWithItsCommit) {
  CommitSomeKeys();
  engine_->FlushAll();
  engine_->Put("b", StringRecord("new b"));
  Reopen();  // drops what is staged, as SHUTDOWN NOSAVE under a busy script
  EXPECT_EQ(Value("a"), "old a");
  EXPECT_EQ(Value("b"), "old b");
  StatusOr<std::optional<std::string>> field =
      engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 7, "f"));
  ASSERT_TRUE(field.ok());
  EXPECT_EQ(*field, "v");

  engine_->FlushAll();
  engine_->Put("b", StringRecord("new b"));
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  Reopen();
  EXPECT_EQ(AllKeys(), std::vector<std::string>{"b"});
  EXPECT_EQ(Value("b"), "new b");
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(EngineFlushTest, DiscardingAStagedFlushBringsTheKeysBack) {
  CommitSomeKeys();
  engine_->FlushAll();
  engine_->Put("c", StringRecord("c"));
  engine_->DiscardStaged();
  EXPECT_FALSE(engine_->HasStagedWrites());
  EXPECT_EQ(Value("a"), "old a");
  EXPECT_EQ(Value("c"), std::nullopt);
  EXPECT_EQ(AllKeys(), (std::vector<std::string>{"a", "b", "h"}));
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_EQ(AllKeys(), (std::vector<std::string>{"a", "b", "h"}));
}

// The batch puts its writes after the wipe's deletions: a key rewritten in the same batch as
// the flush is not hidden by them, whether the flush gave the memtable's few keys point
// deletions or flushed a memtable of many, and after the WAL replays the batch too.
TEST_F(EngineFlushTest, KeysRewrittenInTheFlushsBatchSurviveIt) {
  for (int keys : {3, 3000}) {
    for (int i = 0; i < keys; ++i) engine_->Put("key" + std::to_string(i), StringRecord("old"));
    ASSERT_TRUE(engine_->Commit(false).ok());
    engine_->FlushAll();
    for (int i = 0; i < keys; ++i) engine_->Put("key" + std::to_string(i), StringRecord("new"));
    engine_->Put("h", CompositeRecord(KeyType::kHash, 9, 1));
    engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 9, "f"), "after");
    ASSERT_TRUE(engine_->Commit(false).ok());
    EXPECT_EQ(Keys(), static_cast<uint64_t>(keys) + 1) << keys << " keys";
    Reopen();
    EXPECT_EQ(Keys(), static_cast<uint64_t>(keys) + 1) << keys << " keys";
    EXPECT_EQ(Value("key" + std::to_string(keys - 1)), "new") << keys << " keys";
    StatusOr<std::optional<std::string>> field =
        engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 9, "f"));
    ASSERT_TRUE(field.ok());
    EXPECT_EQ(*field, "after");
    engine_->FlushAll();
    ASSERT_TRUE(engine_->Commit(false).ok());
    EXPECT_EQ(RawEntries(), 0u);
  }
}

TEST_F(EngineFlushTest, AStagedFlushDatabaseHidesOnlyItsDatabase) {
  PutAndCommit("k", StringRecord("zero"));
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  engine_->Put("staged", StringRecord("one"));
  Select(2);
  engine_->Put("staged", StringRecord("two"));
  Select(1);

  engine_->FlushDatabase();

  EXPECT_EQ(Value("k"), std::nullopt);
  EXPECT_EQ(Value("staged"), std::nullopt);
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
  Select(2);
  EXPECT_EQ(Value("staged"), "two");
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  Select(1);
  EXPECT_EQ(Keys(), 0u);
  Select(2);
  EXPECT_EQ(Value("staged"), "two");
  Select(0);
  EXPECT_EQ(Value("k"), "zero");
}

// A swap after a staged flush takes the flushed key space with it.
TEST_F(EngineFlushTest, ASwapAfterAStagedFlushMovesTheWipedDatabase) {
  PutAndCommit("k", StringRecord("zero"));
  Select(1);
  PutAndCommit("k", StringRecord("one"));
  engine_->FlushDatabase();
  ASSERT_TRUE(engine_->SwapDatabases(0, 1).ok());
  EXPECT_EQ(Value("k"), "zero");
  Select(0);
  EXPECT_EQ(Value("k"), std::nullopt);
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_EQ(Value("k"), std::nullopt);
  Select(1);
  EXPECT_EQ(Value("k"), "zero");
}

// The active expiry cycle has nothing committed to expire in a wiped key space; what is staged
// after the flush is left to it once committed.
TEST_F(EngineFlushTest, TheActiveCycleSkipsAKeySpaceWipedInTheBatch) {
  PutAndCommit("gone", StringRecord("v", kStartMs + 10));
  AdvanceMs(100);
  engine_->FlushAll();
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 0u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawEntries(), 0u);
}

}  // namespace
}  // namespace sluice::storage::testing
