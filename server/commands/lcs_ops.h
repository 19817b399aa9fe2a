#pragma once

// LCS's pure part, as Redis 7.0's lcsCommand computes it (no I/O; server/commands/lcs.cc reads
// the keys and replies): the dynamic-programming table of LCS lengths of every pair of
// prefixes, then one walk back from its corner that spells the common subsequence and splits
// it into the ranges of consecutive matches, last range first.
//
// The walk, at (i, j) with i and j bytes of a and b left: equal bytes a[i-1] == b[j-1] join
// the current range (extending it backwards) and step both back; otherwise it steps back in a
// when LCS(i-1, j) > LCS(i, j-1), else in b, which ends the current range. A range also ends
// when it reaches the first byte of either string.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {

struct LcsMatch {
  uint32_t a_start = 0;  // inclusive byte offsets in a
  uint32_t a_end = 0;
  uint32_t b_start = 0;  // and in b
  uint32_t b_end = 0;
  uint32_t length() const { return a_end - a_start + 1; }
  bool operator==(const LcsMatch&) const = default;
};

struct LcsResult {
  uint32_t length = 0;
  std::string subsequence;        // when asked for
  std::vector<LcsMatch> matches;  // when asked for: the walk's ranges of at least min_match_len
};

// The table's bytes for strings of these lengths, as Redis counts them: (a+1) x (b+1) cells of
// 4 bytes; nullopt past 64 bits. Redis refuses LCS when that passes proto-max-bulk-len.
std::optional<uint64_t> LcsTableBytes(uint64_t a_length, uint64_t b_length);

// LCS of `a` and `b` (each shorter than UINT32_MAX - 1 bytes). `want_subsequence` fills
// `subsequence`, `want_matches` fills `matches` with the ranges at least `min_match_len` long
// (0 or less: all). nullopt when the table cannot be allocated.
std::optional<LcsResult> ComputeLcs(std::string_view a, std::string_view b, bool want_subsequence,
                                    bool want_matches, int64_t min_match_len);

}  // namespace sluice::server
