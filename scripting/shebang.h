#pragma once

// Redis 7.0's optional first line of an EVAL script: `#!lua [flags=no-writes,allow-oom,...]`.
// Without it a script runs in compatibility mode (may write, no flag checks).

#include <cstddef>
#include <string_view>

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

}  // namespace sluice::scripting
