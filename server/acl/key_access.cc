// Each command's key access (server/acl/key_access.h): derived from how it is registered (its
// flags and group), and Redis 7.0.15's key specs where a command differs from what those say
// (COMMAND INFO's flags: ACCESS needs read; INSERT, DELETE, UPDATE need write).

#include "server/acl/key_access.h"

#include <string>
#include <string_view>

#include "common/ascii.h"

namespace sluice::server {
namespace {

constexpr uint8_t kNone = kAclNeedNone;
constexpr uint8_t kR = kAclNeedRead;
constexpr uint8_t kW = kAclNeedWrite;
constexpr uint8_t kRW = kAclNeedRead | kAclNeedWrite;

struct Override {
  std::string_view name;  // "get", or "object|encoding" for a subcommand
  AclKeyAccess access;
};

// The commands whose key specs their registration does not tell. (The blocking pops, the list
// moves, the scripts and the limiter commands follow from it: FromRegistration.)
constexpr Override kOverrides[] = {
    // Read-only commands that look at a key without reading its value.
    {"exists", {kNone, kNone}},
    {"touch", {kNone, kNone}},
    {"type", {kNone, kNone}},
    {"strlen", {kNone, kNone}},
    {"hexists", {kNone, kNone}},
    {"hlen", {kNone, kNone}},
    {"hstrlen", {kNone, kNone}},
    {"llen", {kNone, kNone}},
    {"scard", {kNone, kNone}},
    {"sismember", {kNone, kNone}},
    {"zcard", {kNone, kNone}},
    {"watch", {kNone, kNone}},
    {"object|encoding", {kNone, kNone, AclKeyAccess::Variable::kNo, 2}},
    {"object|freq", {kNone, kNone, AclKeyAccess::Variable::kNo, 2}},
    {"object|idletime", {kNone, kNone, AclKeyAccess::Variable::kNo, 2}},
    {"object|refcount", {kNone, kNone, AclKeyAccess::Variable::kNo, 2}},
    {"memory|usage", {kNone, kNone, AclKeyAccess::Variable::kNo, 2}},
    // Write commands that also read or return what they change.
    {"incr", {kRW, kRW}},
    {"incrby", {kRW, kRW}},
    {"incrbyfloat", {kRW, kRW}},
    {"decr", {kRW, kRW}},
    {"decrby", {kRW, kRW}},
    {"getdel", {kRW, kRW}},
    {"getex", {kRW, kRW}},
    {"getset", {kRW, kRW}},
    {"setbit", {kRW, kRW}},
    {"move", {kRW, kRW}},
    {"hincrby", {kRW, kRW}},
    {"hincrbyfloat", {kRW, kRW}},
    {"lpop", {kRW, kRW}},
    {"rpop", {kRW, kRW}},
    {"lmpop", {kRW, kRW}},
    {"spop", {kRW, kRW}},
    {"zincrby", {kRW, kRW}},
    {"zpopmin", {kRW, kRW}},
    {"zpopmax", {kRW, kRW}},
    {"zmpop", {kRW, kRW}},
    {"pfdebug", {kR, kR}},
    {"set", {kW, kW, AclKeyAccess::Variable::kSet}},
    {"bitfield", {kRW, kRW, AclKeyAccess::Variable::kBitfield}},
    // A source and a destination.
    {"copy", {kR, kW}},
    {"rename", {kRW, kW}},
    {"renamenx", {kRW, kW}},
    {"smove", {kRW, kW}},
    // A destination first, then the sources.
    {"bitop", {kW, kR}},
    {"sdiffstore", {kW, kR}},
    {"sinterstore", {kW, kR}},
    {"sunionstore", {kW, kR}},
    {"zdiffstore", {kW, kR}},
    {"zinterstore", {kW, kR}},
    {"zunionstore", {kW, kR}},
    {"zrangestore", {kW, kR}},
    {"geosearchstore", {kW, kR}},
    {"pfmerge", {kRW, kR}},
    // A source first, then STORE (and STOREDIST) destinations.
    {"sort", {kR, kW}},
    {"georadius", {kR, kW}},
    {"georadiusbymember", {kR, kW}},
    // The one limiter command that writes without reading: it deletes, as DEL (RM DELETE).
    {"rl.reset", {kW, kW}},
};

AclKeyAccess FromRegistration(const CommandSpec& spec) {
  auto has = [&](CommandFlags f) { return HasFlag(spec.flags, f); };
  if (has(CommandFlags::kReadOnly)) return {kR, kR};  // EVAL_RO and FCALL_RO too
  if (has(CommandFlags::kListMove)) return {kRW, kW};
  const bool write = has(CommandFlags::kWrite);
  // What a blocking write waited for it takes (Redis's blocking pops: RW ACCESS DELETE); a
  // limiter command reads its key's state and writes it back; a script may do either
  // (Redis's key specs: RW ACCESS UPDATE).
  const bool reads_too = has(CommandFlags::kBlocking) || spec.group == "limiter" ||
                         has(CommandFlags::kRunsScript);
  if (write && !reads_too) return {kW, kW};
  return {kRW, kRW};  // (neither read-only nor a write: RW as well, to be safe)
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
    if (o.name == name) return o.access;
  }
  return FromRegistration(spec);
}

AclKeyNeeds AclKeyNeedsFor(const AclKeyAccess& access, Args args) {
  switch (access.variable) {
    case AclKeyAccess::Variable::kSet: {
      const uint8_t need = SetReturnsOldValue(args) ? kRW : kW;
      return {need, need};
    }
    case AclKeyAccess::Variable::kBitfield: {
      const uint8_t need = BitfieldOnlyReads(args) ? kR : kRW;
      return {need, need};
    }
    case AclKeyAccess::Variable::kNo:
      break;
  }
  return {access.first, access.rest};
}

}  // namespace sluice::server
