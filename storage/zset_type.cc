#include "storage/zset_type.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "storage/composite.h"
#include "storage/key_encoding.h"
#include "storage/random_draws.h"
#include "storage/zset_key.h"

namespace sluice::storage {

namespace {

// Decodes a zscore entry of the key whose sub-entry prefix is `prefix_size` bytes long.
StatusOr<ScoredMember> DecodeIndexEntry(std::string_view key, size_t prefix_size) {
  if (key.size() < prefix_size + kScoreBytes) return CorruptZSet("index key truncated");
  ScoredMember out;
  out.score = DoubleFromOrderedBits(LoadFixed64BE(key.data() + prefix_size));
  out.member.assign(key.substr(prefix_size + kScoreBytes));
  return out;
}

// Ranks [first, last] (0-based, ascending, last < size) in ascending order, walked from
// whichever end of the index is closer.
StatusOr<std::vector<ScoredMember>> CollectRanks(ZSetReader& zset, uint64_t size, uint64_t first,
                                                 uint64_t last) {
  std::vector<ScoredMember> out;
  out.reserve(last - first + 1);
  std::unique_ptr<SubEntryIterator> it = zset.Index();
  const bool from_head = first <= size - 1 - last;
  if (from_head) {
    it->SeekToFirst();
    for (uint64_t i = 0; i < first && it->Valid(); ++i) it->Next();
  } else {
    it->SeekToLast();
    for (uint64_t i = 0; i < size - 1 - last && it->Valid(); ++i) it->Prev();
  }
  while (it->Valid() && out.size() < last - first + 1) {
    StatusOr<ScoredMember> entry = DecodeIndexEntry(it->key(), zset.prefix().size());
    if (!entry.ok()) return entry.status();
    out.push_back(std::move(*entry));
    if (from_head) {
      it->Next();
    } else {
      it->Prev();
    }
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (!from_head) std::reverse(out.begin(), out.end());
  return out;
}

// Visits the entries with scores in `range` in ascending (or descending) order until `visit`
// returns false.
template <typename Visit>
Status WalkScores(ZSetReader& zset, const ScoreRange& range, bool reverse, Visit visit) {
  if (range.Empty()) return Status::Ok();
  std::unique_ptr<SubEntryIterator> it = zset.Index();
  const std::string& prefix = zset.prefix();
  if (!reverse) {
    // Entries equal to an exclusive min share its ordered bits: start just past them.
    it->Seek(zset.IndexBound(OrderedDoubleBits(range.min) + (range.min_exclusive ? 1 : 0)));
  } else {
    // The last entry strictly below the first bits past the max (or the max's own bits when
    // it is exclusive). Ordered bits never reach UINT64_MAX (NaN is refused), so +1 is safe.
    const std::string bound =
        zset.IndexBound(OrderedDoubleBits(range.max) + (range.max_exclusive ? 0 : 1));
    it->SeekForPrev(bound);
    if (it->Valid() && it->key() == bound) it->Prev();
  }
  while (it->Valid()) {
    StatusOr<ScoredMember> entry = DecodeIndexEntry(it->key(), prefix.size());
    if (!entry.ok()) return entry.status();
    if (reverse ? !range.AboveMin(entry->score) : !range.BelowMax(entry->score)) break;
    if (!visit(std::move(*entry))) break;
    if (reverse) {
      it->Prev();
    } else {
      it->Next();
    }
  }
  return it->status();
}

// Redis's sdscmplex of a member against a bound.
int CompareLex(std::string_view member, const LexBound& bound) {
  switch (bound.kind) {
    case LexBound::Kind::kMinusInf:
      return 1;
    case LexBound::Kind::kPlusInf:
      return -1;
    case LexBound::Kind::kValue:
      break;
  }
  const int c = member.compare(bound.value);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// The bytes of an index key up to and including its score.
std::string_view ScorePart(std::string_view key, size_t prefix_size) {
  return key.substr(0, prefix_size + kScoreBytes);
}

// Positions `it` where a lex walk starts (Redis's zzlFirstInLexRange, or zzlLastInLexRange when
// reverse), checking zzlIsInLexRange first. Returns false, leaving `it` anywhere, when nothing
// is in range. When every score is equal (first and last share it) members are in order, so
// the start is one seek; otherwise the walk goes from the end, as Redis's listpack does.
StatusOr<bool> SeekLex(SubEntryIterator& it, const std::string& prefix, const LexRange& range,
                       bool reverse) {
  if (range.Empty()) return false;
  it.SeekToLast();
  if (!it.Valid()) {
    SLUICE_RETURN_IF_ERROR(it.status());
    return false;
  }
  StatusOr<ScoredMember> last = DecodeIndexEntry(it.key(), prefix.size());
  if (!last.ok()) return last.status();
  const std::string last_score(ScorePart(it.key(), prefix.size()));
  it.SeekToFirst();
  if (!it.Valid()) {
    SLUICE_RETURN_IF_ERROR(it.status());
    return false;
  }
  StatusOr<ScoredMember> first = DecodeIndexEntry(it.key(), prefix.size());
  if (!first.ok()) return first.status();
  if (!range.AboveMin(last->member) || !range.BelowMax(first->member)) return false;
  const bool uniform = ScorePart(it.key(), prefix.size()) == last_score;
  auto member = [&] { return it.key().substr(prefix.size() + kScoreBytes); };
  if (!reverse) {
    if (uniform && range.min.kind == LexBound::Kind::kValue) {
      it.Seek(last_score + std::string(range.min.value));
      if (it.Valid() && range.min.exclusive && member() == range.min.value) it.Next();
    } else {
      while (it.Valid() && !range.AboveMin(member())) it.Next();
    }
    SLUICE_RETURN_IF_ERROR(it.status());
    return it.Valid() && range.BelowMax(member());
  }
  if (uniform && range.max.kind == LexBound::Kind::kValue) {
    it.SeekForPrev(last_score + std::string(range.max.value));
    if (it.Valid() && range.max.exclusive && member() == range.max.value) it.Prev();
  } else {
    it.SeekToLast();
    while (it.Valid() && !range.BelowMax(member())) it.Prev();
  }
  SLUICE_RETURN_IF_ERROR(it.status());
  return it.Valid() && range.AboveMin(member());
}

// Visits the entries of a lex walk (after `offset` unchecked steps, as Redis) until `visit`
// returns false or the walk leaves the range.
template <typename Visit>
Status WalkLex(ZSetReader& zset, const LexRange& range, bool reverse, int64_t offset, Visit visit) {
  std::unique_ptr<SubEntryIterator> it = zset.Index();
  StatusOr<bool> found = SeekLex(*it, zset.prefix(), range, reverse);
  if (!found.ok()) return found.status();
  if (!*found) return Status::Ok();
  auto step = [&] {
    if (reverse) {
      it->Prev();
    } else {
      it->Next();
    }
  };
  for (; offset > 0 && it->Valid(); --offset) step();
  while (it->Valid()) {
    StatusOr<ScoredMember> entry = DecodeIndexEntry(it->key(), zset.prefix().size());
    if (!entry.ok()) return entry.status();
    if (reverse ? !range.AboveMin(entry->member) : !range.BelowMax(entry->member)) break;
    if (!visit(std::move(*entry))) break;
    step();
  }
  return it->status();
}

// Erases `doomed` (collected by a walk whose iterator is gone: engine.h, collect then write) and
// shrinks the key, which goes with its last member. Returns how many went.
StatusOr<uint64_t> EraseMembers(ZSetKey& zset, const std::vector<ScoredMember>& doomed) {
  for (const ScoredMember& entry : doomed) zset.Erase(entry.member, entry.score);
  if (!doomed.empty()) {
    uint64_t& size = zset.record().meta.size;
    size -= std::min<uint64_t>(doomed.size(), size);
    SLUICE_RETURN_IF_ERROR(zset.Store());
  }
  return static_cast<uint64_t>(doomed.size());
}

// EraseMembers for a run of entries consecutive in the index, in index order (a range by
// score or by rank): the bounds left are found from the run's neighbours.
StatusOr<uint64_t> EraseRun(ZSetKey& zset, const std::vector<ScoredMember>& run) {
  if (!run.empty()) {
    SLUICE_RETURN_IF_ERROR(zset.NoteRunToErase(zset.IndexKey(run.front().score, run.front().member),
                                               zset.IndexKey(run.back().score, run.back().member)));
  }
  return EraseMembers(zset, run);
}

// The range reads below take `walk(zset, visit)`: a WalkScores or WalkLex with its range bound.

// ZRANGEBYSCORE and ZRANGEBYLEX: at most `limit` entries (negative: no limit) of the walk, which
// applies `offset` itself. A negative offset, a zero limit or an offset past the size returns
// nothing, as Redis's LIMIT does; so does a missing key.
template <typename Walk>
StatusOr<std::vector<ScoredMember>> CollectRange(Engine& engine, int64_t now_ms,
                                                 std::string_view key, int64_t offset,
                                                 int64_t limit, Walk walk) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine, key, KeyType::kZSet, now_ms);
  if (!loaded.ok()) return loaded.status();
  std::vector<ScoredMember> out;
  if (!loaded->has_value() || offset < 0 || limit == 0) return out;
  const Record& record = **loaded;
  if (static_cast<uint64_t>(offset) >= record.meta.size) return out;
  ZSetReader zset(engine, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  Status walked = walk(zset, [&](ScoredMember entry) {
    out.push_back(std::move(entry));
    return limit < 0 || static_cast<int64_t>(out.size()) < limit;
  });
  if (!walked.ok()) return walked;
  return out;
}

// What CountRange does with the entries it walks: counts them (ZCOUNT, ZLEXCOUNT), or erases
// them once the walk is over, as a run when they are consecutive in the index (by score) or
// one by one (by lex: a walk in listpack order when scores differ).
enum class Walked { kCounted, kErased, kErasedAsRun };

// How many entries an ascending walk visits, erased as `what` says.
template <typename Walk>
StatusOr<uint64_t> CountRange(Engine& engine, int64_t now_ms, InlineLimits limits,
                              std::string_view key, Walked what, Walk walk, bool whole = false) {
  const bool erase = what != Walked::kCounted;
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine, key, KeyType::kZSet, now_ms);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return uint64_t{0};
  Record& record = **loaded;
  // A range that takes in every member (ZCOUNT key -inf +inf, ZLEXCOUNT key - +: a ZCARD by
  // another name) is counted by the metadata, not by a walk of the whole set.
  if (whole && !erase) return record.meta.size;
  ZSetKey zset(engine, key, record, limits);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  uint64_t count = 0;
  std::vector<ScoredMember> doomed;
  Status walked = walk(zset, [&](ScoredMember entry) {
    ++count;
    if (erase) doomed.push_back(std::move(entry));
    return true;
  });
  if (!walked.ok()) return walked;
  if (what == Walked::kErasedAsRun) return EraseRun(zset, doomed);
  if (what == Walked::kErased) return EraseMembers(zset, doomed);
  return count;
}

}  // namespace

StatusOr<ZAddResult> ZSetType::Add(std::string_view key, const ZAddOptions& options,
                                   std::span<const ScoreMemberArg> pairs) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  ZAddResult result;
  const bool existed = loaded->has_value();
  if (!existed && options.xx) return result;  // no key and XX: nothing to do
  Record record = existed ? std::move(**loaded) : ZSetKey::NewRecord(engine_);
  ZSetKey zset(engine_, key, record, limits_);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  for (const ScoreMemberArg& pair : pairs) {
    double score = pair.score;
    if (std::isnan(score)) {
      result.nan = true;
      break;
    }
    std::optional<double> current;
    // A new key's version is fresh: only members added by this call can be found in it.
    if (existed || result.added > 0) {
      StatusOr<std::optional<double>> found = zset.Score(pair.member);
      if (!found.ok()) return found.status();
      current = *found;
    }
    if (current) {
      if (options.nx) continue;
      if (options.incr) {
        score += *current;
        if (std::isnan(score)) {
          result.nan = true;
          break;
        }
      }
      if ((options.lt && score >= *current) || (options.gt && score <= *current)) continue;
      ++result.processed;
      result.score = score;
      if (score != *current) {
        zset.Rescore(pair.member, *current, score);
        ++result.updated;
      }
    } else if (!options.xx) {
      zset.Insert(pair.member, score);
      ++result.added;
      ++result.processed;
      result.score = score;
    }
  }
  if (result.added > 0 || zset.record_changed() || zset.TombstonesDue()) {
    record.meta.size += result.added;
    SLUICE_RETURN_IF_ERROR(zset.Store());
  }
  return result;
}

