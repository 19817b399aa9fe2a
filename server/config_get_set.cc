// CONFIG GET and CONFIG SET over the directive table (server/config_directives.h), with
// Redis 7.0's matching rules and error texts.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/glob_match.h"
#include "common/split_at.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/config.h"
#include "server/config_directives.h"

namespace sluice::server {
namespace {

using config_internal::Directive;
using config_internal::Directives;
using config_internal::FindDirective;
using config_internal::kMultiArg;
using config_internal::kProtected;
using config_internal::kRuntime;
using config_internal::ValueError;

// A pattern without glob characters is a name: matched case-insensitively, aliases included.
bool HasGlobChars(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

std::string ConfigSetFailed(std::string_view name, std::string_view detail) {
  return "CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(detail);
}

// CONFIG SET splits a several-word parameter's value on each space, as Redis's
// sdssplitlen(" "): two spaces in a row make an empty word (which no such parameter takes),
// and an empty value no word at all.
std::vector<std::string> SplitOnSpaces(std::string_view value) {
  std::vector<std::string> words;
  if (value.empty()) return words;
  for (std::string_view word : SplitAt(value, ' ')) words.emplace_back(word);
  return words;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ConfigGet(const Config& config,
                                                           std::string_view glob_pattern) {
  const std::string_view patterns[] = {glob_pattern};
  return ConfigGet(config, patterns);
}

std::vector<std::pair<std::string, std::string>> ConfigGet(
    const Config& config, std::span<const std::string_view> glob_patterns) {
  const std::vector<Directive>& table = Directives();
  std::vector<bool> taken(table.size(), false);
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view pattern : glob_patterns) {
    const bool glob = HasGlobChars(pattern);
    for (size_t i = 0; i < table.size(); ++i) {
      const Directive& d = table[i];
      if (taken[i] || !d.get) continue;
      const bool match =
          glob ? GlobMatch(pattern, d.name, true) : EqualsIgnoreCase(pattern, d.name);
      if (!match) continue;
      taken[i] = true;
      // A name is echoed as it was asked for, as Redis 7.0 does ("CONFIG GET Port": "Port").
      out.emplace_back(std::string(glob ? d.name : pattern), d.get(config));
    }
  }
  return out;
}

Status ConfigSet(Config* config, std::span<const std::string_view> name_value_pairs) {
  if (name_value_pairs.empty() || name_value_pairs.size() % 2 != 0) return SyntaxError();
  const size_t count = name_value_pairs.size() / 2;

  // Names first, as Redis: the first unknown, immutable or repeated name fails the whole call.
  std::vector<const Directive*> targets(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const std::string_view name = name_value_pairs[2 * i];
    const Directive* d = FindDirective(name);
    if (d == nullptr || !d->get) {
      return Err("Unknown option or number of arguments for CONFIG SET - '" +
                 std::string(resp::CString(name)) + "'");
    }
    if (!(d->flags & kRuntime)) {
      // Redis lets enable-protected-configs open its protected ones; sluice has no such switch.
      return Err(ConfigSetFailed(name, d->flags & kProtected ? "can't set protected config"
                                                             : "can't set immutable config"));
    }
    // By name, as Redis 7.0.15: a name and its alias together are accepted, the last wins.
    for (size_t j = 0; j < i; ++j) {
      if (targets[j] == d) {
        return Err(ConfigSetFailed(name, "duplicate parameter"));
      }
    }
    targets[i] = d;
  }

  // Then the values, on a copy: all or nothing.
  Config updated = *config;
  for (size_t i = 0; i < count; ++i) {
    const Directive& d = *targets[i];
    const std::string_view value = name_value_pairs[2 * i + 1];
    std::vector<std::string> values;
    if (d.flags & kMultiArg) {
      values = SplitOnSpaces(value);
    } else {
      values.emplace_back(value);
    }
    if (std::optional<ValueError> error = d.set(updated, values)) {
      return Err(ConfigSetFailed(d.name, error->redis));
    }
  }
  *config = std::move(updated);
  return Status::Ok();
}

}  // namespace sluice::server
