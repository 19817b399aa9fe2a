#pragma once

// SHA1 as Redis names scripts: 40 lower-case hex digits (script cache keys, redis.sha1hex).

#include <string>
#include <string_view>

namespace sluice::scripting {

std::string Sha1Hex(std::string_view data);

}  // namespace sluice::scripting
