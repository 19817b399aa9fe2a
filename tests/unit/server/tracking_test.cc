// Client-side caching's bookkeeping: the tracking table (remember, take, random pick, prefixes
// and their noted keys) and Tracking's messages (who gets what, when, in which encoding).

#include "server/tracking.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "server/pubsub.h"

namespace sluice::server {
namespace {

using ::testing::Test;

std::string Key(int i) {
  std::string key = "k";
  key += std::to_string(i);
  return key;
}

TEST(TrackingTable, RemembersEachReaderOnceAndTakeForgetsTheKey) {
  TrackingTable table;
  table.Remember("k", 1);
  table.Remember("k", 1);
  table.Remember("k", 2);
  table.Remember("j", 2);
  EXPECT_EQ(table.key_count(), 2u);
  EXPECT_EQ(table.item_count(), 3u);
  EXPECT_EQ(table.Take("k"), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(table.key_count(), 1u);
  EXPECT_EQ(table.item_count(), 1u);
  EXPECT_TRUE(table.Take("k").empty());  // told once, then forgotten
  EXPECT_EQ(table.Take("j"), (std::vector<uint64_t>{2}));
  EXPECT_EQ(table.key_count(), 0u);
  EXPECT_FALSE(table.KeyAt(7).has_value());
}

TEST(TrackingTable, KeyAtReachesEveryKeyAfterRemovals) {
  TrackingTable table;
  for (int i = 0; i < 10; ++i) table.Remember(Key(i), 1);
  table.Take("k0");
  table.Take("k5");
  std::set<std::string> seen;
  for (uint64_t i = 0; i < 8; ++i) seen.insert(*table.KeyAt(i));
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_FALSE(seen.contains("k0"));
  EXPECT_FALSE(seen.contains("k5"));
  table.ForgetAllKeys();
  EXPECT_EQ(table.key_count(), 0u);
  EXPECT_EQ(table.item_count(), 0u);
}

TEST(TrackingTable, PrefixesOverlapWhenOneStartsTheOther) {
  EXPECT_TRUE(TrackingTable::PrefixesOverlap("ab", "a"));
  EXPECT_TRUE(TrackingTable::PrefixesOverlap("a", "ab"));
  EXPECT_TRUE(TrackingTable::PrefixesOverlap("", "x"));
  EXPECT_TRUE(TrackingTable::PrefixesOverlap("ab", "ab"));
  EXPECT_FALSE(TrackingTable::PrefixesOverlap("ab", "ac"));
}

TEST(TrackingTable, NotedKeysGoToEachMatchingPrefixSortedWithTheLastModifier) {
  TrackingTable table;
  table.Subscribe("a", 1);
  table.Subscribe("", 2);
  table.NoteModified("b1", 5);
  table.NoteModified("a2", 5);
  table.NoteModified("a1", 6);
  table.NoteModified("a2", 7);  // the last modifier counts
  std::vector<std::pair<std::vector<std::pair<std::string, uint64_t>>, std::set<uint64_t>>> seen;
  table.DrainNoted([&](const TrackingTable::NotedKeys& keys, const std::set<uint64_t>& ids) {
    seen.push_back({{keys.begin(), keys.end()}, ids});
  });
  ASSERT_EQ(seen.size(), 2u);
  // "" sorts first.
  EXPECT_EQ(seen[0].first, (std::vector<std::pair<std::string, uint64_t>>{
                               {"a1", 6}, {"a2", 7}, {"b1", 5}}));
  EXPECT_EQ(seen[0].second, (std::set<uint64_t>{2}));
  EXPECT_EQ(seen[1].first,
            (std::vector<std::pair<std::string, uint64_t>>{{"a1", 6}, {"a2", 7}}));
  EXPECT_FALSE(table.has_noted_keys());
  int drained = 0;
  table.DrainNoted([&](const auto&, const auto&) { ++drained; });
  EXPECT_EQ(drained, 0);  // nothing carried over
}

TEST(TrackingTable, APrefixGoesWithItsLastClient) {
  TrackingTable table;
  table.Subscribe("p", 1);
  table.Subscribe("p", 2);
  EXPECT_EQ(table.prefix_count(), 1u);
  table.Unsubscribe("p", 1);
  EXPECT_EQ(table.prefix_count(), 1u);
  table.NoteModified("p1", 0);
  table.Unsubscribe("p", 2);
  EXPECT_EQ(table.prefix_count(), 0u);
  EXPECT_FALSE(table.has_noted_keys());
}

// A connection as Tracking sees it: records what it is sent, and may be "running" a command.
class RecordingSink : public PushSink {
 public:
  void DeliverMessage(const PubSubMessage&) override {}
  void DeliverMonitorLine(std::string_view) override {}
  void DeliverPush(std::string_view bytes, bool after_reply) override {
    (after_reply ? after : now).emplace_back(bytes);
  }
  bool Running() const override { return running; }
  std::vector<std::string> now;
  std::vector<std::string> after;
  bool running = false;
};

struct Conn {
  Conn(uint64_t id, resp::ProtocolVersion protocol) {
    client.id = id;
    client.protocol = protocol;
    client.push_sink = &sink;
  }
  RecordingSink sink;
  Client client;
};

constexpr auto kResp2 = resp::ProtocolVersion::kResp2;
constexpr auto kResp3 = resp::ProtocolVersion::kResp3;
const std::string kInvalidateK = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n";

class TrackingTest : public Test {
 protected:
  TrackingTest() {
    tracking.set_hooks(Tracking::Hooks{
        .find_client = [this](uint64_t id) -> Client* {
          auto it = conns.find(id);
          return it == conns.end() ? nullptr : &it->second->client;
        },
        .schedule_broadcast = [this] { ++scheduled; },
        .activity_changed = [this] { ++changes; }});
    tracking.set_max_keys(&max_keys);
  }
  Conn& Add(uint64_t id, resp::ProtocolVersion protocol) {
    return *conns.emplace(id, std::make_unique<Conn>(id, protocol)).first->second;
  }
  void Read(Conn& c, std::string_view key) {
    const std::string_view keys[] = {key};
    tracking.RememberKeys(c.client, keys);
  }

  std::map<uint64_t, std::unique_ptr<Conn>> conns;
  Tracking tracking;
  int64_t max_keys = 0;
  int scheduled = 0;
  int changes = 0;
};

TEST_F(TrackingTest, ReaderIsInvalidatedOnceAndCountsFollow) {
  Conn& a = Add(1, kResp3);
  tracking.Enable(a.client, 0, {}, {});
  EXPECT_EQ(tracking.clients(), 1u);
  EXPECT_EQ(changes, 1);
  Read(a, "k");
  EXPECT_EQ(tracking.total_keys(), 1u);
  tracking.KeyModified("k", 2);
  tracking.KeyModified("k", 2);
  EXPECT_EQ(a.sink.now, std::vector<std::string>{kInvalidateK});
  EXPECT_EQ(tracking.total_keys(), 0u);
  tracking.Disable(a.client);
  EXPECT_EQ(tracking.clients(), 0u);
  EXPECT_EQ(changes, 2);
}

// A tracking client that leaves before the keys it read are written leaves them remembered;
// the writes still forget them, as Redis's always invalidate, so short-lived tracking
// connections leave nothing for good. Active() holds until the last of them goes.
TEST_F(TrackingTest, KeysOfClientsGoneAreForgottenWhenWritten) {
  for (uint64_t id = 1; id <= 3; ++id) {
    Conn& c = Add(id, kResp3);
    tracking.Enable(c.client, 0, {}, {});
    Read(c, "k");
    Read(c, "j");
    tracking.Disable(c.client);
  }
  EXPECT_EQ(tracking.clients(), 0u);
  EXPECT_EQ(tracking.total_items(), 6u);
  EXPECT_TRUE(tracking.Active());
  EXPECT_EQ(changes, 1);  // active since the first client came
  tracking.KeyModified("k", 9);
  EXPECT_EQ(tracking.total_keys(), 1u);
  EXPECT_TRUE(tracking.Active());
  tracking.KeyModified("j", 9);
  EXPECT_EQ(tracking.total_items(), 0u);
  EXPECT_FALSE(tracking.Active());
  EXPECT_EQ(changes, 2);
  for (const auto& [id, conn] : conns) EXPECT_TRUE(conn->sink.now.empty()) << id;
}

TEST_F(TrackingTest, TheRunningClientGetsItsInvalidationAfterItsReply) {
  Conn& a = Add(1, kResp3);
  tracking.Enable(a.client, 0, {}, {});
  Read(a, "k");
  a.sink.running = true;
  tracking.KeyModified("k", 1);
  EXPECT_TRUE(a.sink.now.empty());
  tracking.AfterCommand(a.client);
  EXPECT_EQ(a.sink.after, std::vector<std::string>{kInvalidateK});
}

TEST_F(TrackingTest, NoloopSkipsTheClientsOwnWrites) {
  Conn& a = Add(1, kResp3);
  tracking.Enable(a.client, 0, {.noloop = true}, {});
  Read(a, "k");
  tracking.KeyModified("k", 1);
  EXPECT_TRUE(a.sink.now.empty());
  EXPECT_EQ(tracking.total_keys(), 0u);  // forgotten all the same
}

TEST_F(TrackingTest, OptinRemembersOnlyAfterCachingYesForOneCommand) {
  Conn& a = Add(1, kResp3);
  tracking.Enable(a.client, 0, {.optin = true}, {});
  Read(a, "k");
  EXPECT_EQ(tracking.total_keys(), 0u);
  a.client.tracking.caching = true;
  a.client.last_command = "client";
  tracking.AfterCommand(a.client);  // CLIENT CACHING itself keeps it
  Read(a, "k");
  a.client.last_command = "get";
  tracking.AfterCommand(a.client);
  Read(a, "j");
  EXPECT_EQ(tracking.total_keys(), 1u);
  EXPECT_FALSE(tracking.TrackedClient(1)->tracking.caching);
}

TEST_F(TrackingTest, RedirectGoesToTheTargetAsPubSubForResp2AndReportsABrokenOne) {
  Conn& a = Add(1, kResp3);
  Conn& sub = Add(2, kResp2);
  sub.client.channels.insert("__redis__:invalidate");
  tracking.Enable(a.client, 2, {}, {});
  Read(a, "k");
  tracking.KeyModified("k", 3);
  EXPECT_TRUE(a.sink.now.empty());
  EXPECT_EQ(sub.sink.now, std::vector<std::string>{
                              "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\n"
                              "k\r\n"});
  conns.erase(2);
  Read(a, "k");
  tracking.KeyModified("k", 3);
  EXPECT_EQ(a.sink.now, std::vector<std::string>{
                            ">2\r\n$21\r\ntracking-redir-broken\r\n:2\r\n"});
  EXPECT_TRUE(a.client.tracking.broken_redirect);
}

TEST_F(TrackingTest, Resp2WithoutRedirectIsToldNothing) {
  Conn& a = Add(1, kResp2);
  tracking.Enable(a.client, 0, {}, {});
  Read(a, "k");
  tracking.KeyModified("k", 3);
  tracking.Flushed();
  EXPECT_TRUE(a.sink.now.empty());
}

TEST_F(TrackingTest, FlushSendsTheTrackersProtocolsNullAndForgetsEveryKey) {
  Conn& a = Add(1, kResp2);
  Conn& b = Add(2, kResp3);
  tracking.Enable(a.client, 2, {}, {});  // a RESP2 tracker redirecting to a RESP3 target
  Read(a, "k");
  tracking.Flushed();
  EXPECT_EQ(b.sink.now, std::vector<std::string>{">2\r\n$10\r\ninvalidate\r\n$-1\r\n"});
  EXPECT_EQ(tracking.total_keys(), 0u);
}

TEST_F(TrackingTest, BcastBatchesPerTurnAndNoloopLeavesOutItsOwnKeys) {
  Conn& a = Add(1, kResp3);
  Conn& b = Add(2, kResp3);
  const std::string_view prefixes[] = {"p:"};
  tracking.Enable(a.client, 0, {.bcast = true}, prefixes);
  tracking.Enable(b.client, 0, {.bcast = true, .noloop = true}, {});
  EXPECT_EQ(tracking.total_prefixes(), 2u);
  tracking.KeyModified("p:2", 2);
  tracking.KeyModified("p:1", 0);
  tracking.KeyModified("z", 2);
  EXPECT_EQ(scheduled, 1);
  EXPECT_TRUE(a.sink.now.empty());
  tracking.Broadcast();
  EXPECT_EQ(a.sink.now, std::vector<std::string>{
                            ">2\r\n$10\r\ninvalidate\r\n*2\r\n$3\r\np:1\r\n$3\r\np:2\r\n"});
  EXPECT_EQ(b.sink.now, std::vector<std::string>{
                            ">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\np:1\r\n"});
  tracking.Disable(a.client);
  tracking.Disable(b.client);
  EXPECT_EQ(tracking.total_prefixes(), 0u);
}

TEST_F(TrackingTest, OverTheLimitRandomKeysAreEvictedWithInvalidations) {
  Conn& a = Add(1, kResp3);
  tracking.Enable(a.client, 0, {}, {});
  for (int i = 0; i < 5; ++i) Read(a, Key(i));
  max_keys = 2;
  tracking.BeforeCommand();
  EXPECT_EQ(tracking.total_keys(), 2u);
  EXPECT_EQ(a.sink.now.size(), 3u);
  max_keys = 0;  // no limit
  for (int i = 5; i < 10; ++i) Read(a, Key(i));
  tracking.BeforeCommand();
  EXPECT_EQ(tracking.total_keys(), 7u);
}

}  // namespace
}  // namespace sluice::server
