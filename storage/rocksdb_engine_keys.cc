// RocksDbEngine: walks over the key space (SCAN, KEYS, DBSIZE, the active expiry cycle).

#include <algorithm>
#include <string>
#include <vector>

#include "common/glob_match.h"
#include "storage/key_encoding.h"
#include "storage/rocksdb_engine.h"

namespace sluice::storage {

namespace {

// Redis skips matching for "*" (KEYS, SCAN): it matches every key, the empty one too, which
// stringmatchlen() alone would not.
bool MatchesEverything(std::string_view pattern) { return pattern == "*"; }

// Whether a metadata entry is a live key passing the filter. An undecodable record counts as
// a live key of no known type, so it stays visible (and deletable) rather than hidden.
bool Passes(std::string_view key, std::string_view value, const ScanFilter& filter, bool match_all,
            int64_t now_ms) {
  StatusOr<Metadata> meta = DecodeMetadata(value);
  if (meta.ok()) {
    if (IsExpiredAt(*meta, now_ms)) return false;
    if (filter.type && meta->type != *filter.type) return false;
  } else if (filter.type) {
    return false;
  }
  return match_all || GlobMatch(filter.match, key);
}

}  // namespace

StatusOr<ScanPage> RocksDbEngine::Scan(std::string_view after_key, size_t count,
                                       const ScanFilter& filter, int64_t now_ms) {
  const bool match_all = filter.match.empty() || MatchesEverything(filter.match);
  const std::string prefix(match_all ? std::string_view() : GlobLiteralPrefix(filter.match));
  ScanPage page;
  {
    std::unique_ptr<BoundedIterator> it = NewMetadataIterator(prefix, PrefixSuccessor(prefix));
    if (after_key.empty()) {
      it->SeekToFirst();
    } else {
      it->Seek(after_key);
      if (it->Valid() && it->key() == after_key) it->Next();
    }
    const size_t budget = std::max<size_t>(count, 1);
    size_t examined = 0;
    while (it->Valid() && examined < budget) {
      const std::string_view key = it->key();
      if (!key.empty()) ++examined;  // see engine.h: no page may end on the empty key
      page.last_key.assign(key);
      if (Passes(key, it->value(), filter, match_all, now_ms)) page.keys.emplace_back(key);
      it->Next();
    }
    SLUICE_RETURN_IF_ERROR(it->status());
    page.done = !it->Valid();
  }
  return page;
}

StatusOr<std::vector<std::string>> RocksDbEngine::Keys(std::string_view pattern, int64_t now_ms) {
  const bool match_all = MatchesEverything(pattern);
  const std::string prefix(match_all ? std::string_view() : GlobLiteralPrefix(pattern));
  ScanFilter filter;
  filter.match = pattern;
  std::vector<std::string> keys;
  std::unique_ptr<BoundedIterator> it = NewMetadataIterator(prefix, PrefixSuccessor(prefix));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (Passes(it->key(), it->value(), filter, match_all, now_ms)) keys.emplace_back(it->key());
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  return keys;
}

StatusOr<Engine::KeyCounts> RocksDbEngine::CountKeys(int64_t now_ms) {
  KeyCounts counts;
  std::unique_ptr<BoundedIterator> it = NewMetadataIterator("", "");
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    StatusOr<Metadata> meta = DecodeMetadata(it->value());
    if (!meta.ok()) {
      ++counts.keys;
      continue;
    }
    if (IsExpiredAt(*meta, now_ms)) continue;
    ++counts.keys;
    if (meta->expire_at_ms != 0) ++counts.expires;
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  return counts;
}

size_t RocksDbEngine::ActiveExpireStep(int64_t now_ms, size_t max_examined) {
  if (max_examined == 0) return 0;
  std::vector<std::string> expired;
  {
    std::unique_ptr<BoundedIterator> it = NewMetadataIterator("", "");
    // The step starts after the key the previous step examined last.
    const std::optional<std::string> start = expire_cursor_;
    if (start) {
      it->Seek(*start);
      if (it->Valid() && it->key() == *start) it->Next();
    } else {
      it->SeekToFirst();
    }
    bool wrapped = false;
    size_t examined = 0;
    while (examined < max_examined) {
      if (!it->Valid()) {
        if (!it->status().ok()) break;  // try again next step, from the same cursor
        expire_cursor_.reset();         // end of the key space: the sweep starts over
        if (!start || wrapped) break;   // every key was examined in this step
        wrapped = true;
        it->SeekToFirst();
        continue;
      }
      const std::string_view key = it->key();
      if (wrapped && key > *start) break;  // examined earlier in this step
      ++examined;
      expire_cursor_.emplace(key);
      StatusOr<Metadata> meta = DecodeMetadata(it->value());
      if (meta.ok() && IsExpiredAt(*meta, now_ms)) expired.emplace_back(key);
      it->Next();
    }
  }
  // Staged after the iterator is gone: never write to the batch under an open iterator.
  for (const std::string& key : expired) Delete(key);
  return expired.size();
}

}  // namespace sluice::storage
