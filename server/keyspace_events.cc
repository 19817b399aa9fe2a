#include "server/keyspace_events.h"

#include <optional>
#include <string>
#include <utility>

namespace sluice::server {
namespace {

std::string Channel(std::string_view prefix, int db, std::string_view name) {
  std::string channel(prefix);
  channel += std::to_string(db);
  channel += "__:";
  channel += name;
  return channel;
}

}  // namespace

void PublishKeyspaceEvent(ServerContext& server, uint32_t type, std::string_view event,
                          std::string_view key, int db) {
  const uint32_t flags = server.config->notify_keyspace_events;
  if ((flags & type) == 0) return;
  // Keyspace first, then keyevent, as Redis.
  if (flags & kNotifyKeyspace) server.pubsub.Publish(Channel("__keyspace@", db, key), event);
  if (flags & kNotifyKeyevent) server.pubsub.Publish(Channel("__keyevent@", db, event), key);
}

bool LiveKeyUncounted(CommandContext& ctx, std::string_view key) {
  // A look that is no read of the command's: not counted, so no keymiss either.
  storage::LookupCounter& counter = ctx.server.stats.keyspace;
  const bool counting = std::exchange(counter.on, false);
  StatusOr<std::optional<storage::Metadata>> meta = ctx.engine().GetMetadata(key, ctx.now_ms);
  counter.on = counting;
  return meta.ok() && meta->has_value();
}

void PublishRemoval(CommandContext& ctx, uint32_t type, std::string_view event,
                    std::string_view key) {
  const int db = ctx.engine().database();
  PublishKeyspaceEvent(ctx.server, type, event, key, db);
  if (!LiveKeyUncounted(ctx, key)) PublishKeyspaceEvent(ctx.server, kNotifyGeneric, "del", key, db);
}

void EngineKeyEvents::OnKeyExpired(int db, std::string_view key) {
  PublishKeyspaceEvent(server_, kNotifyExpired, "expired", key, db);
  // An expiry invalidates cached copies, as Redis's signalModifiedKey after it.
  if (server_.tracking.Active()) server_.tracking.KeyModified(key, 0);
}

void EngineKeyEvents::OnKeyMissed(int db, std::string_view key) {
  PublishKeyspaceEvent(server_, kNotifyKeyMiss, "keymiss", key, db);
}

void EngineKeyEvents::OnKeyCreated(int db, std::string_view key) {
  PublishKeyspaceEvent(server_, kNotifyNew, "new", key, db);
}

void EngineKeyEvents::Apply() {
  if (server_.engine == nullptr) return;
  const uint32_t flags = server_.config->notify_keyspace_events;
  // Without K or E nothing is published, so nothing needs reporting.
  const bool publishing = (flags & (kNotifyKeyspace | kNotifyKeyevent)) != 0;
  const bool engine_classes = (flags & (kNotifyExpired | kNotifyKeyMiss | kNotifyNew)) != 0;
  // Client-side caching needs the expiries too, while a client tracks keys or keys are
  // remembered.
  const bool tracking = server_.tracking.Active();
  server_.engine->set_key_events((publishing && engine_classes) || tracking ? this : nullptr,
                                 publishing && (flags & kNotifyNew) != 0);
}

}  // namespace sluice::server
