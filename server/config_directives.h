#pragma once

// The directive table behind server/config.h, internal to the config library: one entry per
// directive (config file, command line) and per CONFIG GET/SET parameter, with its bounds, its
// value parser and its printer. config_load.cc applies entries to config-file lines and `--`
// options; config_get_set.cc serves CONFIG GET and CONFIG SET from the same entries.

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"

namespace sluice::server::config_internal {

inline constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

// Why a value was refused, in the two voices it is reported in.
struct ValueError {
  std::string redis;   // CONFIG SET's detail: "argument couldn't be parsed into an integer"
  std::string expect;  // start-up's: "must be an integer between 0 and 65535"
};

// A line CONFIG REWRITE writes for a directive; `force` when it must be written even where the
// file has no line for the directive to replace (Redis's: the value is not the default).
struct RewriteLine {
  std::string text;
  bool force = false;
  bool operator==(const RewriteLine&) const = default;
};

using Values = std::span<const std::string>;
using Setter = std::function<std::optional<ValueError>(Config&, Values)>;
using Getter = std::function<std::string(const Config&)>;
// The lines for the directive's current value, in order; none removes the file's lines.
using Rewriter = std::function<std::vector<RewriteLine>(const Config&)>;

enum DirectiveFlags : unsigned {
  kInFile = 1u << 0,     // accepted in the config file and on the command line
  kRuntime = 1u << 1,    // CONFIG SET may change it, so CONFIG REWRITE writes it
  kMultiArg = 1u << 2,   // several words; a single non-empty one is split again (--bind "a b")
  kProtected = 1u << 4,  // Redis's PROTECTED_CONFIG: its CONFIG SET refusal says "protected"
};

struct Directive {
  Directive(std::string_view name_in, unsigned flags_in, size_t min_args_in = 1,
            size_t max_args_in = 1)
      : name(name_in), flags(flags_in), min_args(min_args_in), max_args(max_args_in) {}

  std::string_view name;
  unsigned flags = 0;
  size_t min_args = 1;
  size_t max_args = 1;
  Setter set;                // null: read-only
  Getter get;                // null: not a CONFIG parameter (policy, rename-command)
  Rewriter rewrite;          // null: CONFIG REWRITE leaves the file's lines alone
  std::string_view same_as;  // for an alias: the directive it stands for

  // The directive this entry sets: itself, or the one an alias stands for.
  std::string_view canonical_name() const { return same_as.empty() ? name : same_as; }
};

// A Config with every default, to tell a changed value from one at its default.
const Config& DefaultConfig();

// Every directive and parameter, in registry order (CONFIG GET's order).
const std::vector<Directive>& Directives();

// The entry named `name` (case-insensitive), or nullptr.
const Directive* FindDirective(std::string_view name);

// A line's values as `d` takes them, the loader's rule: for a kMultiArg directive a single
// non-empty value is split again (--bind "a b"). False, the values untouched, when its quotes
// do not balance.
[[nodiscard]] bool SplitMultiArgValue(const Directive& d, std::vector<std::string>* values);

}  // namespace sluice::server::config_internal
