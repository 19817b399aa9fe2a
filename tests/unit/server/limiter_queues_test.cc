// BLOCK queues: first come first served per key, deadlines, disconnects, and the estimate
// that decides whether a request may wait at all. Time is explicit (no sleeping).

#include "server/limiter_queues.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/codec.h"
#include "common/clock.h"
#include "server/db_key.h"
#include "server/limiter_call.h"
#include "server/limiter_store.h"
#include "storage/engine.h"
#include "tests/unit/storage/temp_dir.h"

namespace sluice::server {
namespace {

using algorithms::AlgorithmTag;
using algorithms::Verdict;

constexpr int64_t kStartUs = 1700000000000LL * 1000;

std::unique_ptr<LimiterCall> FixedWindow(int64_t limit, int64_t window_ms, int64_t cost = 1) {
  std::vector<std::string> words = {std::to_string(limit), std::to_string(window_ms)};
  std::vector<std::string_view> args(words.begin(), words.end());
  auto call = MakeLimiterCall(AlgorithmTag::kFixedWindow, args, cost);
  EXPECT_TRUE(call.ok()) << call.status().message();
  return std::move(call).value();
}

class LimiterQueuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::EngineOptions options;
    options.dir = dir_.path() + "/db";
    options.databases = 2;
    auto opened = storage::Engine::Open(options, &clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    engine_ = std::move(opened).value();
    raw_engine_ = engine_.get();
    queues_ = std::make_unique<LimiterQueues>(
        &raw_engine_,
        [this](uint64_t id, const StatusOr<Verdict>& v) {
          ASSERT_TRUE(v.ok()) << v.status().message();
          answers_.push_back({id, *v});
        },
        [this](const LimiterCall&, LimiterEvent event) { events_[event]++; },
        [] {});
  }

  int64_t Now() const { return clock_.NowMicros(); }
  void AdvanceMs(int64_t ms) {
    clock_.AdvanceMicros(ms * 1000);
    queues_->Wake(Now());
  }

  // Takes `cost` units now, without BLOCK.
  Verdict TakeNow(std::string_view key, int64_t limit, int64_t window_ms, int64_t cost = 1) {
    auto outcome =
        DecideAndStage(*engine_, key, *FixedWindow(limit, window_ms, cost), Now(), Now() / 1000);
    EXPECT_TRUE(outcome.ok());
    return outcome->verdict;
  }

  StatusOr<std::optional<Verdict>> Submit(uint64_t client, std::string_view key,
                                          std::unique_ptr<LimiterCall> call, int64_t block_ms) {
    return queues_->Submit(client, DbKey(0, key), std::move(call), block_ms, Now());
  }

  storage::testing::TempDir dir_;
  ManualClock clock_{kStartUs};
  std::unique_ptr<storage::Engine> engine_;
  storage::Engine* raw_engine_ = nullptr;
  std::unique_ptr<LimiterQueues> queues_;
  struct Answered {
    uint64_t client;
    Verdict verdict;
  };
  std::vector<Answered> answers_;
  std::map<LimiterEvent, int> events_;
};

TEST_F(LimiterQueuesTest, AllowedRequestIsAnsweredAtOnce) {
  auto r = Submit(1, "k", FixedWindow(2, 1000), 500);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_TRUE((*r)->allowed);
  EXPECT_EQ(queues_->waiting(), 0u);
}

// CLIENT PAUSE: no waiter is served while writes are held (serving writes the key's state);
// one whose deadline passes is refused as things stand; the others are served after it.
TEST_F(LimiterQueuesTest, HeldWritesServeNobody) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(7, "k", FixedWindow(1, 1000), 5000)->has_value());
  ASSERT_FALSE(Submit(8, "k", FixedWindow(1, 1000), 2500)->has_value());
  queues_->HoldWrites(true);
  EXPECT_EQ(queues_->NextWakeMs(), kStartUs / 1000 + 2500) << "deadlines only";
  AdvanceMs(2000);
  EXPECT_TRUE(answers_.empty());
  AdvanceMs(500);  // client 8's deadline: refused, nothing counted
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 8u);
  EXPECT_FALSE(answers_[0].verdict.allowed);
  EXPECT_EQ(answers_[0].verdict.remaining, 1);  // the window moved on; nothing was taken
  queues_->HoldWrites(false);
  queues_->Wake(Now());
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_EQ(answers_[1].client, 7u);
  EXPECT_TRUE(answers_[1].verdict.allowed);
  EXPECT_EQ(answers_[1].verdict.remaining, 0);
}

