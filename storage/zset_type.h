#pragma once

// Sorted sets on the engine.
//
// Layout (storage/key_encoding.h has the prefixes). A set is in one of two encodings
// (storage/zset_key.h says when it moves from the first to the second):
//   inline    metadata key -> [type=3][format][expire_at_ms:8][version:8][size:8] then the
//             payload [2] + per member, in index order: [len:1][score:8 ordered BE][member]
//   indexed   metadata key -> the same header, then the payload [1][floor:8 LE][ceil:8 LE]
//             (or no payload at all, from before the bounds existed)
//             subkeys [len:4 BE][key][version:8 BE][member] -> score: 8 bytes, IEEE-754 bits LE
//             zscore  [len:4 BE][key][version:8 BE][score: 8, EncodeOrderedDouble][member] -> ""
// The index (the zscore family, or the inline payload) is in score order: ties order by
// member bytewise, as Redis's skiplist does (memcmp). A score of -0.0 is stored as 0.0, as
// Redis's listpack encoding (sorted sets up to 128 members) does: ZSCORE then replies "0"
// (ZINCRBY's own reply still prints the computed "-0", as Redis's does).
//
// floor and ceil are the ordered score bits of the first and last index entries, and every
// walk of the index is bounded by them. A removed entry leaves a tombstone in RocksDB until
// compaction, and a large set used as a queue (a sliding log trimmed at its low end) would
// otherwise make every walk from the lowest score step over all the entries it ever removed.
//
// Costs of an indexed set (n elements, k returned or removed; an inline set, at most 128
// elements, is one record read and write): ZCARD O(1) from the metadata; ZSCORE, ZADD and
// ZREM of one member O(1) point operations; ZRANGEBYSCORE, ZCOUNT and ZREMRANGEBYSCORE one seek
// plus k steps (O(log n + k); ZCOUNT -inf +inf and ZLEXCOUNT - + read the size, O(1)), as are the
// BYLEX forms when all scores are equal (otherwise they walk from an end, O(n)); ranks have no
// index, so ZRANK, ZRANGE by index and ZREMRANGEBYRANK walk from whichever end of the set is closer
// (O(min(r, n - r) + k)). ZPOPMIN and ZPOPMAX walk k entries from their end (O(k)); ZRANDMEMBER
// walks to the sampled ranks from the closer end (O(n) steps for all but tiny samples,
// storage/random_sample.h's VisitPositions), copying only the k sampled members; calls in a
// row on an unchanged indexed set take picks from the set read whole once (when it fits the
// draws' budget) or drawn ahead instead (storage/draws_ahead.h).
//
// Every operation reads the key's metadata once (expired keys are missing), returns
// WrongTypeStatus() for a key of another type, and stages its writes in the engine's batch.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/random_sample.h"
#include "storage/scored_member.h"
#include "storage/zset_key.h"

namespace sluice::storage {

struct ScoreMemberArg {
  double score = 0;
  std::string_view member;
};

// ZADD's options (Redis's ZADD_IN_*). The caller has already refused the combinations Redis
// refuses (NX with XX, GT or LT; GT with LT; INCR with several pairs).
struct ZAddOptions {
  bool nx = false;
  bool xx = false;
  bool gt = false;
  bool lt = false;
  bool incr = false;
};

struct ZAddResult {
  uint64_t added = 0;      // new members
  uint64_t updated = 0;    // members whose score changed
  uint64_t processed = 0;  // members not skipped by NX/XX/GT/LT
  double score = 0;        // the last processed member's resulting score (INCR's reply)
  bool nan = false;        // an increment produced NaN: stopped there (Redis's error)
};

// A score interval, Redis's zrangespec: bounds inclusive unless *_exclusive.
struct ScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;

  bool Empty() const { return min > max || (min == max && (min_exclusive || max_exclusive)); }
  bool AboveMin(double score) const { return min_exclusive ? score > min : score >= min; }
  bool BelowMax(double score) const { return max_exclusive ? score < max : score <= max; }
};

// A lexicographic interval, Redis's zlexrangespec: "-" and "+" are the ends of the member
// space; other bounds are inclusive ("[x") or exclusive ("(x").
struct LexBound {
  enum class Kind : uint8_t { kValue, kMinusInf, kPlusInf };
  Kind kind = Kind::kValue;
  std::string_view value;  // kValue only
  bool exclusive = false;
};

struct LexRange {
  LexBound min;
  LexBound max;

  bool Empty() const;
  bool AboveMin(std::string_view member) const;
  bool BelowMax(std::string_view member) const;
};

// One page of ZSCAN.
struct ZSetScanPage {
  std::vector<ScoredMember> members;
  std::optional<std::string> resume_after;  // the page's last member; nullopt: the scan is over
  bool whole_inline_set = false;            // the page is a whole inline set (Redis: a listpack)
};

class ZSetType {
 public:
  ZSetType(Engine& engine, int64_t now_ms, InlineLimits limits = {})
      : engine_(engine), now_ms_(now_ms), limits_(limits) {}

  // Adds or updates the members (Redis's zsetAdd per pair), creating the key unless XX.
  StatusOr<ZAddResult> Add(std::string_view key, const ZAddOptions& options,
                           std::span<const ScoreMemberArg> pairs);
  // Removes the members; the key goes with its last member. Returns how many existed.
  StatusOr<uint64_t> Remove(std::string_view key, std::span<const std::string_view> members);

