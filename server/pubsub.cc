#include "server/pubsub.h"

#include <algorithm>

#include "common/glob_match.h"

namespace sluice::server {
namespace {

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void Erase(std::vector<std::string>& names, std::string_view name) {
  names.erase(std::find(names.begin(), names.end(), name));
}

void EraseSubscriber(std::vector<Client*>& subscribers, const Client* client) {
  subscribers.erase(std::find(subscribers.begin(), subscribers.end(), client));
}

void Deliver(const std::vector<Client*>& subscribers, const PubSubMessage& message) {
  for (Client* subscriber : subscribers) {
    if (subscriber->push_sink != nullptr) subscriber->push_sink->DeliverMessage(message);
  }
}

}  // namespace

bool PubSub::Subscribe(Client& client, std::string_view channel) {
  if (Contains(client.channels, channel)) return false;
  client.channels.emplace_back(channel);
  channels_[std::string(channel)].push_back(&client);
  return true;
}

bool PubSub::Unsubscribe(Client& client, std::string_view channel) {
  if (!Contains(client.channels, channel)) return false;
  Erase(client.channels, channel);
  auto it = channels_.find(std::string(channel));
  EraseSubscriber(it->second, &client);
  if (it->second.empty()) channels_.erase(it);
  return true;
}

bool PubSub::PSubscribe(Client& client, std::string_view pattern) {
  if (Contains(client.patterns, pattern)) return false;
  client.patterns.emplace_back(pattern);
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const auto& entry) { return entry.first == pattern; });
  if (it == patterns_.end()) it = patterns_.emplace(patterns_.end(), pattern, SubscriberList{});
  it->second.push_back(&client);
  return true;
}

bool PubSub::PUnsubscribe(Client& client, std::string_view pattern) {
  if (!Contains(client.patterns, pattern)) return false;
  Erase(client.patterns, pattern);
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const auto& entry) { return entry.first == pattern; });
  EraseSubscriber(it->second, &client);
  if (it->second.empty()) patterns_.erase(it);
  return true;
}

void PubSub::RemoveClient(Client& client) {
  while (!client.channels.empty()) Unsubscribe(client, std::string(client.channels.back()));
  while (!client.patterns.empty()) PUnsubscribe(client, std::string(client.patterns.back()));
}

int64_t PubSub::Publish(std::string_view channel, std::string_view payload) {
  int64_t receivers = 0;
  if (auto it = channels_.find(std::string(channel)); it != channels_.end()) {
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

std::vector<std::string_view> PubSub::Channels(std::string_view glob) const {
  std::vector<std::string_view> names;
  for (const auto& [channel, subscribers] : channels_) {
    if (glob.empty() || GlobMatch(glob, channel)) names.emplace_back(channel);
  }
  return names;
}

size_t PubSub::SubscriberCount(std::string_view channel) const {
  auto it = channels_.find(std::string(channel));
  return it == channels_.end() ? 0 : it->second.size();
}

}  // namespace sluice::server
