// The pub/sub registry: who gets a message, how PUBLISH counts them, and what a client that
// leaves takes with it.

#include "server/pubsub.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sluice::server {
namespace {

// A subscriber's session: records "kind pattern channel payload" per message.
class RecordingSink : public PushSink {
 public:
  void DeliverMessage(const PubSubMessage& m) override {
    using Kind = PubSubMessage::Kind;
    std::string line = m.kind == Kind::kPatternMessage ? "pmessage " + std::string(m.pattern) + " "
                       : m.kind == Kind::kShardMessage ? "smessage "
                                                       : "message ";
    received.push_back(line + std::string(m.channel) + " " + std::string(m.payload));
  }
  void DeliverMonitorLine(std::string_view line) override {
    received.push_back("monitor " + std::string(line));
  }
  std::vector<std::string> received;
};

struct Subscriber {
  Subscriber() { client.push_sink = &sink; }
  RecordingSink sink;
  Client client;
};

TEST(PubSub, PublishReachesChannelThenPatternSubscribersAndCountsThem) {
  PubSub pubsub;
  Subscriber a, b;
  EXPECT_TRUE(pubsub.Subscribe(a.client, "news"));
  EXPECT_TRUE(pubsub.PSubscribe(a.client, "n*"));
  EXPECT_TRUE(pubsub.PSubscribe(b.client, "*s"));
  EXPECT_EQ(pubsub.Publish("news", "hi"), 3);
  EXPECT_EQ(a.sink.received, (std::vector<std::string>{"message news hi", "pmessage n* news hi"}));
  EXPECT_EQ(b.sink.received, (std::vector<std::string>{"pmessage *s news hi"}));
  EXPECT_EQ(pubsub.Publish("nothing-matches-x", "x"), 1);  // n*
  EXPECT_EQ(pubsub.Publish("other", "x"), 0);
}

TEST(PubSub, SubscribingTwiceOrLeavingWhatWasNotJoinedChangesNothing) {
  PubSub pubsub;
  Subscriber a;
  EXPECT_TRUE(pubsub.Subscribe(a.client, "c"));
  EXPECT_FALSE(pubsub.Subscribe(a.client, "c"));
  EXPECT_FALSE(pubsub.Unsubscribe(a.client, "d"));
  EXPECT_FALSE(pubsub.PUnsubscribe(a.client, "c"));  // a channel, not a pattern
  EXPECT_EQ(a.client.Subscriptions(), 1u);
  EXPECT_EQ(pubsub.Publish("c", "once"), 1);
  EXPECT_EQ(a.sink.received.size(), 1u);
}

TEST(PubSub, CountsChannelsAndPatternsWithSubscribers) {
  PubSub pubsub;
  Subscriber a, b;
  pubsub.Subscribe(a.client, "x");
  pubsub.Subscribe(b.client, "x");
  pubsub.Subscribe(b.client, "y");
  pubsub.PSubscribe(a.client, "p*");
  pubsub.PSubscribe(b.client, "p*");
  EXPECT_EQ(pubsub.channel_count(), 2u);
  EXPECT_EQ(pubsub.pattern_count(), 1u);  // distinct patterns, as Redis's NUMPAT
  EXPECT_EQ(pubsub.SubscriberCount("x"), 2u);
  EXPECT_EQ(pubsub.SubscriberCount("p1"), 0u);  // patterns are not counted
  std::vector<std::string_view> channels = pubsub.Channels(std::nullopt);
  std::sort(channels.begin(), channels.end());
  EXPECT_EQ(channels, (std::vector<std::string_view>{"x", "y"}));
  EXPECT_EQ(pubsub.Channels("y*"), (std::vector<std::string_view>{"y"}));
  EXPECT_TRUE(pubsub.Channels("").empty());  // an empty glob matches only an empty name
  pubsub.Unsubscribe(b.client, "y");
  EXPECT_EQ(pubsub.channel_count(), 1u);
}

TEST(PubSub, AClientThatLeavesTakesEverySubscriptionWithIt) {
  PubSub pubsub;
  Subscriber a, b;
  pubsub.Subscribe(a.client, "x");
  pubsub.Subscribe(a.client, "y");
  pubsub.PSubscribe(a.client, "*");
  pubsub.Subscribe(b.client, "x");
  pubsub.RemoveClient(a.client);
  EXPECT_EQ(a.client.Subscriptions(), 0u);
  EXPECT_EQ(pubsub.channel_count(), 1u);
  EXPECT_EQ(pubsub.pattern_count(), 0u);
  EXPECT_EQ(pubsub.Publish("x", "m"), 1);
  EXPECT_TRUE(a.sink.received.empty());
  EXPECT_EQ(b.sink.received, (std::vector<std::string>{"message x m"}));
}

TEST(PubSub, ShardChannelsAreANamespaceOfTheirOwnWithoutPatterns) {
  PubSub pubsub;
  Subscriber a, b;
  EXPECT_TRUE(pubsub.SSubscribe(a.client, "orders"));
  EXPECT_FALSE(pubsub.SSubscribe(a.client, "orders"));
  EXPECT_TRUE(pubsub.Subscribe(b.client, "orders"));
  EXPECT_TRUE(pubsub.PSubscribe(b.client, "*"));
  EXPECT_EQ(pubsub.SPublish("orders", "s"), 1);  // neither the channel nor the pattern
  EXPECT_EQ(pubsub.Publish("orders", "p"), 2);   // nor the shard channel
  EXPECT_EQ(a.sink.received, (std::vector<std::string>{"smessage orders s"}));
  EXPECT_EQ(b.sink.received,
            (std::vector<std::string>{"message orders p", "pmessage * orders p"}));
  EXPECT_EQ(pubsub.shard_channel_count(), 1u);
  EXPECT_EQ(pubsub.channel_count(), 1u);
  EXPECT_EQ(pubsub.ShardSubscriberCount("orders"), 1u);
  EXPECT_EQ(pubsub.ShardChannels("ord*"), (std::vector<std::string_view>{"orders"}));
  EXPECT_EQ(a.client.Subscriptions(), 1u);
  EXPECT_EQ(a.client.ChannelAndPatternCount(), 0u);
  EXPECT_FALSE(pubsub.SUnsubscribe(a.client, "other"));
  EXPECT_TRUE(pubsub.SUnsubscribe(a.client, "orders"));
  EXPECT_EQ(pubsub.shard_channel_count(), 0u);
  EXPECT_EQ(pubsub.SPublish("orders", "gone"), 0);
}

TEST(PubSub, AClientThatLeavesTakesItsShardChannelsWithIt) {
  PubSub pubsub;
  Subscriber a, b;
  pubsub.SSubscribe(a.client, "x");
  pubsub.SSubscribe(b.client, "x");
  pubsub.RemoveClient(a.client);
  EXPECT_TRUE(a.client.shard_channels.empty());
  EXPECT_EQ(pubsub.SPublish("x", "m"), 1);
  EXPECT_TRUE(a.sink.received.empty());
}

TEST(PubSub, AClientListsWhatItListensTo) {
  PubSub pubsub;
  Subscriber a;
  for (const char* channel : {"c", "a", "b"}) pubsub.Subscribe(a.client, channel);
  pubsub.Unsubscribe(a.client, "a");
  EXPECT_EQ(a.client.channels, (StringSet{"c", "b"}));
}

}  // namespace
}  // namespace sluice::server
