#include "storage/wal_syncer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "temp_dir.h"

namespace sluice::storage {
namespace {

using testing::TempDir;

constexpr auto kPatience = std::chrono::seconds(10);

std::filesystem::path Path(const TempDir& dir) { return dir.path(); }
void WriteFile(const std::filesystem::path& path) { std::ofstream(path) << "bytes"; }

TEST(WalSyncerTest, SyncsOnItsOwnThreadAndReportsThere) {
  TempDir dir;
  WriteFile(Path(dir) / "000007.log");
  WriteFile(Path(dir) / "LOG");
  WalSyncer syncer(dir.path());
  std::promise<std::pair<Status, std::thread::id>> reported;
  ASSERT_TRUE(syncer.Start([&](Status status) {
    reported.set_value({std::move(status), std::this_thread::get_id()});
  }));
  std::future<std::pair<Status, std::thread::id>> result = reported.get_future();
  ASSERT_EQ(result.wait_for(kPatience), std::future_status::ready);
  auto [status, thread] = result.get();
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_NE(thread, std::this_thread::get_id());
}

TEST(WalSyncerTest, OneSyncAtATime) {
  TempDir dir;
  WriteFile(Path(dir) / "000001.log");
  WalSyncer syncer(dir.path());
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_done;
  ASSERT_TRUE(syncer.Start([&](const Status&) {
    released.wait();  // the report is part of the sync: still under way
    first_done.set_value();
  }));
  EXPECT_FALSE(syncer.Start([](const Status&) { ADD_FAILURE() << "a refused sync reported"; }));
  release.set_value();
  ASSERT_EQ(first_done.get_future().wait_for(kPatience), std::future_status::ready);

  // Once it is over, the next one starts (the flag clears just after the report returns).
  std::promise<Status> second;
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  bool started = false;
  while (!started && std::chrono::steady_clock::now() < deadline) {
    started = syncer.Start([&](Status status) { second.set_value(std::move(status)); });
    if (!started) std::this_thread::yield();
  }
  ASSERT_TRUE(started);
  std::future<Status> result = second.get_future();
  ASSERT_EQ(result.wait_for(kPatience), std::future_status::ready);
  EXPECT_TRUE(result.get().ok());
}

TEST(WalSyncerTest, ReportsADirectoryItCannotList) {
  TempDir dir;
  WalSyncer syncer((Path(dir) / "missing").string());
  std::promise<Status> reported;
  ASSERT_TRUE(syncer.Start([&](Status status) { reported.set_value(std::move(status)); }));
  std::future<Status> result = reported.get_future();
  ASSERT_EQ(result.wait_for(kPatience), std::future_status::ready);
  Status status = result.get();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("missing"), std::string::npos) << status.message();
}

// Destroyed right after Start (before its thread may even have woken): the sync still runs.
TEST(WalSyncerTest, DestructionFinishesTheSyncAskedFor) {
  TempDir dir;
  WriteFile(Path(dir) / "000001.log");
  bool reported = false;
  {
    WalSyncer syncer(dir.path());
    ASSERT_TRUE(syncer.Start([&](const Status& status) { reported = status.ok(); }));
  }
  EXPECT_TRUE(reported);
}

}  // namespace
}  // namespace sluice::storage
