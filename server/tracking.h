#pragma once

// CLIENT TRACKING (client-side caching), as Redis 7.0's tracking.c: the keys a tracking client
// reads are remembered; when one is modified (by any client, an expiry or a flush) its readers
// get an invalidation once and the key is forgotten. BCAST clients get every modified key
// under their prefixes, batched per loop turn. Messages are RESP3 pushes, or pub/sub messages
// on __redis__:invalidate to a RESP2 client that a tracking client redirects to.
//
// Where a message goes relative to replies, as Redis 7.0: an invalidation meant for a client
// while its command executes waits until that command's reply is out (Redis's
// tracking_pending_keys); any other goes out at once, so a redirect target running the write
// gets it before its reply, and evictions before the next command are sent before its reply.
// The dispatcher and the session call in only while Active(), so with no tracking client and
// no key remembered each command pays one test of it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/tracking_table.h"

namespace sluice::server {

struct TrackingMode {
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
};

class Tracking {
 public:
  // What it needs of the server: a connected client by id (a redirect target), a call of
  // Broadcast() once the loop turn is over, and word when Active() may have changed (the engine
  // reports expiries while it holds).
  struct Hooks {
    std::function<Client*(uint64_t id)> find_client;
    std::function<void()> schedule_broadcast;
    std::function<void()> activity_changed;
  };
  void set_hooks(Hooks hooks) { hooks_ = std::move(hooks); }
  // tracking-table-max-keys (0: no limit), read before each command.
  void set_max_keys(const int64_t* max_keys) { max_keys_ = max_keys; }

  // Clients with tracking on (INFO's tracking_clients).
  size_t clients() const { return clients_.size(); }
  // Whether writes and expiries concern it: a client tracks keys, or keys that clients gone
  // since read are still remembered. Those go when they are modified, as in Redis (whose
  // writes always invalidate), so short-lived tracking connections leave nothing for good.
  bool Active() const { return !clients_.empty() || table_.key_count() != 0; }
  // The client with that id if it has tracking on.
  Client* TrackedClient(uint64_t id) const;
  // The connected client with that id, tracking or not (a REDIRECT target).
  Client* FindClient(uint64_t id) const {
    return hooks_.find_client ? hooks_.find_client(id) : nullptr;
  }

  // CLIENT TRACKING ON, its options checked already. While on, turning it on again sets the
  // new redirect and flags and adds the prefixes, as Redis.
  void Enable(Client& client, uint64_t redirect, TrackingMode mode,
              std::span<const std::string_view> prefixes);
  // CLIENT TRACKING OFF, RESET, and a closed connection.
  void Disable(Client& client);

  // Whether `reader`'s reads are remembered now: tracking on, not BCAST, and OPTIN/OPTOUT's
  // CLIENT CACHING agreeing (tested before a command's keys are walked, as Redis's call()).
  bool RemembersReads(const Client& reader) const;
  // After a read-only command of `reader`, which RemembersReads: remembers a key it read.
  void RememberKey(const Client& reader, std::string_view key) { table_.Remember(key, reader.id); }
  // The same for several keys (a script's caller, its declared keys), testing RemembersReads.
  void RememberKeys(Client& reader, std::span<const std::string_view> keys);
  // `key` was modified (Redis's signalModifiedKey); `modifier_id` 0 when no client did it (an
  // expiry), for NOLOOP.
  void KeyModified(std::string_view key, uint64_t modifier_id);
  // FLUSHDB / FLUSHALL: every tracking client is told all its keys are invalid (a null), and
  // the table forgets every key, as Redis.
  void Flushed();

  // Around each request a connection runs: before it, tracked keys over tracking-table-max-keys
  // are evicted (with invalidations); after it, the invalidations that waited for its reply are
  // sent, and CLIENT CACHING's one-command effect ends (except after CLIENT itself or in MULTI).
  void BeforeCommand();
  void AfterCommand(Client& client);
  // Whether AfterCommand has nothing to do: no client tracks, and the request just run left no
  // invalidation for its reply (tested after the request, which may have turned tracking on in
  // a MULTI, or turned off the last client's).
  bool Idle() const { return clients_.empty() && pending_.empty(); }
  // Once per loop turn with modified keys: each prefix's keys go to its BCAST clients.
  void Broadcast();

  uint64_t total_keys() const { return table_.key_count(); }
  uint64_t total_items() const { return table_.item_count(); }
  uint64_t total_prefixes() const { return table_.prefix_count(); }

 private:
  // Calls the activity hook when Active() is no longer `was_active`.
  void NoteActivity(bool was_active);
  // What an invalidation carries: keys, or a null ("every key", after a flush).
  struct Keys {
    std::span<const std::string_view> names = {};
    bool all = false;
  };
  // Why a key is invalid. kModified: a write, an expiry or a flush, perhaps while a command
  // executes (its own client's invalidation then waits for its reply) and heard by BCAST
  // clients. kEvicted: tracking-table-max-keys, before a command, sent to the key's readers.
  enum class Cause { kModified, kEvicted };
  void Invalidate(std::string_view key, uint64_t modifier_id, Cause cause);
  // Sends `keys` on behalf of `tracker`: to it, or to its redirect target.
  void Send(Client& tracker, const Keys& keys, bool after_reply);
  void LimitKeys();
  void Subscribe(Client& client, std::string_view prefix);

  Hooks hooks_;
  const int64_t* max_keys_ = nullptr;
  std::map<uint64_t, Client*> clients_;  // by id: the order they connected in, as Redis's list
  TrackingTable table_;
  // The running client's own invalidations, sent after its reply (nullopt: a flush's null).
  // Only the client running its requests gets any (Running()), so they are always its.
  std::vector<std::optional<std::string>> pending_;
  bool broadcast_scheduled_ = false;
  unsigned eviction_rounds_ = 0;  // turns in a row that ended over the limit
  std::mt19937_64 random_{0x5eed};
};

}  // namespace sluice::server
