#pragma once

// The bookkeeping of client-side caching, as Redis's tracking.c keeps it: which clients (by id)
// may hold which keys (default mode), and the BCAST prefixes with their clients and the keys
// modified since the last broadcast. Key names only, not per database: Redis's table ignores
// databases too. Pure data; server/tracking.h sends the messages.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_hash.h"

namespace sluice::server {

class TrackingTable {
 public:
  // --- Default mode: the keys read ------------------------------------------------------
  void Remember(std::string_view key, uint64_t client_id);
  // Forgets `key`: the ids of the clients that read it since it was last forgotten (none when
  // nobody did). Ids of clients gone or no longer tracking stay until then, as in Redis.
  std::vector<uint64_t> Take(std::string_view key);
  // The key at position `random` modulo the number of keys (eviction picks one at random);
  // nullopt when there is none.
  std::optional<std::string> KeyAt(uint64_t random) const;
  void ForgetAllKeys();
  size_t key_count() const { return order_.size(); }
  // Client ids over all keys (INFO's tracking_total_items).
  uint64_t item_count() const { return items_; }

  // --- BCAST: prefixes ------------------------------------------------------------------
  // Whether two prefixes would both match some key (one starts with the other).
  static bool PrefixesOverlap(std::string_view a, std::string_view b);
  void Subscribe(std::string_view prefix, uint64_t client_id);
  // The prefix goes once its last client leaves.
  void Unsubscribe(std::string_view prefix, uint64_t client_id);
  // A modified key, noted under every prefix it starts with, with who modified it last (0: no
  // client, as an expiry) for NOLOOP.
  void NoteModified(std::string_view key, uint64_t modifier_id);
  size_t prefix_count() const { return prefixes_.size(); }
  bool has_noted_keys() const { return noted_ != 0; }

  // The keys noted under one prefix (in byte order), each with its last modifier, and the
  // clients of that prefix.
  using NotedKeys = std::map<std::string, uint64_t, std::less<>>;
  // Calls `each(keys, clients)` for every prefix (in byte order) with noted keys, then forgets
  // them all: the next broadcast carries only keys modified from now on.
  template <typename Fn>
  void DrainNoted(Fn&& each) {
    for (auto& [prefix, state] : prefixes_) {
      if (state.keys.empty()) continue;
      NotedKeys keys = std::move(state.keys);
      state.keys.clear();
      each(keys, state.clients);
    }
    noted_ = 0;
  }

 private:
  struct Readers {
    std::vector<uint64_t> ids;  // each once
    size_t slot = 0;            // where its key is in order_
  };
  struct Prefix {
    std::set<uint64_t> clients;
    NotedKeys keys;
  };

  StringMap<Readers> readers_;
  // The entries of readers_ (their nodes never move), for picking a key at random; each knows
  // its slot, so a key taken out moves the last one into its slot with no lookup.
  std::vector<StringMap<Readers>::value_type*> order_;
  uint64_t items_ = 0;
  std::map<std::string, Prefix, std::less<>> prefixes_;
  size_t noted_ = 0;  // keys noted since the last drain
};

}  // namespace sluice::server
