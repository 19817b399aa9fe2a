#pragma once

// What the server knows about one connection, as commands see it (CLIENT, AUTH, HELLO...).
// The socket itself belongs to the Session; commands never touch it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/ordered_names.h"
#include "common/string_hash.h"
#include "resp/reply_builder.h"
#include "server/acl/user.h"

namespace sluice::server {

class PushSink;  // server/pubsub.h

struct WatchedKey {
  int db = 0;
  std::string key;
  bool had_expiry = false;  // a key with a TTL at WATCH time that expires aborts EXEC too
};

// CLIENT TRACKING (server/tracking.h): this connection's client-side caching mode, as Redis's
// CLIENT_TRACKING_* flags.
struct ClientTracking {
  bool on = false;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;           // no invalidation for keys it modified itself
  bool caching = false;          // CLIENT CACHING YES (optin) or NO (optout): for the next command
  bool broken_redirect = false;  // the client it redirects to went away
  uint64_t redirect = 0;         // the client that gets its invalidations; 0: itself
  std::vector<std::string> prefixes;  // BCAST's, sorted as Redis lists them
};

struct Client {
  uint64_t id = 0;
  std::string name;      // CLIENT SETNAME
  std::string lib_name;  // CLIENT SETINFO LIB-NAME
  std::string lib_ver;   // CLIENT SETINFO LIB-VER
  std::string addr;      // peer "ip:port" (or "/path:0" on a Unix socket)
  std::string laddr;     // local "ip:port"
  int fd = -1;
  bool is_local = false;  // loopback or Unix socket: enable-debug-command local, protected-mode
  bool is_unix = false;
  bool authenticated = false;
  // The ACL user the connection runs as (default until AUTH); never null.
  std::shared_ptr<const AclUser> user = UnrestrictedUser();
  resp::ProtocolVersion protocol = resp::ProtocolVersion::kResp2;
  int db = 0;  // SELECT: every command works in this database
  int64_t created_ms = 0;
  int64_t last_interaction_ms = 0;
  std::string_view last_command = "NULL";  // a command table name: lives as long as the server
  // With last_command, CLIENT LIST's cmd= ("config|get"): a name in a static subcommand table.
  std::string_view last_subcommand;
  // CLIENT LIST's qbuf, qbuf-free and omem: the input not run yet, the room left in the read
  // buffer, and the replies and messages the client has not taken.
  size_t query_buffer_bytes = 0;
  size_t query_buffer_free = 0;
  size_t output_buffer_bytes = 0;
  size_t output_buffer_allocated = 0;  // the reply buffers' capacity (CLIENT LIST's tot-mem)
  // Set by QUIT and fatal errors: the session closes once this batch's replies are written.
  bool close_after_reply = false;
  // Parked by BLOCK: the session runs nothing else until the limiter queue answers.
  bool blocked = false;
  // Its next request is held by CLIENT PAUSE (shown and counted as blocked, as in Redis): its
  // place in line, 1 for the first held; 0 when not held.
  uint64_t paused = 0;
  // In MONITOR mode (server/monitor_feed.h): sees every command, may not touch keys.
  bool monitor = false;
  // CLIENT REPLY, as Redis's flags: OFF drops every reply until ON; SKIP drops the next
  // command's (skip_next turns into skip once the CLIENT REPLY SKIP command is done).
  bool reply_off = false;
  bool reply_skip_next = false;
  bool reply_skip = false;
  // Inside EXEC (or a script): BLOCK decides at once instead of waiting.
  bool deny_blocking = false;
  // Running EXEC's queued commands: CLIENT LIST's cmd= stays "exec", BGSAVE is scheduled, and
  // keys expire as of `exec_start_ms` (the EXEC's own time) for all of them.
  bool in_exec = false;
  int64_t exec_start_ms = 0;
  size_t exec_commands = 0;  // how many EXEC runs: CLIENT LIST's multi= meanwhile, as Redis

  // MULTI/EXEC state.
  bool in_multi = false;
  bool multi_aborted = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> multi_queue;
  std::vector<WatchedKey> watched;
  bool watch_dirty = false;    // a watched key was written since WATCH
  bool no_evict = false;       // CLIENT NO-EVICT ON (shown in CLIENT LIST; nothing is evicted)
  // SCRIPT DEBUG YES|SYNC was asked for and refused (no debugger): the next EVAL is refused
  // too, as it would have been the one debugged. redis-cli --ldb ignores the first refusal,
  // and would otherwise run the script for real and keep its writes.
  bool script_debug_refused = false;

  // Pub/sub (server/pubsub.h): where published messages go (the session; none for a script's
  // client), and what this client listens to.
  PushSink* push_sink = nullptr;
  StringSet channels;
  OrderedNames patterns;     // in the order subscribed, as Redis 7.0's list
  StringSet shard_channels;  // SSUBSCRIBE's, a namespace of their own
  // Every subscription: with any, a RESP2 client is in pub/sub mode (Redis's CLIENT_PUBSUB).
  size_t Subscriptions() const {
    return channels.size() + patterns.size() + shard_channels.size();
  }
  // The count (P)SUBSCRIBE and (P)UNSUBSCRIBE reply: shard channels not included, as Redis.
  size_t ChannelAndPatternCount() const { return channels.size() + patterns.size(); }

  ClientTracking tracking;
};

}  // namespace sluice::server
