#pragma once

// SHA1 as Redis names scripts: 40 lower-case hex digits (script cache keys, redis.sha1hex).
// SHA-256 the same way, as Redis keeps ACL passwords (64 hex digits).

#include <string>
#include <string_view>

namespace sluice::scripting {

std::string Sha1Hex(std::string_view data);
std::string Sha256Hex(std::string_view data);

}  // namespace sluice::scripting
