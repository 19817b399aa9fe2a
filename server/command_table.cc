#include "server/command_table.h"

#include <algorithm>

#include "common/ascii.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"

namespace sluice::server {

std::string FullName(const CommandSpec& spec, const Subcommand* sub) {
  std::string name(spec.name);
  if (sub != nullptr) name.append("|").append(sub->name);
  return name;
}

const Subcommand* LookupSubcommand(std::span<const Subcommand> subcommands, std::string_view name) {
  for (const Subcommand& sub : subcommands) {
    if (EqualsIgnoreCase(name, sub.name)) return &sub;
  }
  return nullptr;
}

std::vector<std::string_view> KeywordKeys(const CommandSpec& spec, Args args, bool every) {
  std::vector<std::string_view> keys;
  for (const KeywordKey& k : spec.keyword_keys) {
    for (size_t i = static_cast<size_t>(k.start_from); i + 1 < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], k.keyword)) {
        if (std::find(keys.begin(), keys.end(), args[i + 1]) == keys.end() || !every) {
          keys.push_back(args[i + 1]);
        }
        if (!every) break;
      }
    }
  }
  return keys;
}

KeyRange RangeKeys(const CommandSpec& spec, size_t argc) {
  if (spec.first_key <= 0) return {};
  const int count = static_cast<int>(argc);
  const int last = spec.last_key < 0 ? count + spec.last_key : spec.last_key;
  return {.first = spec.first_key,
          .last = std::min(last, count - 1),
          .step = spec.key_step > 0 ? spec.key_step : 1};
}

std::vector<std::string_view> CountedKeys(const CommandSpec& spec, Args args) {
  if (!HasFlag(spec.flags, CommandFlags::kMovableKeys)) return {};
  if (spec.key_finder != nullptr) return spec.key_finder->keys(args);
  if (!spec.keyword_keys.empty()) return KeywordKeys(spec, args, /*every=*/true);
  const auto index = static_cast<size_t>(spec.key_count_index);
  int64_t count = 0;
  if (index >= args.size() || !ParseInt64(args[index], &count) || count <= 0 ||
      count > static_cast<int64_t>(args.size() - index - 1)) {
    return {};
  }
  const auto first = args.begin() + static_cast<std::ptrdiff_t>(index) + 1;
  return {first, first + count};
}

Status CheckSubcommand(Args args, const Subcommand* sub) {
  if (sub == nullptr) return Err(resp::UnknownSubcommand(args[1], args[0]));
  if (!ArityMatches(sub->arity, args.size())) {
    return Err(resp::WrongArity(AsciiLowered(args[0]) + "|" + std::string(sub->name)));
  }
  return Status::Ok();
}

StatusOr<const Subcommand*> FindSubcommand(Args args, std::span<const Subcommand> subcommands) {
  const Subcommand* sub = LookupSubcommand(subcommands, args[1]);
  SLUICE_RETURN_IF_ERROR(CheckSubcommand(args, sub));
  return sub;
}

void CommandTable::Register(const CommandSpec& spec) {
  storage_.push_back(std::make_unique<CommandSpec>(spec));
  storage_.back()->index = storage_.size() - 1;
  const CommandSpec* stored = storage_.back().get();
  all_.push_back(stored);
  by_name_[AsciiLowered(spec.name)] = stored;
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  // Command names are short: a stack copy keeps lookup allocation-free.
  char lowered[32];
  if (name.size() >= sizeof(lowered)) return nullptr;
  std::transform(name.begin(), name.end(), lowered, AsciiToLower);
  auto it = by_name_.find(std::string_view(lowered, name.size()));
  return it == by_name_.end() ? nullptr : it->second;
}

std::pair<const CommandSpec*, const Subcommand*> CommandTable::FindByFullName(
    std::string_view name) const {
  const size_t bar = name.find('|');
  const CommandSpec* spec = Find(name.substr(0, bar));
  if (spec == nullptr || bar == std::string_view::npos) return {spec, nullptr};
  const Subcommand* sub = LookupSubcommand(spec->subcommands, name.substr(bar + 1));
  if (sub == nullptr) return {nullptr, nullptr};
  return {spec, sub};
}

Status CommandTable::Rename(std::string_view name, std::string_view new_name) {
  auto it = by_name_.find(AsciiLowered(name));
  if (it == by_name_.end()) return Err("No such command in rename-command");
  const CommandSpec* spec = it->second;
  by_name_.erase(it);
  if (new_name.empty()) return Status::Ok();
  if (!by_name_.emplace(AsciiLowered(new_name), spec).second) {
    return Err("Target command name already exists");
  }
  return Status::Ok();
}

}  // namespace sluice::server
