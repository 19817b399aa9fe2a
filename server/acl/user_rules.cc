// ACL SETUSER's rules, with Redis 7.0's meaning and error reasons.

#include <algorithm>
#include <cctype>

#include "common/ascii.h"
#include "server/acl/categories.h"
#include "server/acl/user.h"
#include "scripting/sha1.h"
#include "server/commands/auth.h"

namespace sluice::server {
namespace {

constexpr std::string_view kSyntax = "Syntax error";

Status Reason(std::string_view text) { return Err(std::string(text)); }

bool IsPasswordHash(std::string_view hex) {
  return hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Status AddKeyPattern(AclUser& user, std::string_view rule) {
  if (user.all_keys) {
    return Reason(
        "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
        "not have any effect. Try 'resetkeys' to start with an empty list of patterns");
  }
  AclKeyPattern added;  // read and write unless a %R~ or %W~ says otherwise
  size_t offset = 1;
  if (rule[0] == '%') {
    added.read = added.write = false;
    bool tilde = false;
    for (; offset < rule.size() && !tilde; ++offset) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rule[offset])));
      if (c == 'R' && !added.read) {
        added.read = true;
      } else if (c == 'W' && !added.write) {
        added.write = true;
      } else if (c == '~') {
        tilde = true;
      } else {
        return Reason(kSyntax);
      }
    }
    // As Redis: at least one of R and W; the "~" may be left out ("%R": the empty pattern).
    if (!added.read && !added.write) return Reason(kSyntax);
  }
  added.pattern = rule.substr(offset);
  if (AclStringHasSpaces(added.pattern)) return Reason(kSyntax);
  auto same = std::find_if(user.key_patterns.begin(), user.key_patterns.end(),
                           [&](const AclKeyPattern& p) { return p.pattern == added.pattern; });
  if (same == user.key_patterns.end()) {
    user.key_patterns.push_back(std::move(added));
  } else {
    same->read |= added.read;
    same->write |= added.write;
  }
  return Status::Ok();
}

Status AddChannelPattern(AclUser& user, std::string_view pattern) {
  if (user.all_channels) {
    return Reason(
        "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
        "does not have any effect. Try 'resetchannels' to start with an empty list of "
        "channels");
  }
  if (AclStringHasSpaces(pattern)) return Reason(kSyntax);
  if (std::find(user.channel_patterns.begin(), user.channel_patterns.end(), pattern) ==
      user.channel_patterns.end()) {
    user.channel_patterns.emplace_back(pattern);
  }
  return Status::Ok();
}

// "+name" or "-name": a command, or "container|subcommand".
Status ChangeNamedCommand(AclUser& user, std::string_view name, bool on,
                          const AclCommandIds& ids) {
  const size_t bar = name.rfind('|');
  if (on && bar != std::string_view::npos) {
    std::optional<size_t> parent = ids.Find(name.substr(0, bar));
    if (!parent) return Reason(kAclUnknownName);
    if (ids.entry(*parent).sub != nullptr) {
      return Reason("Allowing first-arg of a subcommand is not supported");
    }
    if (bar + 1 == name.size()) return Reason(kSyntax);
    // Redis 7.0 would allow a first argument of a command without subcommands ("+select|0").
    if (ids.entry(*parent).subs == 0) {
      return Reason("Allowing the first argument of a command is not supported by sluice");
    }
  }
  std::optional<size_t> id = ids.Find(name);
  if (!id) return Reason(kAclUnknownName);
  ChangeCommand(user.commands, ids, *id, on);
  return Status::Ok();
}

Status ApplyCommandRule(AclUser& user, std::string_view rule, const AclCommandIds& ids) {
  if (EqualsIgnoreCase(rule, "allcommands") || EqualsIgnoreCase(rule, "+@all")) {
    SetAllBits(user.commands, ids, true);
  } else if (EqualsIgnoreCase(rule, "nocommands") || EqualsIgnoreCase(rule, "-@all")) {
    SetAllBits(user.commands, ids, false);
  } else if ((rule[0] == '+' || rule[0] == '-') && rule.size() > 1 && rule[1] == '@') {
    std::optional<int> category = AclCategoryIndex(rule.substr(2));
    if (!category) return Reason(kAclUnknownName);
    ChangeCategory(user.commands, ids, *category, rule[0] == '+');
  } else if (rule[0] == '+' || rule[0] == '-') {
    return ChangeNamedCommand(user, rule.substr(1), rule[0] == '+', ids);
  } else {
    return Reason(kSyntax);
  }
  return Status::Ok();
}

