#pragma once

// The first line of a FUNCTION LOAD payload, Redis 7.0's library metadata:
// `#!<engine> name=<library>`. What follows it (from its newline on, so line numbers stay the
// payload's) is the library's code.

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::scripting {

struct LibraryHeader {
  std::string engine;  // as written ("lua", "LUA"...); engines are matched ignoring case
  std::string name;
  size_t code_start = 0;  // offset of the newline that ends the header
};

// Errors are Redis's texts: "Missing library metadata", "Invalid library metadata",
// "Invalid metadata value given: x", "Invalid metadata value, name argument was given
// multiple times", "Library name was not given". The name itself is checked apart
// (IsValidFunctionName), as Redis does after reading the header.
StatusOr<LibraryHeader> ParseLibraryHeader(std::string_view payload);

// Redis's functionsVerifyName, for library and function names: one or more ASCII letters,
// digits or underscores.
bool IsValidFunctionName(std::string_view name);

// Redis's text for a bad library name (and, in 7.0, for a bad function name too).
inline constexpr std::string_view kBadLibraryName =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";

}  // namespace sluice::scripting
