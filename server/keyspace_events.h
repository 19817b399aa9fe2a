#pragma once

// Keyspace notifications, as Redis 7.0's notify.c: a write publishes its event on
// __keyspace@<db>__:<key> (the event as payload) and __keyevent@<db>__:<event> (the key as
// payload), through the ordinary pub/sub channels, for the classes notify-keyspace-events
// turns on. Commands call the Notify functions below where Redis calls notifyKeyspaceEvent;
// the engine reports expiries, misses and created keys through EngineKeyEvents.
//
// With notifications off (the default) each Notify function costs one test of the configured
// classes, a value in cache: anything else it needs is looked at only past that test.

#include <cstdint>
#include <string_view>

#include "server/command_context.h"
#include "server/keyspace_event_flags.h"
#include "server/server_context.h"
#include "storage/engine.h"

namespace sluice::server {

// Publishes `event` about `key` of database `db`, if notify-keyspace-events has its class
// `type` on (and K or E).
void PublishKeyspaceEvent(ServerContext& server, uint32_t type, std::string_view event,
                          std::string_view key, int db);

// Whether events of a class in `types` may be published.
inline bool KeyspaceEventsOn(const CommandContext& ctx, uint32_t types) {
  return (ctx.server.config->notify_keyspace_events & types) != 0;
}

// A command's event about `key`, in the database the command works in.
inline void NotifyKeyspaceEvent(CommandContext& ctx, uint32_t type, std::string_view event,
                                std::string_view key) {
  if (!KeyspaceEventsOn(ctx, type)) return;
  PublishKeyspaceEvent(ctx.server, type, event, key, ctx.engine().database());
}

// The same for an event that happened only if `happened` (HSETNX that set, SADD that added).
inline void NotifyKeyspaceEventIf(CommandContext& ctx, bool happened, uint32_t type,
                                  std::string_view event, std::string_view key) {
  if (happened) NotifyKeyspaceEvent(ctx, type, event, key);
}

// After elements were removed from `key` (HDEL, LPOP, SREM, ZREM ...), if `removed` (some
// were): the type's event, then "del" if that left the key empty (deleted), as Redis.
void PublishRemoval(CommandContext& ctx, uint32_t type, std::string_view event,
                    std::string_view key);
inline void NotifyRemoval(CommandContext& ctx, bool removed, uint32_t type, std::string_view event,
                          std::string_view key) {
  if (!KeyspaceEventsOn(ctx, type | kNotifyGeneric)) return;
  if (removed) PublishRemoval(ctx, type, event, key);
}

// Whether `key` holds a live key, looked at without counting it as a read (no keymiss).
bool LiveKeyUncounted(CommandContext& ctx, std::string_view key);

// For a STORE command (SINTERSTORE, ZUNIONSTORE, SORT ... STORE, BITOP ...) about to store a
// result, empty or not: whether that deletes a key that is there (Redis then sends "del").
inline bool StoreDeletesKey(CommandContext& ctx, bool empty_result, std::string_view key) {
  if (!KeyspaceEventsOn(ctx, kNotifyGeneric)) return false;
  return empty_result && LiveKeyUncounted(ctx, key);
}

// A STORE command's destination: its event when it holds the result, "del" when an empty
// result deleted a key that was there.
inline void NotifyStored(CommandContext& ctx, uint32_t type, std::string_view event,
                         std::string_view key, bool stored, bool deleted) {
  if (!KeyspaceEventsOn(ctx, type | kNotifyGeneric)) return;
  if (stored) {
    NotifyKeyspaceEvent(ctx, type, event, key);
  } else if (deleted) {
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", key);
  }
}

// The engine's reports as events: "expired" (x), "keymiss" (m) and "new" (n).
class EngineKeyEvents final : public storage::KeyEventObserver {
 public:
  explicit EngineKeyEvents(ServerContext& server) : server_(server) {}

  void OnKeyExpired(int db, std::string_view key) override;
  void OnKeyMissed(int db, std::string_view key) override;
  void OnKeyCreated(int db, std::string_view key) override;

  // Installs itself in the engine while a class the engine reports is on (with K or E), or
  // while clients track keys (expiries invalidate them); removes itself otherwise. Called at
  // start, after every CONFIG SET that changes the classes, and when tracking starts or ends.
  void Apply();

 private:
  ServerContext& server_;
};

}  // namespace sluice::server
