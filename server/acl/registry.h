#pragma once

// The server's users (ACL SETUSER, `user` directives or the ACL file, AUTH), the default one
// always there, and the ACL LOG. Clients hold a shared pointer to their user, which SETUSER
// changes in place, so a connection sees new rules at its next command, as in Redis.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/acl/command_ids.h"
#include "server/acl/log.h"
#include "server/acl/user.h"

namespace sluice::server {

class AclRegistry;

// A `user NAME RULES...` config line: defines the user (once per name, as Redis; the default
// user's line starts it over, so its rules alone say what it may do) or says why not.
Status AddConfigUser(AclRegistry& acl, const std::vector<std::string>& line);

class AclRegistry {
 public:
  // Needs the final command table (after rename-command): ids are per command.
  explicit AclRegistry(const CommandTable& table);

  const AclCommandIds& ids() const { return ids_; }
  std::shared_ptr<const AclUser> default_user() const { return default_; }
  // nullptr if no such user.
  std::shared_ptr<const AclUser> Find(std::string_view name) const;
  // The user if it exists, is enabled and the password fits; otherwise nullptr.
  std::shared_ptr<const AclUser> Authenticate(std::string_view name,
                                              std::string_view password) const;
  // ACL SETUSER: creates the user if needed, then applies every rule or none; the error is
  // Redis's "Error in ACL SETUSER modifier '<rule>': <reason>" (or its refusal of a name with
  // a space).
  Status SetUser(std::string_view name, std::span<const std::string_view> rules);
  // ACL DELUSER of one user (never "default"); false if there was none.
  bool DeleteUser(std::string_view name);
  // ACL LOAD (and the ACL file at start): the users become exactly `users`. The default user,
  // changed in place (its connections stay, as in Redis), is the file's, or a new default one
  // ("on nopass ~* &* +@all") when `users` has none.
  void ReplaceUsers(std::vector<AclUser> users);
  // requirepass: the default user's only password, or nopass when empty (as Redis).
  void SetRequirePass(std::string_view password);
  // Names in order (ACL USERS, ACL LIST).
  std::vector<std::string> Names() const;
  // Whether a new connection (or RESET) is authenticated at once: default is on and nopass.
  bool DefaultNeedsNoAuth() const { return default_->enabled && default_->nopass; }

  AclLog log;

 private:
  friend Status AddConfigUser(AclRegistry& acl, const std::vector<std::string>& line);

  AclCommandIds ids_;
  std::set<std::string, std::less<>> defined_in_config_;
  std::map<std::string, std::shared_ptr<AclUser>, std::less<>> users_;
  std::shared_ptr<AclUser> default_;
};

}  // namespace sluice::server
