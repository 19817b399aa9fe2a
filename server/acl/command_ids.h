#pragma once

// Flat ids for the ACL: one per command and one per subcommand ("config|get"), so a user's
// permissions are a bitset indexed by id (no hashing on the command path).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "server/acl/key_access.h"
#include "server/command_table.h"

namespace sluice::server {

class AclCommandIds {
 public:
  struct Entry {
    const CommandSpec* spec;
    const Subcommand* sub;  // nullptr for the command itself
    uint32_t categories;    // AclCategoryMask
    size_t first_sub = 0;   // a container: its subcommands' ids, first_sub..first_sub+subs-1
    size_t subs = 0;
    AclKeyAccess keys = {};  // what its keys need of the user's key patterns
  };

  explicit AclCommandIds(const CommandTable& table);

  size_t size() const { return entries_.size(); }
  const Entry& entry(size_t id) const { return entries_[id]; }
  // Commands first, in table order; their ids are CommandSpec::index.
  size_t commands() const { return commands_; }
  size_t IdOf(const CommandSpec& spec, const Subcommand* sub) const {
    if (sub == nullptr) return spec.index;
    return entries_[spec.index].first_sub + static_cast<size_t>(sub - spec.subcommands.data());
  }
  // "get" or "config|get" (any case), as ACL rules name them; nullopt if unknown.
  std::optional<size_t> Find(std::string_view name) const;

 private:
  const CommandTable& table_;
  std::vector<Entry> entries_;
  size_t commands_ = 0;
};

}  // namespace sluice::server
