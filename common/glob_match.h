#pragma once

// Glob matching with the semantics of Redis's stringmatchlen() (KEYS, SCAN MATCH):
//   *        any run of bytes          ?       any one byte
//   [abc]    one of the listed bytes   [^abc]  any byte not listed
//   [a-z]    a range (ends may be given in either order)
//   \x       the byte x literally (also inside brackets)
// Redis's quirks are kept: an unterminated "[..." class still matches one byte, "[^" alone
// matches any byte, a trailing "\" is a literal backslash, and a non-empty pattern never
// matches the empty string (not even "*"; KEYS * special-cases it, as callers here must).
//
// Unlike Redis's recursive matcher this one is iterative: only the most recent '*' is ever
// backtracked to, so time is O(pattern x string) and stack use is constant whatever the
// pattern. Redis 7's abuse guard (recursion nesting > 1000 fails) is reproduced: a match that
// has to pass more than kGlobMaxStarGroups '*' groups followed by more pattern fails.
// Range ends compare as unsigned bytes (Redis compares plain chars, signed on x86; only
// ranges mixing ASCII and bytes >= 0x80 differ).

#include <cstddef>
#include <string_view>

namespace sluice {

inline constexpr size_t kGlobMaxStarGroups = 1000;

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

// The bytes every string matched by `pattern` (case-sensitively) starts with: the pattern up
// to its first '*', '?', '[' or '\'. Lets a key scan seek instead of reading every key.
std::string_view GlobLiteralPrefix(std::string_view pattern);

}  // namespace sluice
