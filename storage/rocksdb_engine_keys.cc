// RocksDbEngine: walks over the key space (SCAN, KEYS, DBSIZE, the active expiry cycle).

#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/glob_match.h"
#include "storage/key_encoding.h"
#include "storage/rocksdb_engine.h"
#include "storage/slice_view.h"

namespace sluice::storage {

namespace {

// Adds one key-space record to a count of live keys (DBSIZE): an expired one is not live, an
// undecodable one counts as a key without an expiry.
void TallyRecord(std::string_view value, int64_t now_ms, const std::optional<ExpiryHold>& hold,
                 Engine::KeyCounts* counts) {
  StatusOr<RecordView> record = DecodeRecordView(value);
  if (record.ok() && IsExpiredAt(*record, now_ms, hold)) return;
  ++counts->keys;
  if (record.ok() && record->meta.expire_at_ms != 0) {
    counts->AddExpiring(record->meta.expire_at_ms, now_ms);
  }
}

// Redis skips matching for "*" (KEYS, SCAN): it matches every key, the empty one too, which
// stringmatchlen() alone would not.
bool MatchesEverything(std::string_view pattern) { return pattern == "*"; }

// The bound on internal entries passed for reading up to `max_records` records (0: none).
uint64_t SkipBound(uint64_t max_records) {
  if (max_records > std::numeric_limits<uint64_t>::max() / kSkippedPerExaminedKey) return 0;
  return std::max<uint64_t>(max_records, 1) * kSkippedPerExaminedKey;
}

// An exact count passes at least this many records' worth (10,000 entries, about 1 ms): asked
// whether a database holds any record at all (max_records 0: /metrics' census, its budget
// spent), a few tombstones must not make the answer "too many to count".
constexpr uint64_t kMinCountSkipRecords = 1000;

// A walk that passed this many internal entries on its way to few keys has met a mass
// deletion's tombstones (CompactSealedDeletions).
constexpr uint64_t kLongRunOfTombstones = 1000;

// The smallest key after `key`.
std::string KeyAfter(std::string_view key) {
  std::string next(key);
  next.push_back('\0');
  return next;
}

// A walk's bound on the internal entries (tombstones, overwritten versions) it passes, 0 for
// none: each Seek or Next of its iterator is bounded by ReadOptions::max_skippable_internal_keys
// = limit(), and Spent() says when their sum reached the bound too. RocksDB's perf counters on
// this thread count them, turned on only while a bound is set.
class SkipBudget {
 public:
  explicit SkipBudget(uint64_t limit) : limit_(limit), saved_level_(rocksdb::GetPerfLevel()) {
    if (limit_ == 0) return;
    if (saved_level_ < rocksdb::PerfLevel::kEnableCount) {
      rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    }
    base_ = Total();
  }
  ~SkipBudget() {
    if (limit_ != 0) rocksdb::SetPerfLevel(saved_level_);
  }
  SkipBudget(const SkipBudget&) = delete;
  SkipBudget& operator=(const SkipBudget&) = delete;

  uint64_t limit() const { return limit_; }
  // With `also_passed` entries passed that RocksDB does not count (swept records).
  bool Spent(uint64_t also_passed = 0) const {
    return limit_ != 0 && Total() - base_ + also_passed >= limit_;
  }

 private:
  static uint64_t Total() {
    const rocksdb::PerfContext* pc = rocksdb::get_perf_context();
    return pc->internal_key_skipped_count + pc->internal_delete_skipped_count +
           pc->internal_recent_skipped_count;
  }

