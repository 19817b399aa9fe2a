#include "server/acl/categories.h"

#include <iterator>

#include "common/ascii.h"

namespace sluice::server {

std::vector<std::string_view> AclCategories(const CommandSpec& spec) {
  if (!spec.acl_categories.empty()) {
    return {spec.acl_categories.begin(), spec.acl_categories.end()};
  }
  std::vector<std::string_view> out;
  const std::string_view group = spec.group;
  auto has = [&](CommandFlags f) { return HasFlag(spec.flags, f); };
  if (group == "generic") out.push_back("@keyspace");
  if (has(CommandFlags::kReadOnly)) out.push_back("@read");
  if (has(CommandFlags::kWrite)) out.push_back("@write");
  if (group == "set") out.push_back("@set");
  if (group == "sorted-set") out.push_back("@sortedset");
  if (group == "list") out.push_back("@list");
  if (group == "hash") out.push_back("@hash");
  if (group == "string") out.push_back("@string");
  if (group == "bitmap") out.push_back("@bitmap");
  if (group == "hyperloglog") out.push_back("@hyperloglog");
  if (group == "geo") out.push_back("@geo");
  if (has(CommandFlags::kPubSub)) out.push_back("@pubsub");
  if (has(CommandFlags::kAdmin)) out.push_back("@admin");
  out.push_back(has(CommandFlags::kFast) ? "@fast" : "@slow");
  if (has(CommandFlags::kBlocking)) out.push_back("@blocking");
  if (has(CommandFlags::kAdmin)) out.push_back("@dangerous");
  if (group == "connection") out.push_back("@connection");
  if (group == "transactions") out.push_back("@transaction");
  if (group == "scripting") out.push_back("@scripting");
  return out;
}

std::optional<int> AclCategoryIndex(std::string_view name) {
  for (size_t i = 0; i < std::size(kAclCategoryNames); ++i) {
    if (EqualsIgnoreCase(name, kAclCategoryNames[i])) return static_cast<int>(i);
  }
  return std::nullopt;
}

uint32_t AclCategoryMask(const CommandSpec& spec, const Subcommand* sub) {
  const uint32_t admin = (1u << *AclCategoryIndex("admin")) | (1u << *AclCategoryIndex("dangerous"));
  // Redis 7.0's containers (CONFIG, CLIENT, ACL...) are only @slow: their subcommands carry
  // the categories. COMMAND, which runs on its own too, has its own (@slow @connection).
  if (sub == nullptr && !spec.subcommands.empty() && spec.acl_categories.empty()) {
    return 1u << *AclCategoryIndex("slow");
  }
  uint32_t mask = 0;
  for (std::string_view category : AclCategories(spec)) {
    if (auto index = AclCategoryIndex(category.substr(1))) mask |= 1u << *index;
  }
  if (sub == nullptr) return mask;
  // A subcommand has its container's categories; an administrative one (CLIENT KILL, ACL
  // SETUSER) adds @admin @dangerous, and HELP is never administrative, as in Redis.
  if (sub->admin) mask |= admin;
  if (sub->name == "help") mask &= ~admin;
  return mask;
}

}  // namespace sluice::server