StatusOr<uint64_t> ZSetType::Remove(std::string_view key,
                                    std::span<const std::string_view> members) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return uint64_t{0};
  Record& record = **loaded;
  ZSetKey zset(engine_, key, record, limits_);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  uint64_t removed = 0;
  for (std::string_view member : members) {
    StatusOr<std::optional<double>> score = zset.Score(member);
    if (!score.ok()) return score.status();
    if (!score->has_value()) continue;
    zset.Erase(member, **score);
    ++removed;
  }
  if (removed > 0) {
    record.meta.size -= std::min(removed, record.meta.size);
    SLUICE_RETURN_IF_ERROR(zset.Store());
  }
  return removed;
}

StatusOr<uint64_t> ZSetType::Card(std::string_view key) {
  return LoadSize(engine_, key, KeyType::kZSet, now_ms_);
}

StatusOr<std::optional<double>> ZSetType::Score(std::string_view key, std::string_view member) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<double>();
  return ScoreOf(key, **loaded, member);
}

StatusOr<std::optional<double>> ZSetType::ScoreOf(std::string_view key, const Record& record,
                                                  std::string_view member) {
  ZSetReader zset(engine_, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  return zset.Score(member);
}

StatusOr<std::optional<uint64_t>> ZSetType::Rank(std::string_view key, std::string_view member,
                                                 bool reverse) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::optional<uint64_t>();
  const uint64_t size = (*loaded)->meta.size;
  ZSetReader zset(engine_, key, **loaded);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  StatusOr<std::optional<double>> score = zset.Score(member);
  if (!score.ok()) return score.status();
  if (!score->has_value()) return std::optional<uint64_t>();
  const std::string target = zset.IndexKey(**score, member);
  // Walk from both ends at once: the member is found after min(rank, size - rank) steps.
  std::unique_ptr<SubEntryIterator> head = zset.Index();
  std::unique_ptr<SubEntryIterator> tail = zset.Index();
  head->SeekToFirst();
  tail->SeekToLast();
  SLUICE_RETURN_IF_ERROR(tail->status());  // ranks from the end count on the size
  for (uint64_t steps = 0; head->Valid() || tail->Valid(); ++steps) {
    std::optional<uint64_t> rank;
    if (head->Valid() && head->key() == target) rank = steps;
    if (!rank && tail->Valid() && tail->key() == target && steps < size) rank = size - 1 - steps;
    if (rank) return std::optional<uint64_t>(reverse ? size - 1 - *rank : *rank);
    head->Next();
    tail->Prev();
  }
  SLUICE_RETURN_IF_ERROR(head->status());
  SLUICE_RETURN_IF_ERROR(tail->status());
  return CorruptZSet("member missing from the score index");
}