  const uint64_t limit_;
  const rocksdb::PerfLevel saved_level_;
  uint64_t base_ = 0;
};

// Whether a metadata entry is a live key passing the filter. An undecodable record counts as
// a live key of no known type, so it stays visible (and deletable) rather than hidden. With a
// TYPE filter, a key that passes MATCH has its type looked up, as Redis does: `*type_lookup`
// then says whether that lookup found a live key (a keyspace hit) or an expired one.
bool Passes(std::string_view key, std::string_view value, const ScanFilter& filter, bool match_all,
            int64_t now_ms, const std::optional<ExpiryHold>& hold,
            std::optional<bool>* type_lookup = nullptr) {
  if (!match_all && !GlobMatch(filter.match, key)) return false;
  StatusOr<RecordView> record = DecodeRecordView(value);
  if (record.ok() && IsSwept(record->meta)) return false;  // removed: Redis would not look it up
  const bool live = !record.ok() || !IsExpiredAt(*record, now_ms, hold);
  if (!filter.ByType()) return live;
  if (type_lookup != nullptr) *type_lookup = live;
  return live && record.ok() && record->meta.type == filter.type;
}

}  // namespace

StatusOr<ScanPage> RocksDbEngine::Scan(std::string_view after_key, size_t count,
                                       const ScanFilter& filter, int64_t now_ms) {
  const size_t budget = std::max<size_t>(count, 1);
  // A page passes about kSkippedPerExaminedKey internal entries (tombstones, the values they
  // hide) per key it may examine, and ends where it stopped: a page may be empty, as Redis's
  // SCAN pages may. Not with staged writes: the merged iterator stops with the database's
  // side, and a staged key before that stop would be passed over.
  if (stage_.empty()) {
    // A page that would come back empty tries again with kEmptyPageSkipBound (engine.h).
    const uint64_t bound = SkipBound(budget);
    StatusOr<std::optional<ScanPage>> page = ScanWithin(after_key, budget, filter, now_ms, bound);
    SLUICE_RETURN_IF_ERROR(page.status());
    const bool empty_page = page->has_value() && (*page)->keys.empty() && !(*page)->done;
    if (empty_page && bound != 0 && bound < kEmptyPageSkipBound) {
      page = ScanWithin(after_key, budget, filter, now_ms, kEmptyPageSkipBound);
      SLUICE_RETURN_IF_ERROR(page.status());
    }
    if (page->has_value()) return std::move(**page);
    // It stopped before it got past `after_key`: this page goes without the bound.
  }
  StatusOr<std::optional<ScanPage>> page = ScanWithin(after_key, budget, filter, now_ms, 0);
  SLUICE_RETURN_IF_ERROR(page.status());
  return std::move(**page);
}

StatusOr<std::optional<ScanPage>> RocksDbEngine::ScanWithin(std::string_view after_key,
                                                            size_t budget,
                                                            const ScanFilter& filter,
                                                            int64_t now_ms, uint64_t max_skipped) {
  const bool match_all = MatchesEverything(filter.match);
  const std::string prefix(match_all ? std::string_view() : GlobLiteralPrefix(filter.match));
  ScanPage page;
  const SkipBudget skips(max_skipped);
  std::unique_ptr<BoundedIterator> it =
      NewMetadataIterator(prefix, PrefixSuccessor(prefix), skips.limit());
  if (after_key.empty()) {
    it->SeekToFirst();
  } else {
    it->Seek(after_key);
    if (it->Valid() && it->key() == after_key) it->Next();
  }
  size_t examined = 0;
  while (it->Valid() && examined < budget) {
    const std::string_view key = it->key();
    if (!key.empty()) ++examined;  // see engine.h: no page may end on the empty key
    page.last_key.assign(key);
    std::optional<bool> type_lookup;
    if (Passes(key, it->value(), filter, match_all, now_ms, hold_, &type_lookup)) {
      page.keys.emplace_back(key);
    }
    if (type_lookup) CountLookup(*type_lookup, key);
    if (!key.empty() && skips.Spent()) break;
    it->Next();
  }
  if (it->incomplete()) {
    // The next page goes on after the key where RocksDB stopped (a deleted key, or the last
    // one examined), which must lie past `after_key` and not be the empty key, which would
    // read as "from the start". Nothing was examined otherwise.
    std::optional<std::string> stopped = it->StoppedAt();
    if (!stopped || stopped->empty() || *stopped <= after_key) return std::optional<ScanPage>();
    page.last_key = std::move(*stopped);
    return std::optional<ScanPage>(std::move(page));
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  page.done = !it->Valid();
  return std::optional<ScanPage>(std::move(page));
}

StatusOr<std::vector<std::string>> RocksDbEngine::Keys(std::string_view pattern, int64_t now_ms) {
  const bool match_all = MatchesEverything(pattern);
  const std::string prefix(match_all ? std::string_view() : GlobLiteralPrefix(pattern));
  ScanFilter filter;
  filter.match = pattern;
  std::vector<std::string> keys;
  std::unique_ptr<BoundedIterator> it = NewMetadataIterator(prefix, PrefixSuccessor(prefix));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (Passes(it->key(), it->value(), filter, match_all, now_ms, hold_)) {
      keys.emplace_back(it->key());
    }
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  return keys;
}

StatusOr<Engine::KeyCounts> RocksDbEngine::EstimateKeys() {
  constexpr uint64_t kMaxPoints = 64;
  constexpr uint64_t kRecordsPerPoint = 16;
  // RocksDB's figures are of the committed keys, which a staged wipe hides: count what is staged.
  if (WipeStaged(space_->family)) return CountKeys(clock_->NowMillis());
  KeyCounts estimate;
  estimate.keys = GetKeyspaceIntProperty("rocksdb.estimate-num-keys");
  if (estimate.keys == 0) return estimate;
  // The share with an expiry is read from a sample at points spread over the keys, in two
  // parts weighted by the records each holds: keys drawn at random from the memtable, and the
  // keys where the key space's files begin.
  const uint64_t in_memtable_entries =
      GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table");
  std::vector<std::string> file_starts;
  for (const rocksdb::SstFileMetaData& file : KeySpaceFiles()) {
    file_starts.push_back(file.smallestkey);
  }
  std::sort(file_starts.begin(), file_starts.end());
  std::vector<std::string> file_points;
  for (size_t i = 0, n = std::min<size_t>(file_starts.size(), kMaxPoints); i < n; ++i) {
    file_points.push_back(file_starts[i * file_starts.size() / n]);
  }
  // The sampled keys with an expiry, their remaining ms summed (avg_ttl), over both parts.
  const int64_t now_ms = clock_->NowMillis();
  KeyCounts sampled;
  // Of the records a part read: the share that are keys (swept records are keys the active
  // cycle or a read removed, which Redis would no longer count), and of those the share with
  // an expiry. Nothing for a part with no record to read.
  struct Shares {
    double keys;
    double with_expiry;
  };
  auto sample = [&](const std::vector<std::string>& points) -> StatusOr<std::optional<Shares>> {
    KeyCounts part;
    uint64_t swept = 0;
    for (const std::string& start : points) {
      SLUICE_RETURN_IF_ERROR(CountRecords(start, kRecordsPerPoint, now_ms, &part, &swept));
    }
    sampled.expires += part.expires;
    sampled.ttl_sum_ms += part.ttl_sum_ms;
    if (part.keys + swept == 0) return std::optional<Shares>();
    const auto keys = static_cast<double>(part.keys);
    return std::optional<Shares>(
        Shares{keys / static_cast<double>(part.keys + swept),
               part.keys == 0 ? 0 : static_cast<double>(part.expires) / keys});
  };
  StatusOr<std::optional<Shares>> in_memtable =
      sample(space_->memtable->SampleWritableUserKeys(in_memtable_entries, kMaxPoints));
  SLUICE_RETURN_IF_ERROR(in_memtable.status());
  StatusOr<std::optional<Shares>> in_files = sample(file_points);
  SLUICE_RETURN_IF_ERROR(in_files.status());
  const double memtable_weight =
      std::min(1.0, static_cast<double>(in_memtable_entries) / static_cast<double>(estimate.keys));
  // Both parts weighted by the records each holds; one part alone; or none (no key).
  auto mixed = [&](double Shares::*share) {
    if (!*in_memtable) return *in_files ? (**in_files).*share : 0.0;
    if (!*in_files) return (**in_memtable).*share;
    return memtable_weight * (**in_memtable).*share + (1 - memtable_weight) * (**in_files).*share;
  };
  estimate.keys = static_cast<uint64_t>(mixed(&Shares::keys) * static_cast<double>(estimate.keys));
  estimate.expires =
      static_cast<uint64_t>(mixed(&Shares::with_expiry) * static_cast<double>(estimate.keys));
  estimate.ttl_sum_ms = sampled.AverageTtlMs() * estimate.expires;
  return estimate;
}

bool RocksDbEngine::KeyEstimateIsSound() {
  if (WipeStaged(space_->family)) return false;
  if (space_->last_wipe_sequence > background_events_->FlushedThrough(metadata_cf()->GetID())) {
    return false;
  }
  // Every table's properties are held in memory (RocksDB keeps every file open): no disk read.
  rocksdb::TablePropertiesCollection tables;
  if (!db_->GetPropertiesOfAllTables(metadata_cf(), &tables).ok()) return false;
  return std::none_of(tables.begin(), tables.end(),
                      [](const auto& table) { return table.second->num_range_deletions > 0; });
}

Status RocksDbEngine::CountRecords(std::string_view start, uint64_t max_records, int64_t now_ms,
                                   KeyCounts* counts, uint64_t* swept) {
  // A point among a mass expiry's tombstones reads what it reaches within the bound.
  const SkipBudget skips(SkipBound(max_records));
  std::unique_ptr<BoundedIterator> it = NewMetadataIterator("", "", skips.limit());
  uint64_t read = 0;
  for (it->Seek(start); it->Valid() && read < max_records; it->Next()) {
    ++read;
    StatusOr<RecordView> record = DecodeRecordView(it->value());
    if (record.ok() && IsSwept(record->meta)) {
      ++*swept;
    } else {
      ++counts->keys;
      if (record.ok() && record->meta.expire_at_ms != 0) {
        counts->AddExpiring(record->meta.expire_at_ms, now_ms);
      }
    }
    if (skips.Spent()) break;
  }
  return it->incomplete() ? Status::Ok() : it->status();
}

StatusOr<Engine::KeyCounts> RocksDbEngine::CountKeys(int64_t now_ms) {
  StatusOr<std::optional<KeyCounts>> counts =
      CountKeysUpTo(std::numeric_limits<uint64_t>::max(), now_ms);
  SLUICE_RETURN_IF_ERROR(counts.status());
  return **counts;
}

StatusOr<std::optional<Engine::KeyCounts>> RocksDbEngine::CountKeysUpTo(uint64_t max_records,
                                                                         int64_t now_ms) {
  // Past the bound on tombstones passed, the count gives up as it does past `max_records`.
  const SkipBudget skips(SkipBound(std::max(max_records, kMinCountSkipRecords)));
  KeyCounts counts;
  uint64_t records = 0;
  uint64_t swept_passed = 0;  // removed keys, passed as tombstones are
  std::unique_ptr<BoundedIterator> it = NewMetadataIterator("", "", skips.limit());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const bool swept = IsSweptRecord(it->value());
    swept_passed += swept ? 1 : 0;
    if ((!swept && ++records > max_records) || skips.Spent(swept_passed)) {
      return std::optional<KeyCounts>();
    }
    if (!swept) TallyRecord(it->value(), now_ms, hold_, &counts);
  }
  if (it->incomplete()) return std::optional<KeyCounts>();
  SLUICE_RETURN_IF_ERROR(it->status());
  return std::optional<KeyCounts>(counts);
}

bool RocksDbEngine::StartKeyCount(int64_t now_ms, KeyCountDone done) {
  auto counts = std::make_shared<KeyCounts>();
  // The selected database's, read here: the loop may select another while the count runs.
  rocksdb::ColumnFamilyHandle* family = metadata_cf();
  // The count reads the memtable on its own thread: until it is done (the work, and so its
  // iterator, destroyed), the loop's writes add entries rather than rewrite them in place.
  std::shared_ptr<void> suspension =
      IndexedSkipListFactory::SuspendInPlaceUpdates(space_->memtable);
  auto count = [this, counts, now_ms, hold = hold_, family, suspension]() -> Status {
    // Made and destroyed on the counter's thread: the iterator's implicit snapshot is the
    // database as of the count's start, and none outlives the work (Reopen waits for it).
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), family));
    constexpr uint64_t kRecordsBetweenStopChecks = 4096;
    uint64_t records = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (++records % kRecordsBetweenStopChecks == 0 && stop_counting_) {
        return Err("the key count was stopped: the server is shutting down");
      }
      TallyRecord(View(it->value()), now_ms, hold, counts.get());
    }
    if (!it->status().ok()) return IoError("key count: " + it->status().ToString());
    return Status::Ok();
  };
  return key_counter_->Start(std::move(count), [counts, done = std::move(done)](Status status) {
    if (status.ok()) {
      done(*counts);
    } else {
      done(std::move(status));
    }
  });
}

