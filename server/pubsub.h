#pragma once

// PUBLISH and (P)SUBSCRIBE, SPUBLISH and SSUBSCRIBE: which clients listen on which channels,
// patterns and shard channels, as Redis 7.0 keeps them. Shard channels are a namespace of
// their own (a PUBLISH never reaches an SSUBSCRIBE of the same name), without patterns; with
// no cluster, every shard channel is in this server's one shard. A message goes to each
// subscriber's PushSink (its session), which sends it after the command running at the time;
// nothing is stored for a client not listening.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_hash.h"
#include "server/client.h"

namespace sluice::server {

struct PubSubMessage {
  enum class Kind { kMessage, kPatternMessage, kShardMessage };  // message, pmessage, smessage
  std::string_view pattern;  // the pattern that matched, for a "pmessage"; empty otherwise
  Kind kind = Kind::kMessage;
  std::string_view channel;
  std::string_view payload;
};

// Where a subscribed (or monitoring) client's messages go (its session).
class PushSink {
 public:
  virtual ~PushSink() = default;
  virtual void DeliverMessage(const PubSubMessage& message) = 0;
  // A MONITOR line (server/monitor_feed.h), sent as a simple string.
  virtual void DeliverMonitorLine(std::string_view line) = 0;
  // A client-side caching message (server/tracking.h), already encoded: at once (before the
  // reply of a command this client is running), or `after_reply` (after it).
  virtual void DeliverPush(std::string_view /*bytes*/, bool /*after_reply*/) {}
  // Whether this client's requests are running now (one connection's at a time).
  virtual bool Running() const { return false; }
  // Whether replies or pushes wait to be sent to it (Redis's clientHasPendingReplies).
  virtual bool HasUnsentReplies() const { return false; }
};

class PubSub {
 public:
  // Each returns whether the client's subscriptions changed (subscribing twice, or leaving a
  // channel it is not on, changes nothing).
  bool Subscribe(Client& client, std::string_view channel);
  bool Unsubscribe(Client& client, std::string_view channel);
  bool PSubscribe(Client& client, std::string_view pattern);
  bool PUnsubscribe(Client& client, std::string_view pattern);
  bool SSubscribe(Client& client, std::string_view shard_channel);
  bool SUnsubscribe(Client& client, std::string_view shard_channel);
  // A closing (or RESET) client leaves everything, without replies.
  void RemoveClient(Client& client);

  // Sends `payload` to the channel's subscribers, then to those of each matching pattern;
  // returns how many deliveries were made (PUBLISH's reply).
  int64_t Publish(std::string_view channel, std::string_view payload);
  // SPUBLISH: to the shard channel's subscribers alone; returns how many there were.
  int64_t SPublish(std::string_view shard_channel, std::string_view payload);

  // PUBSUB CHANNELS: the channels with at least one subscriber (matching the glob, if any).
  std::vector<std::string_view> Channels(std::optional<std::string_view> glob) const;
  // PUBSUB SHARDCHANNELS: the same for shard channels.
  std::vector<std::string_view> ShardChannels(std::optional<std::string_view> glob) const;
  // PUBSUB NUMSUB: a channel's subscribers (patterns not counted).
  size_t SubscriberCount(std::string_view channel) const;
  // PUBSUB SHARDNUMSUB: a shard channel's subscribers.
  size_t ShardSubscriberCount(std::string_view shard_channel) const;
  size_t channel_count() const { return channels_.size(); }
  size_t pattern_count() const { return patterns_.size(); }
  size_t shard_channel_count() const { return shard_channels_.size(); }

 private:
  using SubscriberList = std::vector<Client*>;  // in the order they subscribed

  StringMap<SubscriberList> channels_;
  StringMap<SubscriberList> patterns_;
  StringMap<SubscriberList> shard_channels_;
};

}  // namespace sluice::server