StatusOr<std::vector<std::optional<double>>> ZSetType::ScoresOf(
    std::string_view key, const Record& record, std::span<const std::string_view> members) {
  ZSetReader zset(engine_, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  std::vector<std::optional<double>> scores;
  scores.reserve(members.size());
  for (std::string_view member : members) {
    StatusOr<std::optional<double>> score = zset.Score(member);
    if (!score.ok()) return score.status();
    scores.push_back(*score);
  }
  return scores;
}

StatusOr<std::vector<ScoredMember>> ZSetType::MembersOf(std::string_view key,
                                                        const Record& record) {
  return RangeByRankOf(key, record, 0, -1, /*reverse=*/false);
}

StatusOr<std::vector<ScoredMember>> ZSetType::RangeByRank(std::string_view key, int64_t start,
                                                          int64_t stop, bool reverse) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return std::vector<ScoredMember>();
  return RangeByRankOf(key, **loaded, start, stop, reverse);
}

StatusOr<std::vector<ScoredMember>> ZSetType::RangeByRankOf(std::string_view key,
                                                            const Record& record, int64_t start,
                                                            int64_t stop, bool reverse) {
  const uint64_t size = record.meta.size;
  std::optional<IndexRange> range = ClampIndexRange(start, stop, size);
  if (!range) return std::vector<ScoredMember>();
  ZSetReader zset(engine_, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  if (!reverse) return CollectRanks(zset, size, range->start, range->stop);
  StatusOr<std::vector<ScoredMember>> out =
      CollectRanks(zset, size, size - 1 - range->stop, size - 1 - range->start);
  if (out.ok()) std::reverse(out->begin(), out->end());
  return out;
}

StatusOr<std::vector<ScoredMember>> ZSetType::RangeByScore(std::string_view key,
                                                           const ScoreRange& range, bool reverse,
                                                           int64_t offset, int64_t limit) {
  return CollectRange(engine_, now_ms_, key, offset, limit, [&](ZSetReader& zset, auto visit) {
    int64_t to_skip = offset;  // entries in the range, skipped
    return WalkScores(zset, range, reverse, [&](ScoredMember entry) {
      if (to_skip > 0) {
        --to_skip;
        return true;
      }
      return visit(std::move(entry));
    });
  });
}

Status ZSetType::RangesByScoreOf(std::string_view key, const Record& record,
                                 std::span<const ScoreRange> ranges,
                                 const std::function<bool(ScoredMember)>& visit) {
  ZSetReader zset(engine_, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  bool more = true;
  for (const ScoreRange& range : ranges) {
    SLUICE_RETURN_IF_ERROR(WalkScores(zset, range, /*reverse=*/false, [&](ScoredMember entry) {
      more = visit(std::move(entry));
      return more;
    }));
    if (!more) break;
  }
  return Status::Ok();
}

StatusOr<uint64_t> ZSetType::Count(std::string_view key, const ScoreRange& range) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const bool whole =
      range.min == -kInf && !range.min_exclusive && range.max == kInf && !range.max_exclusive;
  return CountRange(
      engine_, now_ms_, limits_, key, Walked::kCounted,
      [&](ZSetKey& zset, auto visit) { return WalkScores(zset, range, /*reverse=*/false, visit); },
      whole);
}

StatusOr<uint64_t> ZSetType::RemoveRangeByScore(std::string_view key, const ScoreRange& range) {
  return CountRange(
      engine_, now_ms_, limits_, key, Walked::kErasedAsRun,
      [&](ZSetKey& zset, auto visit) { return WalkScores(zset, range, /*reverse=*/false, visit); });
}

StatusOr<uint64_t> ZSetType::RemoveRangeByRank(std::string_view key, int64_t start, int64_t stop) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value()) return uint64_t{0};
  Record& record = **loaded;
  std::optional<IndexRange> range = ClampIndexRange(start, stop, record.meta.size);
  if (!range) return uint64_t{0};
  ZSetKey zset(engine_, key, record, limits_);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  StatusOr<std::vector<ScoredMember>> doomed =
      CollectRanks(zset, record.meta.size, range->start, range->stop);
  if (!doomed.ok()) return doomed.status();
  return EraseRun(zset, *doomed);
}