// The root selector's rules: keys, channels, commands.
Status ApplySelectorRule(AclUser& user, std::string_view rule, const AclCommandIds& ids) {
  if (EqualsIgnoreCase(rule, "allkeys") || EqualsIgnoreCase(rule, "~*")) {
    user.all_keys = true;
    user.key_patterns.clear();
  } else if (EqualsIgnoreCase(rule, "resetkeys")) {
    user.all_keys = false;
    user.key_patterns.clear();
  } else if (EqualsIgnoreCase(rule, "allchannels") || EqualsIgnoreCase(rule, "&*")) {
    user.all_channels = true;
    user.channel_patterns.clear();
  } else if (EqualsIgnoreCase(rule, "resetchannels")) {
    user.all_channels = false;
    user.channel_patterns.clear();
  } else if (rule[0] == '~' || rule[0] == '%') {
    return AddKeyPattern(user, rule);
  } else if (rule[0] == '&') {
    return AddChannelPattern(user, rule.substr(1));
  } else {
    return ApplyCommandRule(user, rule, ids);
  }
  return Status::Ok();
}

// ">pass" and "#hash" add a password, "<pass" and "!hash" remove one.
Status ChangePassword(AclUser& user, std::string_view rule) {
  const bool hashed = rule[0] == '#' || rule[0] == '!';
  std::string hash = hashed ? std::string(rule.substr(1)) : scripting::Sha256Hex(rule.substr(1));
  if (hashed && !IsPasswordHash(hash)) {
    return Reason(
        "The password hash must be exactly 64 characters and contain only lowercase "
        "hexadecimal characters");
  }
  auto& hashes = user.password_hashes;
  auto found = std::find(hashes.begin(), hashes.end(), hash);
  if (rule[0] == '>' || rule[0] == '#') {
    if (found == hashes.end()) hashes.push_back(std::move(hash));
    user.nopass = false;
    return Status::Ok();
  }
  if (found == hashes.end()) {
    return Reason("The password you are trying to remove from the user does not exist");
  }
  hashes.erase(found);
  return Status::Ok();
}

}  // namespace

std::shared_ptr<const AclUser> UnrestrictedUser() {
  static const std::shared_ptr<const AclUser> user = [] {
    auto u = std::make_shared<AclUser>();
    u->name = "default";
    u->enabled = u->nopass = u->all_keys = u->all_channels = u->unrestricted = true;
    return u;
  }();
  return user;
}

AclUser NewAclUser(std::string name, const AclCommandIds& ids) {
  AclUser user;
  user.name = std::move(name);
  user.commands = EmptyCommandBits(ids);
  return user;
}

Status ApplyAclRule(AclUser& user, std::string_view rule, const AclCommandIds& ids) {
  if (rule.empty()) return Status::Ok();
  if (EqualsIgnoreCase(rule, "on")) {
    user.enabled = true;
  } else if (EqualsIgnoreCase(rule, "off")) {
    user.enabled = false;
  } else if (EqualsIgnoreCase(rule, "skip-sanitize-payload")) {
    user.sanitize = AclUser::Sanitize::kSkip;
  } else if (EqualsIgnoreCase(rule, "sanitize-payload")) {
    user.sanitize = AclUser::Sanitize::kSanitize;
  } else if (EqualsIgnoreCase(rule, "nopass")) {
    user.nopass = true;
    user.password_hashes.clear();
  } else if (EqualsIgnoreCase(rule, "resetpass")) {
    user.nopass = false;
    user.password_hashes.clear();
  } else if (rule[0] == '>' || rule[0] == '#' || rule[0] == '<' || rule[0] == '!') {
    SLUICE_RETURN_IF_ERROR(ChangePassword(user, rule));
  } else if (rule[0] == '(' && rule.back() == ')') {
    return Reason("Selectors are not supported by sluice");
  } else if (EqualsIgnoreCase(rule, "clearselectors")) {
    // No selectors besides the root one: nothing to clear.
  } else if (EqualsIgnoreCase(rule, "reset")) {
    for (std::string_view each : {"resetpass", "resetkeys", "resetchannels", "off",
                                  "sanitize-payload", "-@all"}) {
      SLUICE_RETURN_IF_ERROR(ApplyAclRule(user, each, ids));
    }
  } else {
    SLUICE_RETURN_IF_ERROR(ApplySelectorRule(user, rule, ids));
  }
  user.unrestricted =
      user.all_keys && user.all_channels && AllCommandsAllowed(user.commands, ids);
  return Status::Ok();
}

bool AclPasswordMatches(const AclUser& user, std::string_view password) {
  if (!user.enabled) return false;
  if (user.nopass) return true;
  const std::string hash = scripting::Sha256Hex(password);
  bool matched = false;
  for (const std::string& each : user.password_hashes) matched |= ConstantTimeEquals(hash, each);
  return matched;
}

bool AclStringHasSpaces(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '\0';
  });
}

bool AllKeysReadable(const AclUser& user) {
  if (user.unrestricted || user.all_keys) return true;
  return std::any_of(user.key_patterns.begin(), user.key_patterns.end(),
                     [](const AclKeyPattern& p) { return p.read && p.pattern == "*"; });
}

}  // namespace sluice::server
