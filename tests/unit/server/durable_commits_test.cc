// Replies under appendfsync always wait for the commits before them to be on disk: who waits,
// who is woken by which sync, and who gives up when a sync fails beyond repair.

#include "server/durable_commits.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>

namespace sluice::server {
namespace {

namespace asio = boost::asio;

class DurableCommitsTest : public ::testing::Test {
 protected:
  // Starts a reply's wait for every commit so far; its outcome lands in the returned slot.
  std::shared_ptr<std::optional<bool>> Wait() {
    auto outcome = std::make_shared<std::optional<bool>>();
    asio::co_spawn(io_, commits_.WaitUntilDurable(commits_.committed()),
                   [outcome](std::exception_ptr, bool durable) { *outcome = durable; });
    Run();
    return outcome;
  }
  void Run() {
    io_.restart();
    io_.poll();
  }

  asio::io_context io_;
  DurableCommits commits_{io_.get_executor()};
};

TEST_F(DurableCommitsTest, NothingCommittedIsSettled) {
  EXPECT_TRUE(commits_.AllSettled());
  EXPECT_EQ(*Wait(), true);
}

TEST_F(DurableCommitsTest, AReplyWaitsForASyncCoveringEveryCommitBeforeIt) {
  commits_.NoteCommitted();
  commits_.NoteCommitted();
  EXPECT_FALSE(commits_.AllSettled());
  auto reply = Wait();
  EXPECT_FALSE(reply->has_value());
  commits_.MarkDurable(1);  // a sync that started between the two commits
  Run();
  EXPECT_FALSE(reply->has_value());
  commits_.MarkDurable(2);
  Run();
  EXPECT_EQ(*reply, true);
  EXPECT_TRUE(commits_.AllSettled());
}

TEST_F(DurableCommitsTest, RepliesOfLaterCommitsWaitForTheNextSync) {
  commits_.NoteCommitted();
  auto first = Wait();
  commits_.NoteCommitted();  // while the first sync runs
  auto second = Wait();
  commits_.MarkDurable(1);
  Run();
  EXPECT_EQ(*first, true);
  EXPECT_FALSE(second->has_value());
  commits_.MarkDurable(2);
  Run();
  EXPECT_EQ(*second, true);
}

TEST_F(DurableCommitsTest, AbandonedCommitsFailTheirWaitersButNotLaterReplies) {
  commits_.NoteCommitted();
  auto waiting = Wait();
  commits_.Abandon(1);
  Run();
  EXPECT_EQ(*waiting, false);
  // A reply written afterwards does not wait for what was given up...
  EXPECT_TRUE(commits_.AllSettled());
  EXPECT_EQ(*Wait(), true);
  // ...but does for a commit made since.
  commits_.NoteCommitted();
  auto later = Wait();
  EXPECT_FALSE(later->has_value());
  commits_.MarkDurable(2);
  Run();
  EXPECT_EQ(*later, true);
}

TEST_F(DurableCommitsTest, AnOlderMarkChangesNothing) {
  commits_.NoteCommitted();
  commits_.NoteCommitted();
  commits_.MarkDurable(2);
  commits_.MarkDurable(1);  // a late report of an earlier sync
  EXPECT_TRUE(commits_.AllSettled());
  commits_.Abandon(1);  // long since durable
  EXPECT_EQ(*Wait(), true);
}

}  // namespace
}  // namespace sluice::server
