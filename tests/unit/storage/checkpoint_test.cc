// Backups: Engine::CreateCheckpoint makes an openable copy of the database under
// dir/checkpoints/<unix seconds>, keeps the newest few, and never leaves a half-made one
// under a final name. Engine::StartResume is a no-op on a healthy database.

#include "storage/checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"

namespace sluice::storage {
namespace {

namespace fs = std::filesystem;
using testing::EngineTest;
using testing::StringRecord;

class CheckpointTest : public EngineTest {
 protected:
  std::string Root() const { return Options().dir + "/checkpoints"; }

  // Opens `path` as a database of its own and returns the value of `key` (or "").
  std::string ReadFrom(const std::string& path, const std::string& key) {
    EngineOptions options = Options();
    options.dir = path;
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(options, &clock_);
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    if (!opened.ok()) return "";
    StatusOr<std::optional<Record>> got = (*opened)->Get(key, NowMs());
    EXPECT_TRUE(got.ok());
    return got.ok() && got->has_value() ? (*got)->payload : "";
  }
};

TEST_F(CheckpointTest, CheckpointHoldsEverythingCommittedAndNothingLater) {
  PutAndCommit("a", StringRecord("1"));
  PutAndCommit("b", StringRecord("2"));
  StatusOr<std::string> path = engine_->CreateCheckpoint(1700000000, 3);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, fs::absolute(Root() + "/1700000000").string());
  PutAndCommit("a", StringRecord("changed"));
  EXPECT_EQ(ReadFrom(*path, "a"), "1");
  EXPECT_EQ(ReadFrom(*path, "b"), "2");
  // The live database is untouched by the checkpoint.
  EXPECT_EQ(GetOrDie("a")->payload, "changed");
}

TEST_F(CheckpointTest, StagedWritesAreNotInTheCheckpoint) {
  PutAndCommit("a", StringRecord("1"));
  engine_->Put("staged", StringRecord("x"));
  StatusOr<std::string> path = engine_->CreateCheckpoint(1700000000, 3);
  ASSERT_TRUE(path.ok()) << path.status().message();
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(ReadFrom(*path, "staged"), "");
  EXPECT_EQ(ReadFrom(*path, "a"), "1");
}

TEST_F(CheckpointTest, SameSecondGetsASuffixAndOnlyTheNewestAreKept) {
  PutAndCommit("a", StringRecord("1"));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(engine_->CreateCheckpoint(1700000000, 2).ok());
  ASSERT_TRUE(engine_->CreateCheckpoint(1700000005, 2).ok());
  std::vector<std::string> kept = ListCheckpoints(Options().dir);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(fs::path(kept[0]).filename(), "1700000000-2");
  EXPECT_EQ(fs::path(kept[1]).filename(), "1700000005");
}

TEST_F(CheckpointTest, NamesFreedByRetentionAreNotReused) {
  PutAndCommit("a", StringRecord("1"));
  std::vector<std::string> made;
  for (int i = 0; i < 5; ++i) {
    StatusOr<std::string> path = engine_->CreateCheckpoint(1700000000, 3);
    ASSERT_TRUE(path.ok()) << path.status().message();
    made.push_back(*path);
  }
  std::vector<std::string> kept = ListCheckpoints(Options().dir);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept.back(), made.back());  // the newest is never the one deleted
  EXPECT_EQ(fs::path(made.back()).filename(), "1700000000-4");
}

TEST_F(CheckpointTest, TheNewCheckpointIsKeptEvenIfTheClockWentBack) {
  ASSERT_TRUE(engine_->CreateCheckpoint(1700000005, 1).ok());
  StatusOr<std::string> path = engine_->CreateCheckpoint(1700000000, 1);
  ASSERT_TRUE(path.ok());
  std::vector<std::string> kept = ListCheckpoints(Options().dir);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], *path);
}

TEST_F(CheckpointTest, LeftoverTemporaryDirectoryIsRemoved) {
  fs::create_directories(Root() + "/1600000000.tmp");
  ASSERT_TRUE(engine_->CreateCheckpoint(1700000000, 3).ok());
  EXPECT_FALSE(fs::exists(Root() + "/1600000000.tmp"));
  EXPECT_EQ(ListCheckpoints(Options().dir).size(), 1u);
}

TEST_F(CheckpointTest, ReopeningTheDatabaseIgnoresTheCheckpointsDirectory) {
  PutAndCommit("a", StringRecord("1"));
  ASSERT_TRUE(engine_->CreateCheckpoint(1700000000, 3).ok());
  Reopen();
  EXPECT_EQ(GetOrDie("a")->payload, "1");
  EXPECT_EQ(ListCheckpoints(Options().dir).size(), 1u);
}

TEST_F(CheckpointTest, ResumeOnAHealthyDatabaseIsOkAtOnce) {
  EXPECT_TRUE(engine_->BackgroundError().ok());
  std::optional<Status> resumed;
  EXPECT_TRUE(engine_->StartResume([&](Status status) { resumed = std::move(status); }));
  ASSERT_TRUE(resumed.has_value());
  EXPECT_TRUE(resumed->ok()) << resumed->message();
  PutAndCommit("a", StringRecord("1"));
  EXPECT_TRUE(engine_->SyncWal().ok());
}

}  // namespace
}  // namespace sluice::storage
