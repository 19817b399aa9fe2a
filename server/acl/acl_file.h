#pragma once

// The ACL file (the `aclfile` directive, ACL LOAD, ACL SAVE) as Redis 7.0's: its text read
// into users (ACLLoadFromFile) and written from them (ACLSaveToFile).

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/acl/user.h"

namespace sluice::server {

class AclRegistry;

// The users an ACL file's text defines, in file order, each a new user ("off resetchannels
// -@all") with its line's rules applied; or, when any line is wrong, Redis's error text: every
// problem found, each "PATH:LINE: reason. " (and Redis's other forms), then "WARNING: ACL
// errors detected, no change to the previously active ACL rules was performed". As Redis,
// lines are split at each single space (no quotes), blank lines are skipped and a comment is
// an error (the file is meant to be rewritten by ACL SAVE).
StatusOr<std::vector<AclUser>> ParseAclFile(std::string_view text, std::string_view path,
                                            const AclCommandIds& ids);

// ParseAclFile of the file at `path`; a file that cannot be read is Redis's "Error loading
// ACLs, opening file 'PATH': <strerror>".
StatusOr<std::vector<AclUser>> LoadAclFile(const std::string& path, const AclCommandIds& ids);

// ACL LIST's lines ("user NAME RULES..."), by name: also what ACL SAVE writes.
std::vector<std::string> AclListLines(const AclRegistry& acl);

// The users at start: from the config's `user` lines, or from the ACL file, never both (Redis
// refuses to start then, and when the file has an error or cannot be read).
Status LoadUsersAtStart(AclRegistry& acl, const std::vector<std::vector<std::string>>& user_lines,
                        const std::string& aclfile);

}  // namespace sluice::server
