#pragma once

// A function a library registered (FUNCTION LOAD): what FCALL runs and FUNCTION LIST shows.

#include <optional>
#include <string>

#include "scripting/shebang.h"

namespace sluice::scripting {

struct LibraryFunction {
  std::string name;
  std::optional<std::string> description;
  ScriptFlags flags;  // has_shebang is always set: functions never run in compatibility mode
  int ref = -1;       // the callback, in the Lua registry of the engine that loaded it
};

}  // namespace sluice::scripting
