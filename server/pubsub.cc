#include "server/pubsub.h"

#include <algorithm>

#include "common/glob_match.h"

namespace sluice::server {
namespace {

// Adds `client` to the subscribers of `name` (a channel or a pattern) unless it is there.
// `Names`: the client's StringSet, or its OrderedNames of patterns.
template <typename Names>
bool Join(Names& mine, StringMap<std::vector<Client*>>& all, Client& client,
          std::string_view name) {
  if (!mine.emplace(name).second) return false;
  auto it = all.find(name);
  if (it == all.end()) it = all.emplace(std::string(name), std::vector<Client*>{}).first;
  it->second.push_back(&client);
  return true;
}

// Takes `client` off the subscribers of `name`; a name left without any is forgotten.
void LeaveRegistry(StringMap<std::vector<Client*>>& all, const Client& client,
                   std::string_view name) {
  auto it = all.find(name);
  if (it == all.end()) return;
  std::vector<Client*>& subscribers = it->second;
  subscribers.erase(std::find(subscribers.begin(), subscribers.end(), &client));
  if (subscribers.empty()) all.erase(it);
}

template <typename Names>
bool Leave(Names& mine, StringMap<std::vector<Client*>>& all, const Client& client,
           std::string_view name) {
  auto it = mine.find(name);
  if (it == mine.end()) return false;
  LeaveRegistry(all, client, name);
  mine.erase(it);
  return true;
}

void Deliver(const std::vector<Client*>& subscribers, const PubSubMessage& message) {
  for (Client* subscriber : subscribers) {
    if (subscriber->push_sink != nullptr) subscriber->push_sink->DeliverMessage(message);
  }
}

// The names with at least one subscriber (matching the glob, if any).
std::vector<std::string_view> NamesMatching(const StringMap<std::vector<Client*>>& all,
                                            std::optional<std::string_view> glob) {
  std::vector<std::string_view> names;
  for (const auto& [name, subscribers] : all) {
    if (!glob || GlobMatch(*glob, name)) names.emplace_back(name);
  }
  return names;
}

size_t SubscribersOf(const StringMap<std::vector<Client*>>& all, std::string_view name) {
  auto it = all.find(name);
  return it == all.end() ? 0 : it->second.size();
}

}  // namespace

bool PubSub::Subscribe(Client& client, std::string_view channel) {
  return Join(client.channels, channels_, client, channel);
}

bool PubSub::Unsubscribe(Client& client, std::string_view channel) {
  return Leave(client.channels, channels_, client, channel);
}

bool PubSub::SSubscribe(Client& client, std::string_view shard_channel) {
  return Join(client.shard_channels, shard_channels_, client, shard_channel);
}

bool PubSub::SUnsubscribe(Client& client, std::string_view shard_channel) {
  return Leave(client.shard_channels, shard_channels_, client, shard_channel);
}

bool PubSub::PSubscribe(Client& client, std::string_view pattern) {
  return Join(client.patterns, patterns_, client, pattern);
}

bool PubSub::PUnsubscribe(Client& client, std::string_view pattern) {
  return Leave(client.patterns, patterns_, client, pattern);
}

void PubSub::RemoveClient(Client& client) {
  for (const std::string& channel : client.channels) LeaveRegistry(channels_, client, channel);
  for (const std::string& pattern : client.patterns) LeaveRegistry(patterns_, client, pattern);
  for (const std::string& shard : client.shard_channels) {
    LeaveRegistry(shard_channels_, client, shard);
  }
  client.channels.clear();
  client.patterns.clear();
  client.shard_channels.clear();
}

int64_t PubSub::Publish(std::string_view channel, std::string_view payload) {
  int64_t receivers = 0;
  if (auto it = channels_.find(channel); it != channels_.end()) {
    Deliver(it->second, PubSubMessage{{}, PubSubMessage::Kind::kMessage, channel, payload});
    receivers += static_cast<int64_t>(it->second.size());
  }
  for (const auto& [pattern, subscribers] : patterns_) {
    if (!GlobMatch(pattern, channel)) continue;
    Deliver(subscribers,
            PubSubMessage{pattern, PubSubMessage::Kind::kPatternMessage, channel, payload});
    receivers += static_cast<int64_t>(subscribers.size());
  }
  return receivers;
}

int64_t PubSub::SPublish(std::string_view shard_channel, std::string_view payload) {
  auto it = shard_channels_.find(shard_channel);
  if (it == shard_channels_.end()) return 0;
  Deliver(it->second,
          PubSubMessage{{}, PubSubMessage::Kind::kShardMessage, shard_channel, payload});
  return static_cast<int64_t>(it->second.size());
}

std::vector<std::string_view> PubSub::Channels(std::optional<std::string_view> glob) const {
  return NamesMatching(channels_, glob);
}

std::vector<std::string_view> PubSub::ShardChannels(std::optional<std::string_view> glob) const {
  return NamesMatching(shard_channels_, glob);
}

size_t PubSub::SubscriberCount(std::string_view channel) const {
  return SubscribersOf(channels_, channel);
}

size_t PubSub::ShardSubscriberCount(std::string_view shard_channel) const {
  return SubscribersOf(shard_channels_, shard_channel);
}

}  // namespace sluice::server
