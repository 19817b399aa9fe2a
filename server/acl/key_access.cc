// Each command's key access (server/acl/key_access.h): Redis 7.0.15's key-spec flags, derived
// from how the command is registered (its flags and group), or from a table where a command
// differs from what those say; the ACL's needs follow from the flags (ACCESS needs read;
// INSERT, DELETE, UPDATE need write).

#include "server/acl/key_access.h"

#include <string>
#include <string_view>

#include "common/ascii.h"

namespace sluice::server {
namespace {

struct Override {
  std::string_view name;  // "get", or "object|encoding" for a subcommand
  KeySpecFlags first;     // the first key's flags
  KeySpecFlags rest;      // each later key's
  AclKeyAccess::Variable variable = AclKeyAccess::Variable::kNo;
  uint8_t sub_key = 0;
};

constexpr KeySpecFlags kPfAccess = kKeyRW | kKeyAccess;  // PFCOUNT may rewrite its cache
constexpr KeySpecFlags kPfMergeDest = kKeyRW | kKeyAccess | kKeyInsert;
// What SET and BITFIELD may do, as COMMAND INFO shows it; a request's flags are decided by its
// arguments (KeySpecFlagsFor).
constexpr KeySpecFlags kKeyMayChange = kKeyChanges | kKeyVariableFlags;

// Redis 7.0.15's key-spec flags for the commands whose registration does not tell them (the
// blocking pops, the list moves, the scripts and the limiter commands follow from it:
// FromRegistration).
constexpr Override kOverrides[] = {
    // Read-only commands that look at a key without reading its value.
    {"exists", kKeyLooks, kKeyLooks},
    {"touch", kKeyLooks, kKeyLooks},
    {"type", kKeyLooks, kKeyLooks},
    {"strlen", kKeyLooks, kKeyLooks},
    {"hexists", kKeyLooks, kKeyLooks},
    {"hlen", kKeyLooks, kKeyLooks},
    {"hstrlen", kKeyLooks, kKeyLooks},
    {"llen", kKeyLooks, kKeyLooks},
    {"scard", kKeyLooks, kKeyLooks},
    {"sismember", kKeyLooks, kKeyLooks},
    {"zcard", kKeyLooks, kKeyLooks},
    {"watch", kKeyLooks, kKeyLooks},
    {"object|encoding", kKeyLooks, kKeyLooks, AclKeyAccess::Variable::kNo, 2},
    {"object|freq", kKeyLooks, kKeyLooks, AclKeyAccess::Variable::kNo, 2},
    {"object|idletime", kKeyLooks, kKeyLooks, AclKeyAccess::Variable::kNo, 2},
    {"object|refcount", kKeyLooks, kKeyLooks, AclKeyAccess::Variable::kNo, 2},
    {"memory|usage", kKeyLooks, kKeyLooks, AclKeyAccess::Variable::kNo, 2},
    {"pfcount", kPfAccess, kPfAccess},
    {"pfdebug", kPfAccess, kPfAccess},
    // Write commands that also read or return what they change.
    {"incr", kKeyChanges, kKeyChanges},
    {"incrby", kKeyChanges, kKeyChanges},
    {"incrbyfloat", kKeyChanges, kKeyChanges},
    {"decr", kKeyChanges, kKeyChanges},
    {"decrby", kKeyChanges, kKeyChanges},
    {"getex", kKeyChanges, kKeyChanges},
    {"getset", kKeyChanges, kKeyChanges},
    {"setbit", kKeyChanges, kKeyChanges},
    {"move", kKeyChanges, kKeyChanges},
    {"hincrby", kKeyChanges, kKeyChanges},
    {"hincrbyfloat", kKeyChanges, kKeyChanges},
    {"zincrby", kKeyChanges, kKeyChanges},
    {"getdel", kKeyTakes, kKeyTakes},
    {"lpop", kKeyTakes, kKeyTakes},
    {"rpop", kKeyTakes, kKeyTakes},
    {"lmpop", kKeyTakes, kKeyTakes},
    {"spop", kKeyTakes, kKeyTakes},
    {"zpopmin", kKeyTakes, kKeyTakes},
    {"zpopmax", kKeyTakes, kKeyTakes},
    {"zmpop", kKeyTakes, kKeyTakes},
    {"set", kKeyMayChange, kKeyMayChange, AclKeyAccess::Variable::kSet},
    {"bitfield", kKeyMayChange, kKeyMayChange, AclKeyAccess::Variable::kBitfield},
    // Writes that do not read (write access, as the default): how they change the key.
    {"del", kKeyDeletes, kKeyDeletes},
    {"unlink", kKeyDeletes, kKeyDeletes},
    {"append", kKeyInserts, kKeyInserts},
    {"lpush", kKeyInserts, kKeyInserts},
    {"rpush", kKeyInserts, kKeyInserts},
    {"lpushx", kKeyInserts, kKeyInserts},
    {"rpushx", kKeyInserts, kKeyInserts},
    {"linsert", kKeyInserts, kKeyInserts},
    {"sadd", kKeyInserts, kKeyInserts},
    {"hsetnx", kKeyInserts, kKeyInserts},
    {"pfadd", kKeyInserts, kKeyInserts},
    {"hdel", kKeyRemoves, kKeyRemoves},
    {"srem", kKeyRemoves, kKeyRemoves},
    {"zrem", kKeyRemoves, kKeyRemoves},
    {"lrem", kKeyRemoves, kKeyRemoves},
    {"ltrim", kKeyRemoves, kKeyRemoves},
    {"zremrangebyrank", kKeyRemoves, kKeyRemoves},
    {"zremrangebyscore", kKeyRemoves, kKeyRemoves},
    {"zremrangebylex", kKeyRemoves, kKeyRemoves},
    {"mset", kKeyOverwrites, kKeyOverwrites},
    {"setex", kKeyOverwrites, kKeyOverwrites},
    {"psetex", kKeyOverwrites, kKeyOverwrites},
    {"restore", kKeyOverwrites, kKeyOverwrites},
    {"setnx", kKeyCreates, kKeyCreates},
    {"msetnx", kKeyCreates, kKeyCreates},
    // A source and a destination.
    {"copy", kKeyReads, kKeyOverwrites},
    {"rename", kKeyTakes, kKeyOverwrites},
    {"renamenx", kKeyTakes, kKeyCreates},
    {"smove", kKeyTakes, kKeyInserts},
    // A destination first, then the sources.
    {"bitop", kKeyOverwrites, kKeyReads},
    {"sdiffstore", kKeyOverwrites, kKeyReads},
    {"sinterstore", kKeyUpdates, kKeyReads},
    {"sunionstore", kKeyOverwrites, kKeyReads},
    {"zdiffstore", kKeyOverwrites, kKeyReads},
    {"zinterstore", kKeyOverwrites, kKeyReads},
    {"zunionstore", kKeyOverwrites, kKeyReads},
    {"zrangestore", kKeyOverwrites, kKeyReads},
    {"geosearchstore", kKeyOverwrites, kKeyReads},
    {"pfmerge", kPfMergeDest, kKeyReads},
    // A source first, then STORE (and STOREDIST) destinations.
    {"sort", kKeyReads, kKeyOverwrites},
    {"georadius", kKeyReads, kKeyOverwrites},
    {"georadiusbymember", kKeyReads, kKeyOverwrites},
    // The one limiter command that writes without reading: it deletes, as DEL (RM DELETE).
    {"rl.reset", kKeyDeletes, kKeyDeletes},
};

// Flags no argument decides, for a command that names no subcommand key.
constexpr AclKeyAccess WithFlags(KeySpecFlags first, KeySpecFlags rest) {
  return {first, rest, AclKeyAccess::Variable::kNo, 0};
}

AclKeyAccess FromRegistration(const CommandSpec& spec) {
  auto has = [&](CommandFlags f) { return HasFlag(spec.flags, f); };
  if (has(CommandFlags::kReadOnly)) return WithFlags(kKeyReads, kKeyReads);  // EVAL_RO too
  // A list move takes from its source and inserts into its destination.
  if (has(CommandFlags::kListMove)) return WithFlags(kKeyTakes, kKeyInserts);
  // A limiter command reads its key's state and writes it back; a script may do either (Redis's
  // key specs for EVAL: RW ACCESS UPDATE). Before kBlocking: a limiter command may block.
  if (spec.group == "limiter" || has(CommandFlags::kRunsScript)) {
    return WithFlags(kKeyChanges, kKeyChanges);
  }
  const bool write = has(CommandFlags::kWrite);
  // What a blocking write waited for it takes (Redis's blocking pops: RW ACCESS DELETE).
  if (write && has(CommandFlags::kBlocking)) return WithFlags(kKeyTakes, kKeyTakes);
  if (write) return WithFlags(kKeyUpdates, kKeyUpdates);
  return WithFlags(kKeyChanges, kKeyChanges);  // neither read-only nor a write: RW, to be safe
}

// Redis's bitfieldGetKeys: read-only while every operation is GET (or OVERFLOW).
bool BitfieldOnlyReads(Args args) {
  for (size_t i = 2; i < args.size(); ++i) {
    const size_t remaining = args.size() - i - 1;
    if (EqualsIgnoreCase(args[i], "get") && remaining >= 2) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "overflow") && remaining >= 1) {
      i += 1;
    } else {
      return false;  // SET, INCRBY, or a syntax error: not read-only, to be safe
    }
  }
  return true;
}

// Redis's setGetKeys: GET among the options makes the key read too.
bool SetReturnsOldValue(Args args) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "get")) return true;
  }
  return false;
}

}  // namespace

AclKeyAccess AclKeyAccessOf(const CommandSpec& spec, const Subcommand* sub) {
  const std::string name = FullName(spec, sub);
  for (const Override& o : kOverrides) {
    if (o.name != name) continue;
    return {o.first, o.rest, o.variable, o.sub_key};
  }
  return FromRegistration(spec);
}

KeySpecFlags KeySpecFlagsFromArguments(AclKeyAccess::Variable variable, Args args) {
  if (variable == AclKeyAccess::Variable::kSet) {
    return SetReturnsOldValue(args) ? kKeyChanges : kKeyOverwrites;
  }
  return BitfieldOnlyReads(args) ? kKeyReads : kKeyChanges;
}

}  // namespace sluice::server