StatusOr<std::vector<ScoredMember>> ZSetType::Pop(std::string_view key, uint64_t count,
                                                  bool highest) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  if (!loaded->has_value() || count == 0) return std::vector<ScoredMember>();
  Record& record = **loaded;
  const uint64_t size = record.meta.size;
  const uint64_t n = std::min(count, size);
  ZSetKey zset(engine_, key, record, limits_);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  // The entry next to the run too, read by the same walk: the bound it leaves. (EraseRun's
  // neighbours cost two more seeks over the batch's writes and RocksDB: a third of a
  // pipelined ZPOPMIN.)
  const uint64_t with_neighbour = n < size ? n + 1 : n;
  StatusOr<std::vector<ScoredMember>> popped =
      highest ? CollectRanks(zset, size, size - with_neighbour, size - 1)
              : CollectRanks(zset, size, 0, with_neighbour - 1);
  if (!popped.ok()) return popped.status();
  std::optional<uint64_t> neighbour_bits;  // none when the walk found nothing past the run
  if (popped->size() > n) {
    const auto neighbour = highest ? popped->begin() : popped->end() - 1;
    neighbour_bits = OrderedDoubleBits(neighbour->score);
    popped->erase(neighbour);
  }
  zset.NoteEndRunToErase(/*at_head=*/!highest, neighbour_bits);
  StatusOr<uint64_t> erased = EraseMembers(zset, *popped);
  if (!erased.ok()) return erased.status();
  if (highest) std::reverse(popped->begin(), popped->end());
  return popped;
}

