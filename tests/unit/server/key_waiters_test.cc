// Clients blocked on keys: first come first served per key, ready keys in the order they were
// signalled (and those signalled while serving), a key that runs dry, waiters of another type,
// deadlines, and leaving. No storage: a fake `try_serve` plays the keys' contents.

#include "server/key_waiters.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sluice::server {
namespace {

using Outcome = KeyWaiters::Outcome;
using storage::KeyType;

class KeyWaitersTest : public ::testing::Test {
 protected:
  void Block(uint64_t id, std::vector<std::string> keys, int64_t deadline_ms = KeyWaiters::kForever,
             KeyType type = KeyType::kList) {
    KeyWaiters::Waiter waiter;
    waiter.client_id = id;
    waiter.keys = std::move(keys);
    waiter.deadline_ms = deadline_ms;
    waiter.type = type;
    waiters_.Block(std::move(waiter));
  }

  // Serves from `contents_`: each key holds a type and a number of elements; a waiter takes one.
  // Records (client, key) for each client served.
  void Serve() {
    waiters_.ServeReady([&](const KeyWaiters::Waiter& waiter, std::string_view key) {
      auto it = contents_.find(std::string(key));
      if (it == contents_.end() || it->second.second == 0) return Outcome::kKeyEmpty;
      if (it->second.first != waiter.type) return Outcome::kNotServed;
      --it->second.second;
      served_.emplace_back(waiter.client_id, std::string(key));
      if (auto push = moves_.find(waiter.client_id); push != moves_.end()) {
        // As BLMOVE: the destination (a list) gets the element.
        contents_.try_emplace(push->second, KeyType::kList, 0).first->second.second++;
        waiters_.Signal(push->second);
      }
      return Outcome::kServed;
    });
  }

  std::vector<uint64_t> ExpiredIds(int64_t now_ms) {
    std::vector<uint64_t> ids;
    for (const KeyWaiters::Expired& expired : waiters_.TakeExpired(now_ms)) {
      ids.push_back(expired.client_id);
    }
    return ids;
  }

  void Put(const std::string& key, int elements, KeyType type = KeyType::kList) {
    contents_[key] = {type, elements};
    waiters_.Signal(key);
  }