TEST_F(LimiterQueuesTest, RefusedRequestWaitsAndIsServedWhenItFits) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  auto r = Submit(7, "k", FixedWindow(1, 1000), 2000);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value()) << "parked";
  EXPECT_EQ(queues_->NextWakeMs(), kStartUs / 1000 + 1000);
  AdvanceMs(999);
  EXPECT_TRUE(answers_.empty());
  AdvanceMs(1);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 7u);
  EXPECT_TRUE(answers_[0].verdict.allowed);
  EXPECT_EQ(events_[LimiterEvent::kBlocked], 1);
  EXPECT_EQ(events_[LimiterEvent::kAllowed], 1);
}

TEST_F(LimiterQueuesTest, RequestThatCannotBeServedInTimeIsRefusedAtOnce) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  auto r = Submit(1, "k", FixedWindow(1, 1000), 999);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_FALSE((*r)->allowed);
  EXPECT_EQ((*r)->retry_after_ms, 1000);
}

TEST_F(LimiterQueuesTest, CostAboveLimitIsRefusedAtOnceEvenWithBlockZero) {
  auto r = Submit(1, "k", FixedWindow(2, 1000, 3), 0);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_FALSE((*r)->allowed);
  EXPECT_EQ((*r)->retry_after_ms, -1);
  EXPECT_EQ(queues_->waiting(), 0u);
}

TEST_F(LimiterQueuesTest, WaitersAreServedInArrivalOrder) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  for (uint64_t client = 1; client <= 3; ++client) {
    auto r = Submit(client, "k", FixedWindow(1, 1000), 0);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value());
  }
  EXPECT_EQ(queues_->waiting(), 3u);
  for (int window = 1; window <= 3; ++window) {
    AdvanceMs(1000);
    ASSERT_EQ(answers_.size(), static_cast<size_t>(window));
    EXPECT_EQ(answers_.back().client, static_cast<uint64_t>(window));
    EXPECT_TRUE(answers_.back().verdict.allowed);
  }
  EXPECT_EQ(queues_->waiting(), 0u);
}

TEST_F(LimiterQueuesTest, NewRequestQueuesBehindWaitersEvenIfItWouldFit) {
  // Limit 2 with cost 2 waiting at the head; a cost-1 request must not jump the queue.
  EXPECT_TRUE(TakeNow("k", 2, 1000).allowed);
  auto head = Submit(1, "k", FixedWindow(2, 1000, 2), 0);
  ASSERT_TRUE(head.ok());
  EXPECT_FALSE(head->has_value());
  auto second = Submit(2, "k", FixedWindow(2, 1000, 1), 5000);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->has_value()) << "queued behind the head, served in the next window";
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 1u);
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_EQ(answers_[1].client, 2u);
}

TEST_F(LimiterQueuesTest, EstimateCountsWaitersAhead) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "k", FixedWindow(1, 1000), 0)->has_value());
  // The next window goes to client 1: client 2 would be served in 2000 ms, not 1000.
  auto r = Submit(2, "k", FixedWindow(1, 1000), 1500);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_FALSE((*r)->allowed);
  EXPECT_EQ((*r)->retry_after_ms, 2000);
}

TEST_F(LimiterQueuesTest, DeadlineAnswersRefused) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "k", FixedWindow(1, 1000), 0)->has_value());
  ASSERT_FALSE(Submit(2, "k", FixedWindow(1, 1000), 2500)->has_value());
  AdvanceMs(1000);  // client 1 served
  ASSERT_EQ(answers_.size(), 1u);
  // Client 2 is now the head and gets the next window at 2000, inside its deadline.
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_TRUE(answers_[1].verdict.allowed);

  ASSERT_FALSE(Submit(3, "k", FixedWindow(1, 1000), 1000)->has_value());
  ASSERT_FALSE(Submit(4, "k", FixedWindow(1, 1000), 0)->has_value());
  EXPECT_EQ(events_[LimiterEvent::kTimedOut], 0);
  // Someone else takes the window client 3 waited for: at its deadline it is refused.
  clock_.AdvanceMicros(1000 * 1000);
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  queues_->Wake(Now());
  ASSERT_EQ(answers_.size(), 3u);
  EXPECT_EQ(answers_[2].client, 3u);
  EXPECT_FALSE(answers_[2].verdict.allowed);
  EXPECT_EQ(events_[LimiterEvent::kTimedOut], 1);
}

