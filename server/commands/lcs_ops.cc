#include "server/commands/lcs_ops.h"

#include <algorithm>
#include <memory>
#include <new>

namespace sluice::server {

std::optional<uint64_t> LcsTableBytes(uint64_t a_length, uint64_t b_length) {
  uint64_t cells = 0;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(a_length + 1, b_length + 1, &cells) ||
      __builtin_mul_overflow(cells, uint64_t{sizeof(uint32_t)}, &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

std::optional<LcsResult> ComputeLcs(std::string_view a, std::string_view b, bool want_subsequence,
                                    bool want_matches, int64_t min_match_len) {
  const auto a_len = static_cast<uint32_t>(a.size());
  const auto b_len = static_cast<uint32_t>(b.size());
  const size_t row = size_t{b_len} + 1;
  const size_t cells = (size_t{a_len} + 1) * row;
  std::unique_ptr<uint32_t[]> table(new (std::nothrow) uint32_t[cells]);
  if (!table) return std::nullopt;
  // table[i * row + j]: the LCS length of a's first i bytes and b's first j bytes.
  auto at = [&](uint32_t i, uint32_t j) -> uint32_t& { return table[i * row + j]; };
  for (uint32_t i = 0; i <= a_len; ++i) {
    for (uint32_t j = 0; j <= b_len; ++j) {
      if (i == 0 || j == 0) {
        at(i, j) = 0;
      } else if (a[i - 1] == b[j - 1]) {
        at(i, j) = at(i - 1, j - 1) + 1;
      } else {
        at(i, j) = std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  LcsResult result;
  result.length = at(a_len, b_len);
  if (!want_subsequence && !want_matches) return result;
  if (want_subsequence) result.subsequence.resize(result.length);

  uint32_t left = result.length;  // bytes of the subsequence still to place
  bool open = false;              // a range of matches is being built
  LcsMatch range;
  uint32_t i = a_len;
  uint32_t j = b_len;
  while (i > 0 && j > 0) {
    bool ends = false;
    if (a[i - 1] == b[j - 1]) {
      if (want_subsequence) result.subsequence[left - 1] = a[i - 1];
      if (!open) {
        range = {i - 1, i - 1, j - 1, j - 1};
        open = true;
      } else if (range.a_start == i && range.b_start == j) {
        --range.a_start;
        --range.b_start;
      } else {
        ends = true;
      }
      if (range.a_start == 0 || range.b_start == 0) ends = true;
      --left;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      ends = open;
    }
    if (ends) {
      if (want_matches &&
          (min_match_len <= 0 || static_cast<int64_t>(range.length()) >= min_match_len)) {
        result.matches.push_back(range);
      }
      open = false;
    }
  }
  return result;
}

}  // namespace sluice::server