size_t RocksDbEngine::ActiveExpireStep(int64_t now_ms, size_t max_examined, size_t max_expired) {
  expire_stopped_in_tombstones_ = false;
  if (max_examined == 0 || max_expired == 0) return 0;
  // The databases in turn, from the one whose sweep the last step left unfinished; a step that
  // finishes one's sweep goes on with the next while its budget lasts, coming back to where it
  // began at most (the part of its first database's sweep before the point it began from).
  const std::vector<int> dbs = Databases();
  const size_t first = expire_space_ % dbs.size();
  const std::optional<std::string> began_at =
      spaces_[static_cast<size_t>(dbs[first])]->expire_resume;
  size_t expired = 0;
  for (size_t turn = 0; turn <= dbs.size(); ++turn) {
    const size_t index = (first + turn) % dbs.size();
    KeySpace& space = *spaces_[static_cast<size_t>(dbs[index])];
    const bool last_turn = turn == dbs.size();
    if (last_turn && !began_at) break;  // every database was swept
    bool sweep_done = false;
    expired += ActiveExpireStepIn(space, now_ms, last_turn ? began_at : std::nullopt,
                                  &max_examined, max_expired - expired, &sweep_done);
    expire_space_ = sweep_done ? (index + 1) % dbs.size() : index;
    if (!sweep_done || max_examined == 0 || expired == max_expired) break;
  }
  return expired;
}