StatusOr<RandomSample<ScoredMember>> ZSetType::RandomMembers(std::string_view key, int64_t count,
                                                             std::mt19937_64& rng) {
  StatusOr<std::optional<Record>> loaded = LoadTyped(engine_, key, KeyType::kZSet, now_ms_);
  if (!loaded.ok()) return loaded.status();
  RandomSample<ScoredMember> sample;
  if (!loaded->has_value()) return sample;
  const uint64_t size = (*loaded)->meta.size;
  ZSetReader zset(engine_, key, **loaded);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  // Picks drawn ahead (storage/draws_ahead.h), of a set whose elements are sub-entries: every
  // write of those forgets them, where an inline set's writes rewrite only its record.
  if (zset.indexed() && TakesPicks(count, size)) {
    ElementReader<ScoredMember> reader{
        [&]() -> StatusOr<std::unique_ptr<SubEntryIterator>> { return zset.Index(); },
        [&](const SubEntryIterator& at) {
          return DecodeIndexEntry(at.key(), zset.prefix().size());
        }};
    StatusOr<std::vector<ScoredMember>> picks = TakePicks(
        engine_.draws().zset_picks, key, (*loaded)->meta.version, size, count, reader, rng);
    if (!picks.ok()) return picks.status();
    return SampleOfPicks(std::move(*picks));
  }
  SamplePlan plan = PlanSample(size, count, rng);
  std::unique_ptr<SubEntryIterator> it = zset.Index();
  sample.elements.resize(plan.positions.size());
  SLUICE_RETURN_IF_ERROR(
      VisitPositions(*it, size, plan.positions, [&](size_t i, const SubEntryIterator& at) {
        StatusOr<ScoredMember> entry = DecodeIndexEntry(at.key(), zset.prefix().size());
        if (!entry.ok()) return entry.status();
        sample.elements[i] = std::move(*entry);
        return Status::Ok();
      }));
  sample.picks = std::move(plan.picks);
  if (count > 0 && static_cast<uint64_t>(count) >= size) {
    std::reverse(sample.picks.begin(), sample.picks.end());
  }
  return sample;
}

