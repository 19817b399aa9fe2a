#pragma once

// A hash that lets std::string-keyed unordered containers be searched with a string_view
// (C++20 heterogeneous lookup, with std::equal_to<>), without building a std::string. It is
// the keys' XXH3 (common/key_hash.h): command names and script SHAs are looked up on every
// call, and std::hash is an out-of-line Murmur.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/key_hash.h"

namespace sluice {

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashKey(s); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringViewHash, std::equal_to<>>;
using StringSet = std::unordered_set<std::string, StringViewHash, std::equal_to<>>;

}  // namespace sluice
