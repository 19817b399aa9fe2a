#include "server/pubsub.h"

#include <algorithm>

#include "common/glob_match.h"

namespace sluice::server {
namespace {

// Adds `client` to the subscribers of `name` (a channel or a pattern) unless it is there.
bool Join(StringSet& mine, StringMap<std::vector<Client*>>& all, Client& client,
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

bool Leave(StringSet& mine, StringMap<std::vector<Client*>>& all, const Client& client,
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

}  // namespace

bool PubSub::Subscribe(Client& client, std::string_view channel) {
  return Join(client.channels, channels_, client, channel);
}

bool PubSub::Unsubscribe(Client& client, std::string_view channel) {
  return Leave(client.channels, channels_, client, channel);
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
  client.channels.clear();
  client.patterns.clear();
}

int64_t PubSub::Publish(std::string_view channel, std::string_view payload) {
  int64_t receivers = 0;
  if (auto it = channels_.find(channel); it != channels_.end()) {
    Deliver(it->second, PubSubMessage{{}, false, channel, payload});
    receivers += static_cast<int64_t>(it->second.size());
  }
  for (const auto& [pattern, subscribers] : patterns_) {
    if (!GlobMatch(pattern, channel)) continue;
    Deliver(subscribers, PubSubMessage{pattern, true, channel, payload});
    receivers += static_cast<int64_t>(subscribers.size());
  }
  return receivers;
}

std::vector<std::string_view> PubSub::Channels(std::optional<std::string_view> glob) const {
  std::vector<std::string_view> names;
  for (const auto& [channel, subscribers] : channels_) {
    if (!glob || GlobMatch(*glob, channel)) names.emplace_back(channel);
  }
  return names;
}

size_t PubSub::SubscriberCount(std::string_view channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.size();
}

}  // namespace sluice::server