TEST_F(LimiterQueuesTest, DisconnectedClientLeavesTheQueue) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "k", FixedWindow(1, 1000), 0)->has_value());
  ASSERT_FALSE(Submit(2, "k", FixedWindow(1, 1000), 0)->has_value());
  queues_->CancelClient(1);
  EXPECT_EQ(queues_->waiting(), 1u);
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 2u);
}

TEST_F(LimiterQueuesTest, RefuseAllAnswersEveryWaiter) {
  EXPECT_TRUE(TakeNow("a", 1, 1000).allowed);
  EXPECT_TRUE(TakeNow("b", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "a", FixedWindow(1, 1000), 0)->has_value());
  ASSERT_FALSE(Submit(2, "b", FixedWindow(1, 1000), 0)->has_value());
  queues_->RefuseAll(Now());
  ASSERT_EQ(answers_.size(), 2u);
  for (const auto& a : answers_) EXPECT_FALSE(a.verdict.allowed);
  EXPECT_EQ(queues_->waiting(), 0u);
  EXPECT_FALSE(queues_->NextWakeMs().has_value());
}

TEST_F(LimiterQueuesTest, PokeServesWaitersAfterTheKeyChanged) {
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "k", FixedWindow(1, 1000), 0)->has_value());
  engine_->Delete("k");  // DEL resets the limiter
  queues_->Poke(DbKey(0, "k"), Now());
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_TRUE(answers_[0].verdict.allowed);
}

// A wake looks only at the queues that are due: a key changed without a Poke is not served
// until its queue's time comes (so nothing is read or decided for the others); PokeAll (a
// FLUSHALL, a policy change) serves every queue. The next wake is the earliest queue's.
TEST_F(LimiterQueuesTest, AWakeServesOnlyTheQueuesThatAreDue) {
  // Each key's window starts with its first call, now: its waiter fits at the window's end.
  EXPECT_TRUE(TakeNow("a", 1, 1000).allowed);
  EXPECT_TRUE(TakeNow("b", 1, 4000).allowed);
  EXPECT_TRUE(TakeNow("c", 1, 5000).allowed);
  ASSERT_FALSE(Submit(1, "a", FixedWindow(1, 1000), 0)->has_value());
  ASSERT_FALSE(Submit(2, "b", FixedWindow(1, 4000), 0)->has_value());
  ASSERT_FALSE(Submit(3, "c", FixedWindow(1, 5000), 0)->has_value());
  EXPECT_EQ(queues_->NextWakeMs(), kStartUs / 1000 + 1000);
  engine_->Delete("b");  // b's waiter now fits, but nobody says so
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 1u);
  EXPECT_EQ(queues_->NextWakeMs(), kStartUs / 1000 + 4000) << "b's head may fit then";
  engine_->Delete("c");
  queues_->PokeAll(Now());
  ASSERT_EQ(answers_.size(), 3u);
  EXPECT_EQ(answers_[1].client, 2u);
  EXPECT_EQ(answers_[2].client, 3u);
  EXPECT_TRUE(answers_[1].verdict.allowed && answers_[2].verdict.allowed);
  EXPECT_FALSE(queues_->NextWakeMs().has_value());
  EXPECT_EQ(queues_->waiting(), 0u);
}

// A full queue refuses at once, without replaying its waiters: retry_after is when the last
// of them was expected to be served, by when the queue has drained.
TEST_F(LimiterQueuesTest, AFullQueueRefusesWithTheTimeItWillHaveDrained) {
  LimiterQueues capped(
      &raw_engine_,
      [this](uint64_t id, const StatusOr<Verdict>& v) {
        answers_.push_back({id, *v});
      },
      [](const LimiterCall&, LimiterEvent) {}, [] {}, nullptr, /*max_waiters_per_key=*/3);
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  for (uint64_t client = 1; client <= 3; ++client) {
    ASSERT_FALSE(capped.Submit(client, DbKey(0, "k"), FixedWindow(1, 1000), 0, Now())->has_value());
  }
  auto full = capped.Submit(4, DbKey(0, "k"), FixedWindow(1, 1000), 0, Now());
  ASSERT_TRUE(full.ok());
  ASSERT_TRUE(full->has_value());
  EXPECT_FALSE((*full)->allowed);
  EXPECT_EQ((*full)->retry_after_ms, 3000);  // the third waiter's window starts at 3000
  EXPECT_EQ(capped.waiting(), 3u);
  // That estimate grows stale when the queue drains later than it said (here the clock moves
  // past it with nobody served, and another call takes the window): never less than the
  // algorithm's own wait, never "now".
  clock_.AdvanceMicros(3500 * 1000);
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  full = capped.Submit(5, DbKey(0, "k"), FixedWindow(1, 1000), 0, Now());
  ASSERT_TRUE(full.ok() && full->has_value());
  EXPECT_FALSE((*full)->allowed);
  EXPECT_EQ((*full)->retry_after_ms, 1000);  // the window that call opened at 3500
}

