#include "storage/background_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace sluice::storage {
namespace {

constexpr auto kPatience = std::chrono::seconds(10);

TEST(BackgroundWorkerTest, RunsTheWorkThenReportsOnItsOwnThread) {
  BackgroundWorker worker;
  std::promise<std::thread::id> worked_on;
  std::promise<std::pair<Status, std::thread::id>> reported;
  ASSERT_TRUE(worker.Start(
      [&] {
        worked_on.set_value(std::this_thread::get_id());
        return IoError("from the work");
      },
      [&](Status status) {
        reported.set_value({std::move(status), std::this_thread::get_id()});
      }));
  std::future<std::pair<Status, std::thread::id>> result = reported.get_future();
  ASSERT_EQ(result.wait_for(kPatience), std::future_status::ready);
  auto [status, reporter] = result.get();
  EXPECT_EQ(status.message(), "from the work");
  EXPECT_NE(reporter, std::this_thread::get_id());
  EXPECT_EQ(reporter, worked_on.get_future().get());
}

TEST(BackgroundWorkerTest, RefusesNewWorkUntilTheWorkReturnsThenIsFreeBeforeTheReport) {
  BackgroundWorker worker;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<bool> start_from_report;
  std::promise<void> second_ran;
  ASSERT_TRUE(worker.Start(
      [&] {
        released.wait();
        return Status::Ok();
      },
      [&](const Status&) {
        // Free already: the report may start the next run (the loop it posts to does).
        start_from_report.set_value(worker.Start(
            [&] {
              second_ran.set_value();
              return Status::Ok();
            },
            [](const Status&) {}));
      }));
  EXPECT_TRUE(worker.Busy());
  EXPECT_FALSE(worker.Start([] { return Status::Ok(); },
                            [](const Status&) { ADD_FAILURE() << "refused work reported"; }));
  release.set_value();
  std::future<bool> started = start_from_report.get_future();
  ASSERT_EQ(started.wait_for(kPatience), std::future_status::ready);
  EXPECT_TRUE(started.get());
  EXPECT_EQ(second_ran.get_future().wait_for(kPatience), std::future_status::ready);
}

// Destroyed right after Start (before its thread may even have woken): the work still runs.
TEST(BackgroundWorkerTest, DestructionFinishesTheWorkAskedFor) {
  bool worked = false;
  bool reported = false;
  {
    BackgroundWorker worker;
    ASSERT_TRUE(worker.Start(
        [&] {
          worked = true;
          return Status::Ok();
        },
        [&](const Status& status) { reported = status.ok(); }));
  }
  EXPECT_TRUE(worked);
  EXPECT_TRUE(reported);
}

}  // namespace
}  // namespace sluice::storage