  StatusOr<uint64_t> Card(std::string_view key);
  StatusOr<std::optional<double>> Score(std::string_view key, std::string_view member);
  // The same of `key`, whose record (of a sorted set) the caller has looked up already.
  StatusOr<std::optional<double>> ScoreOf(std::string_view key, const Record& record,
                                          std::string_view member);
  // The scores of `members` of `key` (nullopt for one it lacks), in order, whose record (of a
  // sorted set) the caller has looked up already.
  StatusOr<std::vector<std::optional<double>>> ScoresOf(std::string_view key, const Record& record,
                                                        std::span<const std::string_view> members);
  // 0-based rank in score order (reverse: from the highest score); nullopt if missing.
  StatusOr<std::optional<uint64_t>> Rank(std::string_view key, std::string_view member,
                                         bool reverse);

  // Every member of `key`, in score order, whose record (of a sorted set) the caller has
  // looked up already.
  StatusOr<std::vector<ScoredMember>> MembersOf(std::string_view key, const Record& record);

  // Members at ranks [start, stop] (Redis index rules: negative counts from the end), in score
  // order, or from the highest score when reverse (ZREVRANGE's ranks).
  StatusOr<std::vector<ScoredMember>> RangeByRank(std::string_view key, int64_t start, int64_t stop,
                                                  bool reverse);
  // The same of `key`, whose record (of a sorted set) the caller has looked up already.
  StatusOr<std::vector<ScoredMember>> RangeByRankOf(std::string_view key, const Record& record,
                                                    int64_t start, int64_t stop, bool reverse);
  // Members with scores in `range`, ascending (descending when reverse), skipping `offset`
  // and returning at most `limit` (negative: no limit). A negative offset returns nothing,
  // as Redis's LIMIT does.
  StatusOr<std::vector<ScoredMember>> RangeByScore(std::string_view key, const ScoreRange& range,
                                                   bool reverse, int64_t offset = 0,
                                                   int64_t limit = -1);
  // The members with scores in each of `ranges`, range after range, each in ascending order,
  // handed to `visit` until it returns false; read under `key`'s record (of a sorted set),
  // looked up already, decoded once for all the ranges (GEOSEARCH's up to 9 boxes).
  Status RangesByScoreOf(std::string_view key, const Record& record,
                         std::span<const ScoreRange> ranges,
                         const std::function<bool(ScoredMember)>& visit);
  StatusOr<uint64_t> Count(std::string_view key, const ScoreRange& range);

  // BYLEX: members in `range` in index order (meant for sets whose scores are all equal; with
  // mixed scores the result follows Redis's listpack walk: the first member at or past the
  // min in score order starts the range, the first one past the max ends it).
  StatusOr<std::vector<ScoredMember>> RangeByLex(std::string_view key, const LexRange& range,
                                                 bool reverse, int64_t offset = 0,
                                                 int64_t limit = -1);
  StatusOr<uint64_t> LexCount(std::string_view key, const LexRange& range);

  // ZSCAN: up to `count` members after `after` ("" = from the start), in member order, with
  // their scores: a member whose score changes meanwhile keeps its place, so every member
  // present from a scan's start to its end is returned. An inline set comes whole, in score
  // order, as Redis returns a listpack in one reply whatever the COUNT. The caller has looked the
  // key's record (of a sorted set) up already.
  StatusOr<ZSetScanPage> ScanOf(std::string_view key, const Record& record, std::string_view after,
                                size_t count);

  // ZPOPMIN / ZPOPMAX: removes the min(count, size) members with the lowest scores (the highest
  // when `highest`) and returns them in the order popped; the key goes with its last member.
  StatusOr<std::vector<ScoredMember>> Pop(std::string_view key, uint64_t count, bool highest);

  // ZRANDMEMBER key count: members sampled by PlanSample's rules for `count`
  // (storage/random_sample.h), in index order, and the reply as picks into them; empty for a
  // missing key. A count >= size picks the whole set from its highest score down, as Redis 7.0
  // replies it. With a negative count the caller bounds -count (PlanSample). A count
  // TakesPicks allows, on an indexed set, takes picks drawn ahead by the calls before
  // (storage/random_draws.h), then draws the rest.
  StatusOr<RandomSample<ScoredMember>> RandomMembers(std::string_view key, int64_t count,
                                                     std::mt19937_64& rng);

  // The STORE forms (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZRANGESTORE): replaces whatever
  // `key` holds, of any type, with a new sorted set of `members` (distinct) and no expiry, as
  // Redis's setKey; an empty `members` deletes the key instead (nothing is written when it is
  // missing). The old key's elements become garbage for the compaction filter.
  Status Replace(std::string_view key, std::span<const ScoredMember> members);

  // Remove and return how many went; the key goes with its last member.
  StatusOr<uint64_t> RemoveRangeByScore(std::string_view key, const ScoreRange& range);
  StatusOr<uint64_t> RemoveRangeByRank(std::string_view key, int64_t start, int64_t stop);
  StatusOr<uint64_t> RemoveRangeByLex(std::string_view key, const LexRange& range);

 private:
  Engine& engine_;
  int64_t now_ms_;
  InlineLimits limits_;
};

}  // namespace sluice::storage
