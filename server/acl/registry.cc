#include "server/acl/registry.h"

#include <utility>

#include "resp/error_messages.h"

namespace sluice::server {
namespace {

// The default user as the server starts with it (Redis's ACLCreateDefaultUser).
AclUser NewDefaultUser(const AclCommandIds& ids) {
  AclUser user = NewAclUser("default", ids);
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) {
    (void)ApplyAclRule(user, rule, ids);
  }
  return user;
}

}  // namespace

AclRegistry::AclRegistry(const CommandTable& table) : ids_(table) {
  default_ = std::make_shared<AclUser>(NewDefaultUser(ids_));
  users_.emplace("default", default_);
}

Status AddConfigUser(AclRegistry& acl, const std::vector<std::string>& line) {
  const std::string& name = line.front();
  // The default user exists already; a config line may still define it, once.
  if (acl.defined_in_config_.count(name) > 0) {
    return Err("user '" + name +
               "': Duplicate user found. A user can only be defined once in config files");
  }
  acl.defined_in_config_.insert(name);
  // The default user's line defines it anew, as Redis resets it first (so it gets reset's
  // sanitize-payload): the line alone says what it may do, so the one CONFIG REWRITE writes
  // gives back the user it describes.
  std::vector<std::string_view> rules;
  if (auto it = acl.users_.find(name); it != acl.users_.end()) {
    *it->second = NewAclUser(name, acl.ids_);
    rules.push_back("reset");
  }
  rules.insert(rules.end(), line.begin() + 1, line.end());
  if (Status set = acl.SetUser(name, rules); !set.ok()) {
    return Err("user '" + name + "': " + set.message());
  }
  return Status::Ok();
}

std::shared_ptr<const AclUser> AclRegistry::Find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::shared_ptr<const AclUser> AclRegistry::Authenticate(std::string_view name,
                                                         std::string_view password) const {
  std::shared_ptr<const AclUser> user = Find(name);
  if (user == nullptr || !AclPasswordMatches(*user, password)) return nullptr;
  return user;
}

Status AclRegistry::SetUser(std::string_view name, std::span<const std::string_view> rules) {
  if (AclStringHasSpaces(name)) return Err("Usernames can't contain spaces or null characters");
  auto it = users_.find(name);
  AclUser changed = it != users_.end() ? *it->second : NewAclUser(std::string(name), ids_);
  for (std::string_view rule : rules) {
    if (Status applied = ApplyAclRule(changed, rule, ids_); !applied.ok()) {
      // The rule as Redis prints it (%s): up to a NUL.
      return Err("Error in ACL SETUSER modifier '" + std::string(resp::CString(rule)) +
                 "': " + applied.message());
    }
  }
  if (it != users_.end()) {
    *it->second = std::move(changed);  // in place: its connections see the new rules
  } else {
    users_.emplace(std::string(name), std::make_shared<AclUser>(std::move(changed)));
  }
  return Status::Ok();
}

bool AclRegistry::DeleteUser(std::string_view name) {
  auto it = users_.find(name);
  if (it == users_.end() || it->second == default_) return false;
  users_.erase(it);
  return true;
}

void AclRegistry::ReplaceUsers(std::vector<AclUser> users) {
  AclUser new_default = NewDefaultUser(ids_);
  std::map<std::string, std::shared_ptr<AclUser>, std::less<>> replaced;
  for (AclUser& user : users) {
    if (user.name == "default") {
      new_default = std::move(user);
    } else {
      std::string name = user.name;
      replaced.emplace(std::move(name), std::make_shared<AclUser>(std::move(user)));
    }
  }
  *default_ = std::move(new_default);
  replaced.emplace("default", default_);
  users_ = std::move(replaced);
}

void AclRegistry::SetRequirePass(std::string_view password) {
  (void)ApplyAclRule(*default_, "resetpass", ids_);
  if (password.empty()) {
    (void)ApplyAclRule(*default_, "nopass", ids_);
  } else {
    std::string rule(">");
    rule.append(password);
    (void)ApplyAclRule(*default_, rule, ids_);
  }
}

std::vector<std::string> AclRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, user] : users_) names.push_back(name);
  return names;
}

}  // namespace sluice::server
