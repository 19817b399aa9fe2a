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

// One sync at a time, and what a report may start: background_worker_test.cc.

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

}  // namespace
}  // namespace sluice::storage