Status ZSetType::Replace(std::string_view key, std::span<const ScoredMember> members) {
  if (members.empty()) return DeleteIfPresent(engine_, key, now_ms_);
  Record record = ZSetKey::NewRecord(engine_);
  ZSetKey zset(engine_, key, record, limits_);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  for (const ScoredMember& m : members) zset.Insert(m.member, m.score);
  record.meta.size = members.size();
  return zset.Store();
}

// ---- BYLEX ----------------------------------------------------------------------------------

bool LexRange::Empty() const {
  // sdscmplex(min, max): "-" and "+" are shared strings, equal only to themselves.
  int cmp = 0;
  if (min.kind != LexBound::Kind::kValue && min.kind == max.kind) {
    cmp = 0;
  } else if (min.kind == LexBound::Kind::kMinusInf || max.kind == LexBound::Kind::kPlusInf) {
    cmp = -1;
  } else if (min.kind == LexBound::Kind::kPlusInf || max.kind == LexBound::Kind::kMinusInf) {
    cmp = 1;
  } else {
    cmp = min.value.compare(max.value);
  }
  return cmp > 0 || (cmp == 0 && (min.exclusive || max.exclusive));
}

bool LexRange::AboveMin(std::string_view member) const {
  const int c = CompareLex(member, min);
  return min.exclusive ? c > 0 : c >= 0;
}

