#pragma once

// Redis 7.0's optional first line of an EVAL script: `#!lua [flags=no-writes,allow-oom,...]`.
// Without it a script runs in compatibility mode (may write, no flag checks).

#include <cstddef>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::scripting {

struct ScriptFlags {
  bool has_shebang = false;  // false: Redis's EVAL compatibility mode
  bool no_writes = false;
  bool allow_oom = false;
  bool allow_stale = false;
  bool no_cluster = false;
  bool allow_cross_slot_keys = false;
};

struct Shebang {
  ScriptFlags flags;
  size_t length = 0;  // bytes before the newline that ends the shebang (0 without one)
};

// Errors are Redis's texts ("Invalid script shebang", "Unexpected engine in script shebang:
// #!perl", "Unknown lua shebang option: x", "Unexpected flag in script shebang: x").
StatusOr<Shebang> ParseShebang(std::string_view body);

// Sets the flag Redis calls `name` ("no-writes", "allow-oom", "allow-stale", "no-cluster",
// "allow-cross-slot-keys"); false for any other name. Shebangs and FUNCTION flags share them.
bool SetScriptFlag(std::string_view name, ScriptFlags* flags);

// The words of a shebang or library header line, split at white space (Redis splits it with
// sdssplitargs; quoting there has no use, so plain words are what matters).
std::vector<std::string_view> SplitShebangWords(std::string_view line);

}  // namespace sluice::scripting