// A queue is of a key in one database: its requests are decided on that database's state,
// whichever database the engine has selected when the queue is served.
TEST_F(LimiterQueuesTest, RequestsAreDecidedInTheirKeysDatabase) {
  ASSERT_TRUE(engine_->SelectDatabase(1).ok());
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(queues_->Submit(1, DbKey(1, "k"), FixedWindow(1, 1000), 0, Now())->has_value());
  ASSERT_TRUE(engine_->SelectDatabase(0).ok());
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);  // database 0's "k" is another limiter
  AdvanceMs(1000);  // database 1's window ends: its waiter goes through
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_TRUE(answers_[0].verdict.allowed);
  EXPECT_EQ(engine_->database(), 0);  // and the engine is back where it was
  ASSERT_TRUE(engine_->SelectDatabase(1).ok());
  EXPECT_FALSE(TakeNow("k", 1, 1000).allowed);  // the waiter took database 1's window
}

// A refused reply (here and below) is the key as it stands: nothing counted, as a COST 0 peek
// sees it, and the wait behind the waiters ahead, even for a request that fits now.
// (allowed, limit, remaining, retry_after_ms, reset_after_ms)
void ExpectVerdict(const Verdict& v, bool allowed, int64_t remaining, int64_t retry_after_ms,
                   int64_t reset_after_ms) {
  EXPECT_EQ(v.allowed, allowed);
  EXPECT_EQ(v.remaining, remaining);
  EXPECT_EQ(v.retry_after_ms, retry_after_ms);
  EXPECT_EQ(v.reset_after_ms, reset_after_ms);
}

class LimiterQueuesRefusalTest : public LimiterQueuesTest {
 protected:
  // 3 of 5 taken in a window of 1000 ms, and a request for 5 waiting for the next window.
  void SetUp() override {
    LimiterQueuesTest::SetUp();
    EXPECT_TRUE(TakeNow("k", 5, 1000, 3).allowed);
    ASSERT_FALSE(Submit(1, "k", FixedWindow(5, 1000, 5), 0)->has_value());
  }
};

TEST_F(LimiterQueuesRefusalTest, ARequestThatFitsButCannotWaitItsTurnIsRefusedAsItStands) {
  // Served behind the head's window, in the one after: 2000 ms, past its BLOCK.
  auto r = Submit(2, "k", FixedWindow(5, 1000, 1), 100);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  ExpectVerdict(**r, false, 2, 2000, 1000);
}

TEST_F(LimiterQueuesRefusalTest, CostZeroInspectsAtOnceWhoeverWaits) {
  for (int64_t block_ms : {100, 0}) {
    auto r = Submit(2, "k", FixedWindow(5, 1000, 0), block_ms);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r->has_value()) << block_ms;
    ExpectVerdict(**r, true, 2, -1, 1000);
  }
  EXPECT_EQ(queues_->waiting(), 1u);
}

TEST_F(LimiterQueuesRefusalTest, UnblockedWaiterThatFitsGetsItsWaitNotNever) {
  ASSERT_FALSE(Submit(2, "k", FixedWindow(5, 1000, 1), 0)->has_value());
  ASSERT_TRUE(queues_->Unblock(2, Now(), Status::Ok()));
  ASSERT_EQ(answers_.size(), 1u);
  ExpectVerdict(answers_[0].verdict, false, 2, 2000, 1000);
  ASSERT_TRUE(queues_->Unblock(1, Now(), Status::Ok()));  // the head: the algorithm's refusal
  ExpectVerdict(answers_[1].verdict, false, 2, 1000, 1000);
}

