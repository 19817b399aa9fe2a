#include "storage/tombstone_counts.h"

#include <utility>

namespace sluice::storage {

namespace {

// Entries compared per eviction (Redis samples 5 keys for its LRU), and buckets looked in to
// find them (most buckets hold none or one).
constexpr size_t kSampledEntries = 5;
constexpr size_t kSampledBuckets = 32;

}  // namespace

uint64_t TombstoneCounts::Add(std::string prefix, uint64_t deleted) {
  auto [it, inserted] = counts_.try_emplace(std::move(prefix), 0);
  if (inserted && counts_.size() > kCapacity) EvictOne(it);
  return it->second += deleted;
}

void TombstoneCounts::EvictOne(Counts::const_iterator keep) {
  const std::string* victim = nullptr;
  uint64_t smallest = UINT64_MAX;
  size_t seen = 0;
  std::uniform_int_distribution<size_t> bucket(0, counts_.bucket_count() - 1);
  for (size_t tries = 0; tries < kSampledBuckets && seen < kSampledEntries; ++tries) {
    const size_t b = bucket(rng_);
    for (auto entry = counts_.cbegin(b); entry != counts_.cend(b); ++entry) {
      if (&entry->first == &keep->first) continue;
      ++seen;
      if (entry->second < smallest) {
        smallest = entry->second;
        victim = &entry->first;
      }
    }
  }
  // Erasing leaves every other iterator valid (`keep` included): no rehash.
  if (victim != nullptr) counts_.erase(counts_.find(*victim));
}

}  // namespace sluice::storage
