// A user's rules as Redis 7.0 writes them back (ACL LIST, ACL GETUSER): rules that, applied to
// a new user, give the same permissions.

#include <climits>
#include <iterator>

#include "server/acl/categories.h"
#include "server/acl/user.h"

namespace sluice::server {
namespace {

void AppendWord(std::string& out, std::string_view word) {
  if (!out.empty()) out.push_back(' ');
  out.append(word);
}

std::string KeyPatternText(const AclKeyPattern& p) {
  if (p.read && p.write) return "~" + p.pattern;
  return std::string(p.read ? "%R~" : "%W~") + p.pattern;
}

// One command (or subcommand) where `fake` still differs from the user's bits: its rule.
void DescribeSingleCommands(const AclCommandBits& bits, AclCommandBits& fake,
                            const AclCommandIds& ids, size_t id, std::string& rules) {
  const bool on = TestBit(bits, id);
  if (on != TestBit(fake, id)) {
    const AclCommandIds::Entry& e = ids.entry(id);
    std::string word(on ? "+" : "-");
    word += FullName(*e.spec, e.sub);
    AppendWord(rules, word);
    ChangeCommand(fake, ids, id, on);
  }
}

}  // namespace

// Redis's approach: start from +@all (when the future-commands bit is set) or -@all, then
// repeatedly take the category that fits best (most commands that agree, fewest that do not),
// and fix the remaining differences one command at a time.
std::string DescribeAclCommands(const AclUser& user, const AclCommandIds& ids) {
  const AclCommandBits& bits = user.commands;
  const bool additive = !TestBit(bits, ids.size());
  std::string rules = additive ? "-@all" : "+@all";
  AclCommandBits fake = EmptyCommandBits(ids);
  SetAllBits(fake, ids, !additive);
  AclCommandBits rest = bits;  // what the categories chosen so far leave to explain
  bool applied[std::size(kAclCategoryNames)] = {};
  while (true) {
    int best = -1;
    size_t min_diff = SIZE_MAX, max_same = 0;
    for (size_t j = 0; j < std::size(kAclCategoryNames); ++j) {
      if (applied[j]) continue;
      size_t on = 0, off = 0;
      CountCategory(rest, ids, static_cast<int>(j), &on, &off);
      const size_t diff = additive ? off : on;
      const size_t same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = static_cast<int>(j);
        min_diff = diff;
        max_same = same;
      }
    }
    if (best < 0) break;
    ChangeCategory(fake, ids, best, additive);
    ChangeCategory(rest, ids, best, !additive);
    AppendWord(rules, std::string(additive ? "+@" : "-@") + std::string(kAclCategoryNames[best]));
    applied[best] = true;
  }
  for (size_t id = 0; id < ids.commands(); ++id) {
    DescribeSingleCommands(bits, fake, ids, id, rules);
    const AclCommandIds::Entry& e = ids.entry(id);
    for (size_t i = 0; i < e.subs; ++i) DescribeSingleCommands(bits, fake, ids, e.first_sub + i, rules);
  }
  return rules;
}

std::string DescribeAclKeys(const AclUser& user) {
  if (user.all_keys) return "~*";
  std::string out;
  for (const AclKeyPattern& p : user.key_patterns) AppendWord(out, KeyPatternText(p));
  return out;
}

std::string DescribeAclChannels(const AclUser& user) {
  if (user.all_channels) return "&*";
  std::string out;
  for (const std::string& p : user.channel_patterns) AppendWord(out, "&" + p);
  return out;
}

std::vector<std::string_view> AclUserFlags(const AclUser& user) {
  std::vector<std::string_view> flags = {user.enabled ? "on" : "off"};
  if (user.nopass) flags.push_back("nopass");
  if (user.sanitize == AclUser::Sanitize::kSkip) flags.push_back("skip-sanitize-payload");
  if (user.sanitize == AclUser::Sanitize::kSanitize) flags.push_back("sanitize-payload");
  return flags;
}

std::string DescribeAclUser(const AclUser& user, const AclCommandIds& ids) {
  std::string out;
  for (std::string_view flag : AclUserFlags(user)) AppendWord(out, flag);
  for (const std::string& hash : user.password_hashes) AppendWord(out, "#" + hash);
  if (std::string keys = DescribeAclKeys(user); !keys.empty()) AppendWord(out, keys);
  if (!user.all_channels) AppendWord(out, "resetchannels");
  if (std::string channels = DescribeAclChannels(user); !channels.empty()) {
    AppendWord(out, channels);
  }
  AppendWord(out, DescribeAclCommands(user, ids));
  return out;
}

}  // namespace sluice::server
