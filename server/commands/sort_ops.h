#pragma once

// SORT's pure parts, as Redis 7.0's sort.c behaves (no I/O; server/commands/sort.cc reads the
// keys and replies):
//   - ParseSort: the options, in Redis's loop and with its errors;
//   - ResolvePattern: lookupKeyByPattern's substitution of an element into a BY or GET pattern
//     ("#", the first '*', a "->field" suffix after it);
//   - ParseSortScore: how a numeric sort reads a value (strtod over the C string);
//   - LimitWindow: LIMIT offset count clamped to the elements, as Redis 7.0.15 clamps it;
//   - SortItems: the comparison (numeric with ties broken by the element's bytes; ALPHA by the
//     element or by what BY found, a missing value first), stable as glibc's qsort (a merge
//     sort) is.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::server {

struct SortArgs {
  std::string_view key;
  bool desc = false;
  bool alpha = false;
  int64_t limit_offset = 0;
  int64_t limit_count = -1;  // negative: to the end
  std::optional<std::string_view> by;
  // A BY with a pattern without '*' (as a C string), whatever BY came last: the elements are
  // not sorted.
  bool dont_sort = false;
  std::vector<std::string_view> gets;  // GET patterns, in order
  std::optional<std::string_view> store;
};

// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
// [STORE destination], `args` as Redis's argv. SORT_RO (`read_only`) takes no STORE: a syntax
// error there. Options repeat, the last one wins (GETs add up). LIMIT's numbers that are not
// integers: Redis's "value is not an integer or out of range".
// BY with a pattern and GET read keys the ACL has not seen: as Redis, they are refused unless
// the user may read every key (`all_keys_readable`).
StatusOr<SortArgs> ParseSort(std::span<const std::string_view> args, bool read_only,
                             bool all_keys_readable = true);

// SORT's STORE destination as Redis's sortGetKeys finds it for COMMAND GETKEYS and WATCH: the
// argument after the last STORE, skipping LIMIT's two arguments and GET's and BY's one, but
// not STORE's own (none when there is no STORE with an argument after it).
std::vector<std::string_view> SortStoreKeys(std::span<const std::string_view> args);

// Where a BY or GET pattern points for one element.
struct PatternTarget {
  enum class Kind {
    kElement,  // "#": the element itself
    kNothing,  // no '*': nothing (GET's nil)
    kKey,      // the string at `key`, or the field `field` of the hash at `key`
  };
  Kind kind = Kind::kNothing;
  std::string key;
  std::optional<std::string> field;
};

// lookupKeyByPattern's rules: "#" (as a C string) is the element; otherwise the first '*'
// before any NUL is replaced by the element; a "->" after it (before any NUL) followed by a
// non-empty name makes the rest of the pattern a hash field, cut from the key.
PatternTarget ResolvePattern(std::string_view pattern, std::string_view element);

// A numeric sort's weight: strtod over `value` up to its first NUL, refused when characters
// are left, it overflows or underflows (ERANGE), or it is NaN. "" reads as 0.
bool ParseSortScore(std::string_view value, double* score);

// The elements a LIMIT selects out of `length`: [start, start + count).
struct SortWindow {
  size_t start = 0;
  size_t count = 0;
};
SortWindow LimitWindow(int64_t offset, int64_t count, size_t length);

struct SortItem {
  std::string element;
  double score = 0;  // numeric sorts: the weight (0 when BY found nothing)
  // ALPHA with BY: what the pattern found; nullopt when nothing, which sorts first.
  std::optional<std::string> by_value;
};

enum class SortMode {
  kNumeric,  // by score, then by the element's bytes
  kAlpha,    // by the element (or by_value with BY)
};

// Sorts `items` as Redis's sortCompare orders them. `by_pattern`: ALPHA compares by_value;
// `binary`: ALPHA compares bytes (with STORE), else C strings as strcoll in the C locale
// (up to the first NUL). Ties keep their order, DESC included.
void SortItems(std::vector<SortItem>& items, SortMode mode, bool by_pattern, bool binary,
               bool desc);

}  // namespace sluice::server
