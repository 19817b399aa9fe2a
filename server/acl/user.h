#pragma once

// One ACL user, as Redis 7.0's root selector: whether it may log in, its passwords (SHA-256,
// hex), and what it may run (a bit per AclCommandIds id), touch (key patterns) and hear
// (channel patterns). Selectors "(...)" are not supported.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/acl/command_bits.h"
#include "server/acl/command_ids.h"

namespace sluice::server {

struct AclKeyPattern {
  std::string pattern;
  bool read = true;
  bool write = true;
};

struct AclUser {
  enum class Sanitize : uint8_t { kUnset, kSanitize, kSkip };  // accepted, no effect in sluice

  std::string name;
  bool enabled = false;
  bool nopass = false;
  Sanitize sanitize = Sanitize::kUnset;
  std::vector<std::string> password_hashes;  // lower-case hex SHA-256, in the order added
  bool all_keys = false;
  std::vector<AclKeyPattern> key_patterns;
  bool all_channels = false;
  std::vector<std::string> channel_patterns;
  // A bit per command id; the bit after the last id is Redis's "future commands" bit, set only
  // by +@all: it makes the rules start with +@all rather than -@all.
  AclCommandBits commands;
  // Every command, key and channel: the dispatcher's one check for the common case.
  bool unrestricted = false;

  bool Allowed(size_t id) const { return TestBit(commands, id); }
};

// A user that may do everything, before the server has its ACL (unit tests, early clients).
std::shared_ptr<const AclUser> UnrestrictedUser();

// A new user as ACL SETUSER makes it: "off resetchannels -@all".
AclUser NewAclUser(std::string name, const AclCommandIds& ids);

// The reason ApplyAclRule gives for an unknown command or category (Redis's ENOENT case, which
// an ACL file's error list reports with the rule itself).
inline constexpr std::string_view kAclUnknownName = "Unknown command or category name in ACL";

// Applies one ACL SETUSER rule ("on", ">pass", "~key*", "+@read", ...). On error the user may
// be half changed (callers work on a copy); the message is Redis's reason ("Syntax error").
Status ApplyAclRule(AclUser& user, std::string_view rule, const AclCommandIds& ids);

// The user's flags, as ACL GETUSER lists them and ACL LIST begins: on/off, nopass, ...
std::vector<std::string_view> AclUserFlags(const AclUser& user);
// ACL LIST's line after "user NAME ", as Redis 7.0 writes it.
std::string DescribeAclUser(const AclUser& user, const AclCommandIds& ids);
// ACL GETUSER's parts: "-@all +get", "~a %R~b", "&c*".
std::string DescribeAclCommands(const AclUser& user, const AclCommandIds& ids);
std::string DescribeAclKeys(const AclUser& user);
std::string DescribeAclChannels(const AclUser& user);

// AUTH's check: enabled, and nopass or one of the passwords (compared in constant time).
bool AclPasswordMatches(const AclUser& user, std::string_view password);

// Whether `s` holds a blank or a NUL, which no user name or pattern may (Redis's
// ACLStringHasSpaces).
bool AclStringHasSpaces(std::string_view s);

// Whether the user may read every key (allkeys, or a read pattern "*"), as Redis's
// ACLSelectorHasUnrestrictedKeyAccess: what SORT's BY and GET patterns need.
bool AllKeysReadable(const AclUser& user);

}  // namespace sluice::server
