// DBSIZE's background counts: which clients each count answers, and when the next one starts.
// The counts here end when the test says so; the loop's posts run when it drains them.

#include "server/key_count_rounds.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <vector>

#include "common/clock.h"

namespace sluice::server {
namespace {

using Counts = KeyCountRounds::Counts;

class KeyCountRoundsTest : public ::testing::Test {
 protected:
  KeyCountRounds rounds_{
      [this](int db, int64_t now_ms, storage::Engine::KeyCountDone done) {
        if (refuse_start_) return false;
        started_at_ms_.push_back(now_ms);
        counted_dbs_.push_back(db);
        running_.push_back(std::move(done));
        return true;
      },
      &clock_,
      [this](uint64_t client_id, const StatusOr<Counts>& counts) {
        answers_[client_id] = counts.ok() ? static_cast<int64_t>(counts->keys) : -1;
      },
      [this](std::function<void()> work) { posted_.push_back(std::move(work)); }};

  // The count under way ends with `keys` (on "its thread"), and the loop runs what it posted.
  void FinishCount(uint64_t keys) {
    ASSERT_FALSE(running_.empty());
    auto done = std::move(running_.front());
    running_.erase(running_.begin());
    done(Counts{.keys = keys, .expires = 0});
    RunPosted();
  }
  void RunPosted() {
    for (auto& work : std::exchange(posted_, {})) work();
  }

  ManualClock clock_{5'000'000};
  bool refuse_start_ = false;
  std::vector<int64_t> started_at_ms_;
  std::vector<int> counted_dbs_;
  std::vector<storage::Engine::KeyCountDone> running_;
  std::vector<std::function<void()>> posted_;
  std::map<uint64_t, int64_t> answers_;  // client id -> keys, -1 for an error
};

TEST_F(KeyCountRoundsTest, ARequestStartsACountAndItsEndAnswers) {
  rounds_.Request(7, 0);
  ASSERT_EQ(running_.size(), 1u);
  EXPECT_EQ(started_at_ms_, std::vector<int64_t>{5'000});
  EXPECT_TRUE(answers_.empty());
  EXPECT_EQ(rounds_.waiting(), 1u);
  FinishCount(42);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{7, 42}}));
  EXPECT_EQ(rounds_.waiting(), 0u);
  EXPECT_TRUE(running_.empty());
}

// A client that asks during a count may have written after it started: it waits for the next
// one, which starts when the running one ends and answers everyone who asked meanwhile.
TEST_F(KeyCountRoundsTest, RequestsDuringACountGoWithTheNextOne) {
  rounds_.Request(1, 0);
  clock_.AdvanceMicros(1'000);
  rounds_.Request(2, 0);
  rounds_.Request(3, 0);
  EXPECT_EQ(running_.size(), 1u);  // one count at a time
  FinishCount(10);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 10}}));
  ASSERT_EQ(running_.size(), 1u);
  EXPECT_EQ(started_at_ms_, (std::vector<int64_t>{5'000, 5'001}));
  FinishCount(12);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 10}, {2, 12}, {3, 12}}));
  EXPECT_TRUE(running_.empty());
}

// The count's end reaches the loop through a post: a request between the two still waits for
// a count of its own.
TEST_F(KeyCountRoundsTest, ARequestBeforeTheEndIsPostedWaitsForTheNextCount) {
  rounds_.Request(1, 0);
  auto done = std::move(running_.front());
  running_.clear();
  done(Counts{.keys = 5, .expires = 0});  // ended on its thread, not yet seen by the loop
  rounds_.Request(2, 0);
  EXPECT_TRUE(running_.empty());
  RunPosted();
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 5}}));
  ASSERT_EQ(running_.size(), 1u);
  FinishCount(6);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 5}, {2, 6}}));
}

TEST_F(KeyCountRoundsTest, RefuseAllAnswersEveryWaitingClientAndALateEndNobody) {
  rounds_.Request(1, 0);
  rounds_.Request(2, 0);
  rounds_.RefuseAll(Err("shutting down"));
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, -1}, {2, -1}}));
  EXPECT_EQ(rounds_.waiting(), 0u);
  answers_.clear();
  FinishCount(9);
  EXPECT_TRUE(answers_.empty());
  EXPECT_TRUE(running_.empty());  // nobody waits: no next count
}

TEST_F(KeyCountRoundsTest, ACountThatCannotStartAnswersWithAnError) {
  refuse_start_ = true;
  rounds_.Request(4, 0);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{4, -1}}));
  refuse_start_ = false;
  rounds_.Request(5, 0);  // the next request starts a count again
  FinishCount(3);
  EXPECT_EQ(answers_[5], 3);
}

// A count is of one database: a client asking about another waits for a round of its own,
// and the clients of each round are those asking about its database, longest-waiting first.
TEST_F(KeyCountRoundsTest, EachRoundCountsOneDatabase) {
  rounds_.Request(1, 0);
  rounds_.Request(2, 3);
  rounds_.Request(3, 5);
  rounds_.Request(4, 3);
  FinishCount(10);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 10}}));
  FinishCount(30);
  EXPECT_EQ(answers_, (std::map<uint64_t, int64_t>{{1, 10}, {2, 30}, {4, 30}}));
  FinishCount(50);
  EXPECT_EQ(answers_[3], 50);
  EXPECT_EQ(counted_dbs_, (std::vector<int>{0, 3, 5}));
  EXPECT_EQ(rounds_.waiting(), 0u);
}

}  // namespace
}  // namespace sluice::server
