#pragma once

// Redis 7.0's key-spec flags (COMMAND INFO's key specs, COMMAND GETKEYSANDFLAGS): what a
// command does with one of its keys. One of RO, RW, OW, RM (how it treats the value), with
// access (it reads or returns it), update, insert or delete (how it changes it). The ACL asks
// read access of a key spec with `access` and write access of one that changes it.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::server {

using KeySpecFlags = uint16_t;

inline constexpr KeySpecFlags kKeyRO = 1 << 0;
inline constexpr KeySpecFlags kKeyRW = 1 << 1;
inline constexpr KeySpecFlags kKeyOW = 1 << 2;
inline constexpr KeySpecFlags kKeyRM = 1 << 3;
inline constexpr KeySpecFlags kKeyAccess = 1 << 4;
inline constexpr KeySpecFlags kKeyUpdate = 1 << 5;
inline constexpr KeySpecFlags kKeyInsert = 1 << 6;
inline constexpr KeySpecFlags kKeyDelete = 1 << 7;
// COMMAND INFO: the arguments decide the flags (SET's GET); GETKEYSANDFLAGS shows them decided.
inline constexpr KeySpecFlags kKeyVariableFlags = 1 << 8;

// The combinations Redis's tables use.
inline constexpr KeySpecFlags kKeyLooks = kKeyRO;                              // EXISTS, TYPE
inline constexpr KeySpecFlags kKeyReads = kKeyRO | kKeyAccess;                 // GET
inline constexpr KeySpecFlags kKeyUpdates = kKeyRW | kKeyUpdate;               // HSET, EXPIRE
inline constexpr KeySpecFlags kKeyInserts = kKeyRW | kKeyInsert;               // LPUSH, SADD
inline constexpr KeySpecFlags kKeyRemoves = kKeyRW | kKeyDelete;               // HDEL, LTRIM
inline constexpr KeySpecFlags kKeyChanges = kKeyRW | kKeyAccess | kKeyUpdate;  // INCR
inline constexpr KeySpecFlags kKeyTakes = kKeyRW | kKeyAccess | kKeyDelete;    // LPOP
inline constexpr KeySpecFlags kKeyOverwrites = kKeyOW | kKeyUpdate;            // SET, a destination
inline constexpr KeySpecFlags kKeyCreates = kKeyOW | kKeyInsert;               // SETNX
inline constexpr KeySpecFlags kKeyDeletes = kKeyRM | kKeyDelete;               // DEL

inline constexpr bool KeyIsRead(KeySpecFlags flags) { return (flags & kKeyAccess) != 0; }
inline constexpr bool KeyIsWritten(KeySpecFlags flags) {
  return (flags & (kKeyUpdate | kKeyInsert | kKeyDelete)) != 0;
}

// The flags' names in Redis's order (addReplyFlagsForKeyArgs).
inline std::vector<std::string_view> KeySpecFlagNames(KeySpecFlags flags) {
  static constexpr std::pair<KeySpecFlags, std::string_view> kNames[] = {
      {kKeyRO, "RO"},         {kKeyRW, "RW"},         {kKeyOW, "OW"},
      {kKeyRM, "RM"},         {kKeyAccess, "access"}, {kKeyUpdate, "update"},
      {kKeyInsert, "insert"}, {kKeyDelete, "delete"}, {kKeyVariableFlags, "variable_flags"},
  };
  std::vector<std::string_view> names;
  for (const auto& [flag, name] : kNames) {
    if ((flags & flag) != 0) names.push_back(name);
  }
  return names;
}

}  // namespace sluice::server