TEST_F(LimiterQueuesRefusalTest, AtShutdownAWaiterThatFitsMayRetryAtOnce) {
  ASSERT_FALSE(Submit(2, "k", FixedWindow(5, 1000, 1), 0)->has_value());
  queues_->RefuseAll(Now());
  ASSERT_EQ(answers_.size(), 2u);
  ExpectVerdict(answers_[0].verdict, false, 2, 1000, 1000);
  ExpectVerdict(answers_[1].verdict, false, 2, 0, 1000);  // nobody waits ahead of it now
}

TEST_F(LimiterQueuesRefusalTest, AWaiterBehindTheHeadAtItsDeadlineIsDecidedAsItStands) {
  // Estimated at 2000 ms (after the head's window), within its BLOCK of 2000.
  ASSERT_FALSE(Submit(2, "k", FixedWindow(5, 1000, 1), 2000)->has_value());
  // Requests without BLOCK take a unit of each new window first: the head keeps waiting.
  clock_.AdvanceMicros(1000 * 1000);
  EXPECT_TRUE(TakeNow("k", 5, 1000).allowed);
  queues_->Wake(Now());
  clock_.AdvanceMicros(1000 * 1000);
  EXPECT_TRUE(TakeNow("k", 5, 1000).allowed);
  queues_->Wake(Now());
  // At its deadline client 2 is decided as a request without BLOCK would be: it fits.
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].client, 2u);
  ExpectVerdict(answers_[0].verdict, true, 3, -1, 1000);
  EXPECT_EQ(queues_->waiting(), 1u);
}

// A fixed-window request that can be made never to fit, as a policy lowered below its cost
// makes a waiting RL.TAKE.
class SwitchableCall final : public LimiterCall {
 public:
  SwitchableCall(std::unique_ptr<LimiterCall> inner, std::shared_ptr<bool> never)
      : inner_(std::move(inner)), never_(std::move(never)) {}
  int64_t cost() const override { return inner_->cost(); }
  StatusOr<LimiterOutcome> Decide(std::optional<std::string_view> stored,
                                  int64_t now_us) const override {
    auto outcome = inner_->Decide(stored, now_us);
    if (outcome.ok() && *never_) {
      outcome->verdict.allowed = false;
      outcome->verdict.retry_after_ms = -1;
      outcome->write_state = false;
    }
    return outcome;
  }
  std::unique_ptr<LimiterCall> WithCost(int64_t cost) const override {
    return std::make_unique<SwitchableCall>(inner_->WithCost(cost), never_);
  }

 private:
  std::unique_ptr<LimiterCall> inner_;
  std::shared_ptr<bool> never_;
};

TEST_F(LimiterQueuesTest, AWaiterThatCanNeverBeServedHoldsUpNobody) {
  EXPECT_TRUE(TakeNow("k", 5, 1000, 5).allowed);
  auto never = std::make_shared<bool>(false);
  ASSERT_FALSE(Submit(1, "k", std::make_unique<SwitchableCall>(FixedWindow(5, 1000, 5), never), 0)
                   ->has_value());
  *never = true;
  // Served in the next window, as if the head were not there: it will be refused at its turn.
  auto r = Submit(2, "k", FixedWindow(5, 1000, 1), 2000);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value()) << "parked";
  AdvanceMs(1000);
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_EQ(answers_[0].client, 1u);
  EXPECT_FALSE(answers_[0].verdict.allowed);
  EXPECT_EQ(answers_[1].client, 2u);
  EXPECT_TRUE(answers_[1].verdict.allowed);
}

// Deadlines are kept in microseconds: a BLOCK of 1000 ms made 0.9 ms into a millisecond has
// not run out 999.1 ms later, when the millisecond number has moved on by 1000.
TEST_F(LimiterQueuesTest, ADeadlineIsNeverEarly) {
  clock_.AdvanceMicros(900);
  EXPECT_TRUE(TakeNow("k", 1, 1000).allowed);
  ASSERT_FALSE(Submit(1, "k", FixedWindow(1, 1000), 1000)->has_value());
  EXPECT_EQ(queues_->NextWakeMs(), kStartUs / 1000 + 1001);  // rounded up
  clock_.AdvanceMicros(999'100);
  queues_->Wake(Now());
  EXPECT_TRUE(answers_.empty());
  clock_.AdvanceMicros(900);  // the window ends: served
  queues_->Wake(Now());
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_TRUE(answers_[0].verdict.allowed);
}

}  // namespace
}  // namespace sluice::server