bool LexRange::BelowMax(std::string_view member) const {
  const int c = CompareLex(member, max);
  return max.exclusive ? c < 0 : c <= 0;
}

StatusOr<std::vector<ScoredMember>> ZSetType::RangeByLex(std::string_view key,
                                                         const LexRange& range, bool reverse,
                                                         int64_t offset, int64_t limit) {
  return CollectRange(engine_, now_ms_, key, offset, limit, [&](ZSetReader& zset, auto visit) {
    return WalkLex(zset, range, reverse, offset, visit);
  });
}

StatusOr<uint64_t> ZSetType::LexCount(std::string_view key, const LexRange& range) {
  const bool whole =
      range.min.kind == LexBound::Kind::kMinusInf && range.max.kind == LexBound::Kind::kPlusInf;
  return CountRange(
      engine_, now_ms_, limits_, key, Walked::kCounted,
      [&](ZSetKey& zset, auto visit) {
        return WalkLex(zset, range, /*reverse=*/false, /*offset=*/0, visit);
      },
      whole);
}

StatusOr<uint64_t> ZSetType::RemoveRangeByLex(std::string_view key, const LexRange& range) {
  return CountRange(engine_, now_ms_, limits_, key, Walked::kErased,
                    [&](ZSetKey& zset, auto visit) {
                      return WalkLex(zset, range, /*reverse=*/false, /*offset=*/0, visit);
                    });
}

StatusOr<ZSetScanPage> ZSetType::ScanOf(std::string_view key, const Record& record,
                                        std::string_view after, size_t count) {
  ZSetScanPage page;
  ZSetReader zset(engine_, key, record);
  SLUICE_RETURN_IF_ERROR(zset.Load());
  if (zset.prefix().empty()) {
    page.whole_inline_set = true;
    std::unique_ptr<SubEntryIterator> it = zset.Index();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      StatusOr<ScoredMember> entry = DecodeIndexEntry(it->key(), 0);
      if (!entry.ok()) return entry.status();
      page.members.push_back(std::move(*entry));
    }
    SLUICE_RETURN_IF_ERROR(it->status());
    return page;
  }
  // The members' own sub-entries (member -> score), in member order.
  const std::string& prefix = zset.prefix();
  std::unique_ptr<SubEntryIterator> it = engine_.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  it->Seek(prefix + std::string(after));
  if (it->Valid() && !after.empty() && it->key().substr(prefix.size()) == after) it->Next();
  for (; it->Valid() && page.members.size() < count; it->Next()) {
    StatusOr<double> score = DecodeScoreValue(it->value());
    if (!score.ok()) return score.status();
    page.members.push_back({std::string(it->key().substr(prefix.size())), *score});
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  if (it->Valid()) page.resume_after = page.members.back().member;
  return page;
}

}  // namespace sluice::storage
