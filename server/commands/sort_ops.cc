#include "server/commands/sort_ops.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/ascii.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"

namespace sluice::server {
namespace {

// strcasecmp over C strings: an argument ends at its first NUL byte.
bool IsKeyword(std::string_view arg, std::string_view keyword) {
  return EqualsIgnoreCase(resp::CString(arg), keyword);
}

}  // namespace

std::vector<std::string_view> SortStoreKeys(std::span<const std::string_view> args) {
  std::optional<std::string_view> store;
  for (size_t i = 2; i < args.size(); ++i) {
    if (IsKeyword(args[i], "limit")) {
      i += 2;
    } else if (IsKeyword(args[i], "get") || IsKeyword(args[i], "by")) {
      i += 1;
    } else if (IsKeyword(args[i], "store") && i + 1 < args.size()) {
      store = args[i + 1];  // the last one wins; its key is read as an option next
    }
  }
  if (!store) return {};
  return {*store};
}

StatusOr<SortArgs> ParseSort(std::span<const std::string_view> args, bool read_only,
                             bool all_keys_readable) {
  SortArgs parsed;
  parsed.key = args[1];
  for (size_t j = 2; j < args.size(); ++j) {
    const size_t left = args.size() - j - 1;  // arguments after this one
    std::string_view option = args[j];
    if (IsKeyword(option, "asc")) {
      parsed.desc = false;
    } else if (IsKeyword(option, "desc")) {
      parsed.desc = true;
    } else if (IsKeyword(option, "alpha")) {
      parsed.alpha = true;
    } else if (IsKeyword(option, "limit") && left >= 2) {
      if (!ParseInt64(args[j + 1], &parsed.limit_offset) ||
          !ParseInt64(args[j + 2], &parsed.limit_count)) {
        return NotIntegerError();
      }
      j += 2;
    } else if (!read_only && IsKeyword(option, "store") && left >= 1) {
      parsed.store = args[++j];
    } else if (IsKeyword(option, "by") && left >= 1) {
      parsed.by = args[++j];
      // No '*' (as strchr sees the C string): nothing to sort by, also when a later BY has
      // one (Redis never clears the flag).
      if (resp::CString(*parsed.by).find('*') == std::string_view::npos) {
        parsed.dont_sort = true;
      } else if (!all_keys_readable) {
        return Err("BY option of SORT denied due to insufficient ACL permissions.");
      }
    } else if (IsKeyword(option, "get") && left >= 1) {
      if (!all_keys_readable) {
        return Err("GET option of SORT denied due to insufficient ACL permissions.");
      }
      parsed.gets.push_back(args[++j]);
    } else {
      return SyntaxError();
    }
  }
  return parsed;
}

PatternTarget ResolvePattern(std::string_view pattern, std::string_view element) {
  PatternTarget target;
  const std::string_view c_pattern = resp::CString(pattern);
  if (c_pattern == "#") {
    target.kind = PatternTarget::Kind::kElement;
    return target;
  }
  const size_t star = c_pattern.find('*');
  if (star == std::string_view::npos) return target;  // kNothing
  // A "->" after the '*' with a name after it (both as C strings see them): the field is all
  // of the pattern after the arrow, NUL bytes included.
  size_t key_end = pattern.size();
  const size_t arrow = c_pattern.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < c_pattern.size()) {
    target.field = std::string(pattern.substr(arrow + 2));
    key_end = arrow;
  }
  target.kind = PatternTarget::Kind::kKey;
  target.key.reserve(key_end - 1 + element.size());
  target.key.append(pattern.substr(0, star));
  target.key.append(element);
  target.key.append(pattern.substr(star + 1, key_end - star - 1));
  return target;
}

bool ParseSortScore(std::string_view value, double* score) {
  const std::string text(resp::CString(value));
  char* end = nullptr;
  errno = 0;
  *score = std::strtod(text.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*score);
}

SortWindow LimitWindow(int64_t offset, int64_t count, size_t length) {
  const auto start = static_cast<size_t>(std::max<int64_t>(offset, 0));
  if (start >= length) return {0, 0};
  const size_t rest = length - start;
  if (count < 0) return {start, rest};
  return {start, std::min(static_cast<size_t>(count), rest)};
}

namespace {

// Redis's compareStringObjects: bytes, then the shorter first.
int CompareBytes(std::string_view a, std::string_view b) {
  const int cmp = a.compare(b);
  return cmp < 0 ? -1 : (cmp > 0 ? 1 : 0);
}

// strcoll in the C locale: strcmp, which stops at the first NUL.
int CompareCStrings(std::string_view a, std::string_view b) {
  return CompareBytes(resp::CString(a), resp::CString(b));
}

}  // namespace

void SortItems(std::vector<SortItem>& items, SortMode mode, bool by_pattern, bool binary,
               bool desc) {
  auto compare = [&](const SortItem& a, const SortItem& b) -> int {
    if (mode == SortMode::kNumeric) {
      if (a.score > b.score) return 1;
      if (a.score < b.score) return -1;
      return CompareBytes(a.element, b.element);
    }
    if (by_pattern) {
      if (!a.by_value || !b.by_value) {
        if (!a.by_value && !b.by_value) return 0;
        return !a.by_value ? -1 : 1;
      }
      return binary ? CompareBytes(*a.by_value, *b.by_value)
                    : CompareCStrings(*a.by_value, *b.by_value);
    }
    return binary ? CompareBytes(a.element, b.element) : CompareCStrings(a.element, b.element);
  };
  std::stable_sort(items.begin(), items.end(), [&](const SortItem& a, const SortItem& b) {
    const int cmp = compare(a, b);
    return desc ? cmp > 0 : cmp < 0;
  });
}

}  // namespace sluice::server
