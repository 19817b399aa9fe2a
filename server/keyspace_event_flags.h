#pragma once

// notify-keyspace-events: the classes of keyspace events to publish, as Redis 7.0's NOTIFY_*
// bits and class letters (K, E, g, $, l, s, h, z, x, e, t, m, d, n, and A for g$lshzxetd).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::server {

enum KeyspaceEventClass : uint32_t {
  kNotifyKeyspace = 1u << 0,  // K: __keyspace@<db>__:<key> channels
  kNotifyKeyevent = 1u << 1,  // E: __keyevent@<db>__:<event> channels
  kNotifyGeneric = 1u << 2,   // g: DEL, EXPIRE, RENAME ...
  kNotifyString = 1u << 3,    // $
  kNotifyList = 1u << 4,      // l
  kNotifySet = 1u << 5,       // s
  kNotifyHash = 1u << 6,      // h
  kNotifyZset = 1u << 7,      // z
  kNotifyExpired = 1u << 8,   // x
  kNotifyEvicted = 1u << 9,   // e (sluice evicts nothing: accepted, never sent)
  kNotifyStream = 1u << 10,   // t (sluice has no streams: accepted, never sent)
  kNotifyKeyMiss = 1u << 11,  // m: a read found no key
  kNotifyLoaded = 1u << 12,   // module key loads: no letter, as in Redis
  kNotifyModule = 1u << 13,   // d: Redis's module events; sluice's limiter commands
  kNotifyNew = 1u << 14,      // n: a key was created
  // A: every class but m and n (Redis's NOTIFY_ALL).
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule,
};

// The classes a value names, as Redis's keyspaceEventsStringToFlags: read up to its first NUL
// byte (a C string there); nullopt if it holds a character that names no class.
std::optional<uint32_t> ParseKeyspaceEvents(std::string_view classes);

// CONFIG GET's text for `flags`, as Redis's keyspaceEventsFlagsToString: "A" for every class of
// A, else the letters in Redis's order, then K, E and m.
std::string FormatKeyspaceEvents(uint32_t flags);

// The error CONFIG SET and the config file give for a value ParseKeyspaceEvents refuses.
inline constexpr std::string_view kInvalidKeyspaceEvents =
    "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

}  // namespace sluice::server