size_t RocksDbEngine::ActiveExpireStepIn(KeySpace& space, int64_t now_ms,
                                         const std::optional<std::string>& stop_at,
                                         size_t* max_examined, size_t max_expired,
                                         bool* sweep_done) {
  if (WipeStaged(space.family)) {  // no committed key is left to expire
    *sweep_done = true;
    return 0;
  }
  // An expired key, and its record if small enough to be swept in place (StageExpired).
  struct Candidate {
    std::string key;
    std::string record;
  };
  std::vector<Candidate> candidates;
  const uint64_t skip_limit = SkipBound(*max_examined);
  bool stopped_in_tombstones = false;
  {
    const SkipBudget skips(skip_limit);
    rocksdb::ReadOptions options;
    options.max_skippable_internal_keys = skips.limit();
    // The committed records alone, not the staged writes: those are checked below.
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options, handles_[space.family]));
    const std::optional<std::string> start = space.expire_resume;
    if (start) {
      it->Seek(ToSlice(*start));
    } else {
      it->SeekToFirst();
    }
    size_t examined = 0;
    uint64_t swept_passed = 0;  // passed as tombstones are, within the same bound
    while (true) {
      if (!it->Valid()) {
        if (it->status().IsIncomplete()) {
          // Too many deleted keys in a row: the next step goes on after the last one passed.
          if (std::optional<std::string> stopped_at = StoppedAtKey(*it)) {
            space.expire_resume = KeyAfter(*stopped_at);
          }
          stopped_in_tombstones = true;
          break;
        }
        if (!it->status().ok()) break;  // try again next step, from the same key
        space.expire_resume.reset();    // end of the key space: the sweep starts over
        *sweep_done = true;
        break;
      }
      const std::string_view key = View(it->key());
      if (stop_at && key >= *stop_at) break;  // examined earlier in this step
      space.expire_resume = KeyAfter(key);
      const std::string_view value = View(it->value());
      if (IsSweptRecord(value)) {
        ++swept_passed;
      } else {
        ++examined;
        StatusOr<RecordView> record = DecodeRecordView(value);
        if (record.ok() && IsExpiredAt(*record, now_ms, hold_)) {
          // A record deleted, not swept, needs no copy of its bytes.
          candidates.push_back(
              {std::string(key), SweepsInPlace(value) ? std::string(value) : std::string()});
        }
      }
      stopped_in_tombstones = skips.Spent(swept_passed);
      if (examined == *max_examined || candidates.size() == max_expired || stopped_in_tombstones)
        break;
      it->Next();
    }
    *max_examined -= examined;
  }
  if (stopped_in_tombstones) {
    expire_stopped_in_tombstones_ = true;
    // A budget this large, spent, is a long run, or many short ones: the examined keys take a
    // tenth of it at most. A step left with a few keys' budget stops after a few deleted keys.
    if (skip_limit >= kLongRunOfTombstones) CompactSealedDeletions(space);
  }
  size_t expired = 0;
  for (const Candidate& candidate : candidates) {
    std::string_view record = candidate.record;
    // The walk saw the committed record; only a staged write can be newer.
    if (const WriteStage::Entry* staged = stage_.Find(space.family, candidate.key)) {
      if (staged->deleted) continue;
      StatusOr<RecordView> staged_record = DecodeRecordView(staged->value);
      if (!staged_record.ok() || !IsExpiredAt(*staged_record, now_ms, hold_) ||
          IsSwept(staged_record->meta)) {
        continue;
      }
      record = staged->value;
    }
    StageExpired(space.family, candidate.key, record);
    NoteExpired(space.db, candidate.key);
    ++expired;
  }
  return expired;
}

}  // namespace sluice::storage