  int deadline_changes_ = 0;
  KeyWaiters waiters_{[this] { ++deadline_changes_; }};
  std::map<std::string, std::pair<KeyType, int>> contents_;
  std::map<uint64_t, std::string> moves_;  // client -> destination it pushes to when served
  std::vector<std::pair<uint64_t, std::string>> served_;
};

using Served = std::vector<std::pair<uint64_t, std::string>>;

TEST_F(KeyWaitersTest, ServesEachKeyInTheOrderClientsBlocked) {
  Block(1, {"k"});
  Block(2, {"k"});
  Block(3, {"k"});
  Put("k", 2);
  Serve();
  EXPECT_EQ(served_, (Served{{1, "k"}, {2, "k"}}));
  EXPECT_EQ(waiters_.size(), 1u);
  EXPECT_TRUE(waiters_.IsWaiting(3));
  EXPECT_FALSE(waiters_.HasReady());
  Put("k", 1);
  Serve();
  EXPECT_EQ(served_.back(), (std::pair<uint64_t, std::string>{3, "k"}));
  EXPECT_EQ(waiters_.size(), 0u);
  EXPECT_FALSE(waiters_.HasWaiters("k"));
}

TEST_F(KeyWaitersTest, AClientServedFromOneKeyLeavesTheOthers) {
  Block(1, {"a", "b"});
  Block(2, {"b"});
  Put("a", 1);
  Put("b", 1);
  Serve();
  // 1 took a's element; b's went to 2, though 1 blocked on b first.
  EXPECT_EQ(served_, (Served{{1, "a"}, {2, "b"}}));
  EXPECT_FALSE(waiters_.HasWaiters("a"));
  EXPECT_FALSE(waiters_.HasWaiters("b"));
}

TEST_F(KeyWaitersTest, ReadyKeysAreServedInTheOrderSignalled) {
  Block(1, {"a", "b"});
  Put("b", 1);  // as MULTI / RPUSH b / RPUSH a / EXEC: Redis 7.0 serves from b
  Put("a", 1);
  Serve();
  EXPECT_EQ(served_, (Served{{1, "b"}}));
}

TEST_F(KeyWaitersTest, SignalsWithoutWaitersAreIgnored) {
  waiters_.Signal("nobody");
  EXPECT_FALSE(waiters_.HasReady());
  Block(1, {"k"});
  waiters_.Signal("k");
  waiters_.Signal("k");
  EXPECT_TRUE(waiters_.HasReady());
  Serve();  // k holds nothing: 1 waits on
  EXPECT_TRUE(served_.empty());
  EXPECT_TRUE(waiters_.IsWaiting(1));
  EXPECT_FALSE(waiters_.HasReady());
}

TEST_F(KeyWaitersTest, WaitersOfAnotherTypeWaitOn) {
  Block(1, {"k"}, KeyWaiters::kForever, KeyType::kZSet);
  Block(2, {"k"});
  Put("k", 1);  // a list: BZPOPMIN's client is passed over, BLPOP's served
  Serve();
  EXPECT_EQ(served_, (Served{{2, "k"}}));
  EXPECT_TRUE(waiters_.IsWaiting(1));
}

TEST_F(KeyWaitersTest, AKeyThatRunsDryStopsItsQueue) {
  Block(1, {"k"});
  Block(2, {"k"});
  int tries = 0;
  contents_["k"] = {KeyType::kList, 0};
  waiters_.Signal("k");
  waiters_.ServeReady([&](const KeyWaiters::Waiter&, std::string_view) {
    ++tries;
    return Outcome::kKeyEmpty;
  });
  EXPECT_EQ(tries, 1);
  EXPECT_EQ(waiters_.size(), 2u);
}

TEST_F(KeyWaitersTest, KeysSignalledWhileServingAreServedInTheSamePass) {
  // BLMOVE s1 s2 (client 1), BLMOVE s2 s3 (client 2), BLPOP s3 (client 3): one push to s1
  // goes down the chain.
  Block(1, {"s1"});
  moves_[1] = "s2";
  Block(2, {"s2"});
  moves_[2] = "s3";
  Block(3, {"s3"});
  Put("s1", 1);
  Serve();
  EXPECT_EQ(served_, (Served{{1, "s1"}, {2, "s2"}, {3, "s3"}}));
  EXPECT_EQ(waiters_.size(), 0u);
}

TEST_F(KeyWaitersTest, AKeySignalledAgainWhileServedComesRoundAgain) {
  // Client 1 moves from k back onto k (BLMOVE k k): the element it pushes serves 2 as well.
  Block(1, {"k"});
  moves_[1] = "k";
  Block(2, {"k"});
  Put("k", 1);
  Serve();
  EXPECT_EQ(served_, (Served{{1, "k"}, {2, "k"}}));
}

TEST_F(KeyWaitersTest, DuplicateKeysCountOnce) {
  Block(1, {"k", "k"});
  Put("k", 2);
  Serve();
  EXPECT_EQ(served_, (Served{{1, "k"}}));
  EXPECT_FALSE(waiters_.HasWaiters("k"));
}

TEST_F(KeyWaitersTest, DeadlinesExpireInOrderAndForeverNever) {
  Block(1, {"a"}, 300);
  Block(2, {"b"}, 100);
  Block(3, {"c"});
  Block(4, {"a"}, 200);
  EXPECT_EQ(waiters_.NextDeadlineMs(), 100);
  EXPECT_TRUE(waiters_.TakeExpired(99).empty());
  EXPECT_EQ(ExpiredIds(200), (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(waiters_.NextDeadlineMs(), 300);
  EXPECT_EQ(ExpiredIds(1000), (std::vector<uint64_t>{1}));
  EXPECT_EQ(waiters_.NextDeadlineMs(), std::nullopt);
  EXPECT_TRUE(waiters_.IsWaiting(3));
  EXPECT_FALSE(waiters_.HasWaiters("a"));
  EXPECT_TRUE(waiters_.TakeExpired(INT64_MAX - 1).empty());
}

TEST_F(KeyWaitersTest, RemovedClientsAreForgotten) {
  Block(1, {"k"}, 100);
  Block(2, {"k"});
  const int changes = deadline_changes_;
  EXPECT_TRUE(waiters_.Remove(1).has_value());
  EXPECT_GT(deadline_changes_, changes);
  EXPECT_FALSE(waiters_.Remove(1).has_value());
  EXPECT_EQ(waiters_.NextDeadlineMs(), std::nullopt);
  Put("k", 1);
  Serve();
  EXPECT_EQ(served_, (Served{{2, "k"}}));
  EXPECT_TRUE(waiters_.TakeExpired(1000).empty());
}

TEST_F(KeyWaitersTest, AWaiterWithoutKeysOnlyTimesOutWithItsOwnReply) {
  // WAIT: no key, a deadline, and 0 for an answer.
  KeyWaiters::Waiter wait;
  wait.client_id = 7;
  wait.deadline_ms = 50;
  wait.timeout_reply = KeyWaiters::TimeoutReply::kZero;
  waiters_.Block(std::move(wait));
  Block(8, {"k"}, 50);
  Put("k", 0);
  Serve();
  EXPECT_TRUE(served_.empty());
  const std::vector<KeyWaiters::Expired> expired = waiters_.TakeExpired(50);
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].client_id, 7u);
  EXPECT_EQ(expired[0].reply, KeyWaiters::TimeoutReply::kZero);
  EXPECT_EQ(expired[1].client_id, 8u);
  EXPECT_EQ(expired[1].reply, KeyWaiters::TimeoutReply::kNullArray);

  KeyWaiters::Waiter forever;
  forever.client_id = 9;
  forever.timeout_reply = KeyWaiters::TimeoutReply::kZero;
  waiters_.Block(std::move(forever));
  EXPECT_EQ(waiters_.NextDeadlineMs(), std::nullopt);
  EXPECT_EQ(waiters_.Remove(9), KeyWaiters::TimeoutReply::kZero);
}

}  // namespace
}  // namespace sluice::server
