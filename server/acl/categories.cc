#include "server/acl/categories.h"

#include <iterator>
#include <span>
#include <string>

#include "common/ascii.h"

namespace sluice::server {

namespace {

std::vector<std::string_view> CommandCategories(const CommandSpec& spec) {
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

uint32_t MaskOf(std::span<const std::string_view> categories) {
  uint32_t mask = 0;
  for (std::string_view category : categories) {
    if (auto index = AclCategoryIndex(category.substr(1))) mask |= 1u << *index;
  }
  return mask;
}

uint32_t Bit(std::string_view category) { return 1u << *AclCategoryIndex(category); }

}  // namespace

std::optional<int> AclCategoryIndex(std::string_view name) {
  for (size_t i = 0; i < std::size(kAclCategoryNames); ++i) {
    if (EqualsIgnoreCase(name, kAclCategoryNames[i])) return static_cast<int>(i);
  }
  return std::nullopt;
}

uint32_t AclCategoryMask(const CommandSpec& spec, const Subcommand* sub) {
  if (sub != nullptr && !sub->acl_categories.empty()) return MaskOf(sub->acl_categories);
  // Redis 7.0's containers (CONFIG, CLIENT, ACL...) are only @slow: their subcommands carry
  // the categories. COMMAND, which runs on its own too, has its own (@slow @connection).
  if (sub == nullptr && !spec.subcommands.empty() && spec.acl_categories.empty()) {
    return Bit("slow");
  }
  uint32_t mask = MaskOf(CommandCategories(spec));
  if (sub == nullptr) return mask;
  const uint32_t admin = Bit("admin") | Bit("dangerous");
  if (sub->write) mask |= Bit("write");
  if (sub->admin) mask |= admin;
  if (sub->name == "help") mask &= ~admin;
  return mask;
}

std::vector<std::string> AclCategoryNames(uint32_t mask) {
  std::vector<std::string> out;
  for (size_t i = 0; i < std::size(kAclCategoryNames); ++i) {
    if ((mask & (1u << i)) != 0) out.push_back(std::string("@").append(kAclCategoryNames[i]));
  }
  return out;
}

}  // namespace sluice::server
