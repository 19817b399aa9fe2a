#include "server/tracking.h"

#include <algorithm>
#include <utility>

#include "resp/resp_writer.h"
#include "server/pubsub.h"

namespace sluice::server {
namespace {

constexpr std::string_view kInvalidateChannel = "__redis__:invalidate";

// Whether `client`'s connection is running its requests (Redis's server.current_client; for a
// key modified, CLIENT_EXECUTING_COMMAND). One connection runs at a time.
bool Running(const Client& client) {
  return client.push_sink != nullptr && client.push_sink->Running();
}

void Deliver(Client& to, std::string_view bytes, bool after_reply) {
  if (to.push_sink != nullptr) to.push_sink->DeliverPush(bytes, after_reply);
}

}  // namespace

void Tracking::Enable(Client& client, uint64_t redirect, TrackingMode mode,
                      std::span<const std::string_view> prefixes) {
  ClientTracking& t = client.tracking;
  if (!t.on) {
    const bool was_active = Active();
    clients_.emplace(client.id, &client);
    NoteActivity(was_active);
  }
  t.on = true;
  t.broken_redirect = t.bcast = t.optin = t.optout = t.noloop = false;
  t.redirect = redirect;
  if (mode.bcast) {
    t.bcast = true;
    if (prefixes.empty()) Subscribe(client, "");
    for (std::string_view prefix : prefixes) Subscribe(client, prefix);
  }
  t.optin = mode.optin;
  t.optout = mode.optout;
  t.noloop = mode.noloop;
}

void Tracking::Subscribe(Client& client, std::string_view prefix) {
  std::vector<std::string>& mine = client.tracking.prefixes;
  auto at = std::lower_bound(mine.begin(), mine.end(), prefix);
  if (at != mine.end() && *at == prefix) return;
  mine.emplace(at, prefix);
  table_.Subscribe(prefix, client.id);
}

void Tracking::Disable(Client& client) {
  ClientTracking& t = client.tracking;
  if (t.bcast) {
    for (const std::string& prefix : t.prefixes) table_.Unsubscribe(prefix, client.id);
    t.prefixes.clear();
  }
  if (!t.on) return;
  // Its ids stay in the table until their keys are modified, as in Redis: a client with many
  // keys leaves at no cost.
  const bool was_active = Active();
  clients_.erase(client.id);
  t.on = t.broken_redirect = t.bcast = t.optin = t.optout = t.caching = t.noloop = false;
  NoteActivity(was_active);
}

bool Tracking::RemembersReads(const Client& reader) const {
  const ClientTracking& t = reader.tracking;
  if (!t.on || t.bcast) return false;
  return !((t.optin && !t.caching) || (t.optout && t.caching));
}

void Tracking::RememberKeys(Client& reader, std::span<const std::string_view> keys) {
  if (!RemembersReads(reader)) return;
  for (std::string_view key : keys) RememberKey(reader, key);
}

void Tracking::KeyModified(std::string_view key, uint64_t modifier_id) {
  Invalidate(key, modifier_id, Cause::kModified);
}

Client* Tracking::TrackedClient(uint64_t id) const {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

void Tracking::NoteActivity(bool was_active) {
  if (Active() != was_active && hooks_.activity_changed) hooks_.activity_changed();
}

void Tracking::Invalidate(std::string_view key, uint64_t modifier_id, Cause cause) {
  const bool was_active = Active();
  const bool modified = cause == Cause::kModified;
  if (modified && table_.prefix_count() > 0) {
    table_.NoteModified(key, modifier_id);
    if (table_.has_noted_keys() && !broadcast_scheduled_ && hooks_.schedule_broadcast) {
      broadcast_scheduled_ = true;
      hooks_.schedule_broadcast();
    }
  }
  for (uint64_t id : table_.Take(key)) {
    Client* target = TrackedClient(id);
    // A client that went BCAST since it read the key has no use for it.
    if (target == nullptr || target->tracking.bcast) continue;
    if (target->tracking.noloop && target->id == modifier_id) continue;
    if (modified && Running(*target)) {
      pending_.emplace_back(std::string(key));
    } else {
      Send(*target, Keys{.names = std::span(&key, 1)}, /*after_reply=*/false);
    }
  }
  NoteActivity(was_active);
}

void Tracking::Flushed() {
  for (const auto& entry : clients_) {
    Client& client = *entry.second;
    if (Running(client)) {
      pending_.emplace_back(std::nullopt);
    } else {
      Send(client, Keys{.all = true}, /*after_reply=*/false);
    }
  }
  const bool was_active = Active();
  table_.ForgetAllKeys();
  NoteActivity(was_active);
}

void Tracking::Send(Client& tracker, const Keys& keys, bool after_reply) {
  Client* to = &tracker;
  const bool redirected = tracker.tracking.redirect != 0;
  if (redirected) {
    to = FindClient(tracker.tracking.redirect);
    if (to == nullptr) {
      tracker.tracking.broken_redirect = true;
      if (tracker.protocol == resp::ProtocolVersion::kResp3) {
        std::string broken;
        resp::RespWriter out(&broken, resp::ProtocolVersion::kResp3);
        out.Push(2);
        out.Bulk("tracking-redir-broken");
        out.Int(static_cast<int64_t>(tracker.tracking.redirect));
        Deliver(tracker, broken, after_reply);
      }
      return;
    }
  }
  std::string message;
  resp::RespWriter out(&message, to->protocol);
  if (to->protocol == resp::ProtocolVersion::kResp3) {
    out.Push(2);
    out.Bulk("invalidate");
  } else if (redirected && to->Subscriptions() > 0) {
    // RESP2 has no pushes: a redirect target in pub/sub mode gets a message (Redis sends it
    // whatever channels the target is on).
    out.Array(3);
    out.Bulk("message");
    out.Bulk(kInvalidateChannel);
  } else {
    return;  // a RESP2 connection cannot be told anything among its replies
  }
  if (keys.all) {
    // The null of the tracking client's protocol, as Redis (even when the target's differs).
    resp::RespWriter(&message, tracker.protocol).Null();
  } else {
    out.Array(static_cast<int64_t>(keys.names.size()));
    for (std::string_view name : keys.names) out.Bulk(name);
  }
  Deliver(*to, message, after_reply);
}

void Tracking::BeforeCommand() {
  if (max_keys_ != nullptr && *max_keys_ > 0) LimitKeys();
}

void Tracking::LimitKeys() {
  const uint64_t max_keys = static_cast<uint64_t>(*max_keys_);
  if (table_.key_count() <= max_keys) {
    eviction_rounds_ = 0;
    return;
  }
  // As Redis's trackingLimitUsedSlots: random keys go, with an effort that grows with each
  // command that still finds the table over the limit.
  for (int effort = 100 * static_cast<int>(eviction_rounds_ + 1); effort > 0; --effort) {
    std::optional<std::string> key = table_.KeyAt(random_());
    if (!key) break;
    Invalidate(*key, 0, Cause::kEvicted);
    if (table_.key_count() <= max_keys) {
      eviction_rounds_ = 0;
      return;
    }
  }
  ++eviction_rounds_;
}

void Tracking::AfterCommand(Client& client) {
  if (!pending_.empty()) {
    std::vector<std::optional<std::string>> pending = std::move(pending_);
    pending_.clear();
    for (const std::optional<std::string>& key : pending) {
      if (key) {
        const std::string_view name = *key;
        Send(client, Keys{.names = std::span(&name, 1)}, /*after_reply=*/true);
      } else {
        Send(client, Keys{.all = true}, /*after_reply=*/true);
      }
    }
  }
  // CLIENT CACHING lasts one command, or one transaction, as Redis's resetClient.
  if (!client.in_multi && client.last_command != "client") client.tracking.caching = false;
}

void Tracking::Broadcast() {
  broadcast_scheduled_ = false;
  if (clients_.empty()) return;
  table_.DrainNoted([&](const TrackingTable::NotedKeys& noted, const std::set<uint64_t>& ids) {
    std::vector<std::string_view> all;
    all.reserve(noted.size());
    for (const auto& [key, modifier] : noted) all.push_back(key);
    for (uint64_t id : ids) {
      Client* client = TrackedClient(id);
      if (client == nullptr) continue;
      if (!client->tracking.noloop) {
        Send(*client, Keys{.names = all}, /*after_reply=*/false);
        continue;
      }
      // NOLOOP: without the keys it modified last itself; nothing if that leaves none.
      std::vector<std::string_view> others;
      for (const auto& [key, modifier] : noted) {
        if (modifier != id) others.push_back(key);
      }
      if (!others.empty()) Send(*client, Keys{.names = others}, /*after_reply=*/false);
    }
  });
}

}  // namespace sluice::server
