#include "server/acl/command_ids.h"

#include "server/acl/categories.h"

namespace sluice::server {

AclCommandIds::AclCommandIds(const CommandTable& table) : table_(table) {
  const auto& all = table.All();
  commands_ = all.size();
  entries_.reserve(all.size());
  for (const CommandSpec* spec : all) {
    entries_.push_back(
        {spec, nullptr, AclCategoryMask(*spec, nullptr), 0, 0, AclKeyAccessOf(*spec, nullptr)});
  }
  for (const CommandSpec* spec : all) {
    entries_[spec->index].first_sub = entries_.size();
    entries_[spec->index].subs = spec->subcommands.size();
    for (const Subcommand& sub : spec->subcommands) {
      entries_.push_back(
          {spec, &sub, AclCategoryMask(*spec, &sub), 0, 0, AclKeyAccessOf(*spec, &sub)});
    }
  }
}

std::optional<size_t> AclCommandIds::Find(std::string_view name) const {
  const size_t bar = name.find('|');
  const CommandSpec* spec = table_.Find(name.substr(0, bar));
  if (spec == nullptr) return std::nullopt;
  if (bar == std::string_view::npos) return spec->index;
  const Subcommand* sub = LookupSubcommand(spec->subcommands, name.substr(bar + 1));
  if (sub == nullptr) return std::nullopt;
  return IdOf(*spec, sub);
}

}  // namespace sluice::server
