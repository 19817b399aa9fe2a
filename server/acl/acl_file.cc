// The ACL file's text, read and written as Redis 7.0's acl.c does (server/acl/acl_file.h).

#include "server/acl/acl_file.h"

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include "common/ascii.h"
#include "common/split_at.h"
#include "server/acl/registry.h"
#include "server/config_file_io.h"

namespace sluice::server {
namespace {

constexpr std::string_view kNoChangeWarning =
    "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";

// Redis's ACLMergeSelectorArguments: the words of a "(...)" selector joined back into one
// rule; nullopt when a "(" is never closed.
std::optional<std::vector<std::string>> MergeSelectors(std::span<const std::string_view> words) {
  std::vector<std::string> merged;
  std::optional<std::string> open;
  for (std::string_view word : words) {
    if (!open && !word.empty() && word.front() == '(' && word.back() != ')') {
      open = std::string(word);
    } else if (open) {
      *open += ' ';
      *open += word;
      if (!word.empty() && word.back() == ')') {
        merged.push_back(std::move(*open));
        open.reset();
      }
    } else {
      merged.emplace_back(word);
    }
  }
  if (open) return std::nullopt;
  return merged;
}

// One file line's problems in Redis's words, appended to `errors` as ACLLoadFromFile does.
class LineErrors {
 public:
  LineErrors(std::string& errors, std::string_view path, size_t line)
      : errors_(errors), where_(std::string(path) + ":" + std::to_string(line)) {}

  void Add(std::string_view text) { errors_.append(text); }
  const std::string& where() const { return where_; }

  // A rule refused: an unknown command or category is named with its rule, every time; of the
  // others only the first is told, as it may be why the later ones fail.
  void RuleRefused(std::string_view rule, const Status& why) {
    if (why.message() == kAclUnknownName) {
      Add(where_ + ": Error in applying operation '" + std::string(rule) + "': " + why.message() +
          ". ");
    } else if (!told_other_) {
      Add(where_ + ": " + why.message() + ". ");
      told_other_ = true;
    }
  }

 private:
  std::string& errors_;
  std::string where_;
  bool told_other_ = false;
};

}  // namespace

StatusOr<std::vector<AclUser>> ParseAclFile(std::string_view text, std::string_view path,
                                            const AclCommandIds& ids) {
  std::vector<AclUser> users;
  std::set<std::string, std::less<>> defined;  // the users a line has defined
  std::string errors;
  const std::vector<std::string_view> lines = SplitAt(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = TrimChars(lines[i]);
    if (line.empty()) continue;
    LineErrors problems(errors, path, i + 1);
    // Every space splits (sdssplitlen), so "a  b" has an empty word between.
    const std::vector<std::string_view> words = SplitAt(line, ' ');
    if (words[0] != "user" || words.size() < 2) {
      problems.Add(problems.where() + " should start with user keyword followed by the username. ");
      continue;
    }
    const std::string_view name = words[1];
    if (AclStringHasSpaces(name)) {
      // (Redis's text, with its stray leading quote.)
      problems.Add("'" + problems.where() + ": username '" + std::string(name) +
                   "' contains invalid characters. ");
      continue;
    }
    if (defined.count(name) > 0) {
      problems.Add("WARNING: Duplicate user '" + std::string(name) + "' found on line " +
                   std::to_string(i + 1) + ". ");
      continue;
    }
    defined.emplace(name);
    AclUser user = NewAclUser(std::string(name), ids);
    std::optional<std::vector<std::string>> rules = MergeSelectors(std::span(words).subspan(2));
    if (!rules) {
      // Redis 7.0.15 crashes on this line after noting it; sluice refuses the file.
      problems.Add(problems.where() + ": Unmatched parenthesis in selector definition.");
      continue;
    }
    for (const std::string& each : *rules) {
      const std::string_view rule = TrimChars(each, "\t\r\n");
      if (Status applied = ApplyAclRule(user, rule, ids); !applied.ok()) {
        problems.RuleRefused(rule, applied);
      }
    }
    users.push_back(std::move(user));
  }
  if (!errors.empty()) return Err(errors + std::string(kNoChangeWarning));
  return users;
}

StatusOr<std::vector<AclUser>> LoadAclFile(const std::string& path, const AclCommandIds& ids) {
  StatusOr<std::string> text = config_internal::ReadWholeFile(path);
  if (!text.ok()) {
    return Err("Error loading ACLs, opening file '" + path + "': " + text.status().message());
  }
  return ParseAclFile(*text, path, ids);
}

std::vector<std::string> AclListLines(const AclRegistry& acl) {
  std::vector<std::string> lines;
  for (const std::string& name : acl.Names()) {
    lines.push_back("user " + name + " " + DescribeAclUser(*acl.Find(name), acl.ids()));
  }
  return lines;
}

Status LoadUsersAtStart(AclRegistry& acl, const std::vector<std::vector<std::string>>& user_lines,
                        const std::string& aclfile) {
  if (aclfile.empty()) {
    for (const std::vector<std::string>& line : user_lines) {
      SLUICE_RETURN_IF_ERROR(AddConfigUser(acl, line));
    }
    return Status::Ok();
  }
  if (!user_lines.empty()) {
    return Err(
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
        "file path is invalid. This setup is very likely to lead to configuration errors and "
        "security holes, please define either an ACL file or declare users directly in your "
        "redis.conf, but not both.");
  }
  StatusOr<std::vector<AclUser>> users = LoadAclFile(aclfile, acl.ids());
  if (!users.ok()) {
    return Err("Aborting Redis startup because of ACL errors: " + users.status().message());
  }
  acl.ReplaceUsers(std::move(users).value());
  return Status::Ok();
}

}  // namespace sluice::server
