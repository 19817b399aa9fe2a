#include "storage/record_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "common/background_free.h"
#include "tests/unit/eventually.h"

namespace sluice::storage {
namespace {

constexpr size_t kEntry = RecordCache::kEntryOverheadBytes;

TEST(RecordCacheTest, MissHitAbsentAndErase) {
  RecordCache cache(1 << 20);
  EXPECT_FALSE(cache.Find("k").has_value());
  cache.Put("k", "v1");
  ASSERT_TRUE(cache.Find("k").has_value());
  EXPECT_FALSE(cache.Find("k")->absent);
  EXPECT_EQ(cache.Find("k")->value, "v1");
  cache.Put("k", "longer value");
  EXPECT_EQ(cache.Find("k")->value, "longer value");
  cache.PutAbsent("k");
  ASSERT_TRUE(cache.Find("k").has_value());
  EXPECT_TRUE(cache.Find("k")->absent);
  cache.Erase("k");
  EXPECT_FALSE(cache.Find("k").has_value());
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.hits(), 6u);
  EXPECT_EQ(cache.misses(), 2u);
}

TEST(RecordCacheTest, ZeroCapacityCachesNothing) {
  RecordCache cache(0);
  cache.Put("k", "v");
  cache.PutAbsent("a");
  EXPECT_FALSE(cache.Find("k").has_value());
  EXPECT_FALSE(cache.Find("a").has_value());
  EXPECT_EQ(cache.entries(), 0u);
}

TEST(RecordCacheTest, LargeValuesAreNotCachedAndEvictTheKey) {
  RecordCache cache(1 << 20);
  cache.Put("k", "small");
  cache.Put("k", std::string(RecordCache::kMaxValueBytes + 1, 'x'));
  EXPECT_FALSE(cache.Find("k").has_value());  // never the stale small value
  cache.Put("k", std::string(RecordCache::kMaxValueBytes, 'x'));
  EXPECT_TRUE(cache.Find("k").has_value());
}

TEST(RecordCacheTest, BytesStayWithinCapacity) {
  const size_t capacity = 10 * (kEntry + 8);
  RecordCache cache(capacity);
  for (int i = 0; i < 1000; ++i) {
    cache.Put("key" + std::to_string(i % 100), std::to_string(i));
    EXPECT_LE(cache.bytes(), capacity);
  }
  EXPECT_GT(cache.entries(), 0u);
  EXPECT_LE(cache.entries(), 10u);
}

// Every entry of a cache that just filled is marked, so its first eviction needs a whole lap
// of the hand. A store walks kVisitsPerStore buckets of it: the stores until the lap is done
// each add their entry over the capacity, a bounded few, and the cache is back within it after.
TEST(RecordCacheTest, TheFirstEvictionsLapIsSpreadOverStores) {
  constexpr size_t kHeld = 150000;
  RecordCache cache(kHeld * (kEntry + 9 + 5));  // "key" and six digits, "value"
  size_t most = 0;
  for (size_t i = 0; i < kHeld + 1000; ++i) {
    cache.Put("key" + std::to_string(100000 + i), "value");
    most = std::max(most, cache.entries());
  }
  const size_t buckets = cache.bookkeeping_bytes() / 16;  // no move under way: one table
  ASSERT_EQ(buckets, 262144u);
  EXPECT_GT(most, kHeld) << "a store walked the whole table";
  EXPECT_LE(most, kHeld + buckets / RecordCache::kVisitsPerStore + 1);
  EXPECT_LE(cache.bytes(), cache.capacity());
}

// A store's walk stops short of a lap, and between two stores every entry can be read (marked)
// again. Once the hand has walked a lap without evicting, a mark no longer keeps an entry: a
// hot cache still makes room, within a lap's worth of stores.
TEST(RecordCacheTest, ACacheReadWholeBetweenStoresStillMakesRoom) {
  constexpr size_t kHeld = 20000;
  RecordCache cache(kHeld * (kEntry + 9 + 5));
  size_t stored = 0;
  auto key = [](size_t i) { return "key" + std::to_string(100000 + i); };
  for (; stored < kHeld + 100; ++stored) cache.Put(key(stored), "value");
  const size_t buckets = cache.bookkeeping_bytes() / 16;
  ASSERT_EQ(buckets, 32768u);
  for (int round = 0; round < 100; ++round) {
    for (size_t i = 0; i < stored; ++i) cache.Find(key(i));
    cache.Put(key(stored++), "value");
    ASSERT_LE(cache.entries(), kHeld + buckets / RecordCache::kVisitsPerStore + 1) << round;
  }
}

// The same with a trickle of small unread entries: evicting one of them does not bring the
// cache back within its limit when a large entry came in, so it does not give the large read
// ones their second chances back.
TEST(RecordCacheTest, SmallEvictionsDoNotKeepALargeHotCacheGrowing) {
  constexpr size_t kHeld = 20000;
  const std::string large(200, 'v');
  const size_t each = kEntry + 9 + large.size();
  RecordCache cache(kHeld * each);
  size_t stored = 0;
  auto key = [](size_t i) { return "key" + std::to_string(100000 + i); };
  for (; stored < kHeld + 100; ++stored) cache.Put(key(stored), large);
  const size_t buckets = cache.bookkeeping_bytes() / 16;
  ASSERT_EQ(buckets, 32768u);
  for (int round = 0; round < 200; ++round) {
    for (size_t i = 0; i < stored; ++i) cache.Find(key(i));
    cache.PutAbsent("absent" + std::to_string(round));
    cache.Put(key(stored++), large);
    ASSERT_LE(cache.bytes(), cache.capacity() + (buckets / RecordCache::kVisitsPerStore + 2) * each)
        << round;
  }
}

TEST(RecordCacheTest, MarkedEntriesOutliveUnmarkedOnes) {
  // Room for three entries of this size.
  const size_t each = kEntry + 2 + 1;
  RecordCache cache(3 * each);
  cache.Put("k1", "a");
  cache.Put("k2", "b");
  cache.Put("k3", "c");
  // Every entry is marked when stored: making room for k4 clears the three marks, then evicts
  // one of them. k4 keeps its mark.
  cache.Put("k4", "d");
  // Making room for k5 evicts one of the two unmarked entries, never k4.
  cache.Put("k5", "e");
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_TRUE(cache.Find("k4").has_value());  // marks it again, if the hand had cleared it
  // Making room for k6 evicts the last unmarked one.
  cache.Put("k6", "f");
  EXPECT_TRUE(cache.Find("k4").has_value());
  EXPECT_TRUE(cache.Find("k5").has_value());
  EXPECT_TRUE(cache.Find("k6").has_value());
  EXPECT_EQ(cache.entries(), 3u);
}

// The hand walks the table, where a new key lands anywhere: what a store makes room for is
// never the entry it just stored.
TEST(RecordCacheTest, AStoreNeverEvictsItsOwnEntry) {
  RecordCache cache(4 * (kEntry + 8));  // four entries of "key:NNNN" and no value
  for (int i = 1000; i < 3000; ++i) {
    const std::string key = "key:" + std::to_string(i);
    cache.PutAbsent(key);
    ASSERT_TRUE(cache.Find(key).has_value()) << key;
    ASSERT_LE(cache.entries(), 4u);
  }
  EXPECT_GE(cache.entries(), 3u);
}

// Keys in use now outlive keys used long ago: a stream of new keys (users arriving) finds
// each one again 50 stores later, with room for a few hundred. (Until session 57 eviction
// took the newest entries first, so once full the cache kept its first keys for good and a
// key found again this way was rare: 223 of 99,950.)
TEST(RecordCacheTest, RecentKeysOutliveOldOnes) {
  RecordCache cache(300 * (kEntry + 9 + 32));
  const std::string value(32, 'v');
  int found = 0;
  const int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i) {
    cache.Put("key:" + std::to_string(i), value);
    if (i >= 50) found += cache.Find("key:" + std::to_string(i - 50)).has_value();
  }
  EXPECT_GE(cache.entries(), 250u);
  EXPECT_GE(found, (kKeys - 50) * 99 / 100);
}

// A hit marks its key as a store does: a key read between stores stays, while a stream of
// keys stored once each goes through a cache with room for about a hundred.
TEST(RecordCacheTest, AKeyReadBetweenStoresStays) {
  RecordCache cache(100 * (kEntry + 10 + 8));
  cache.Put("hot", "value");
  int found = 0;
  const int kStores = 5000;
  for (int i = 0; i < kStores; ++i) {
    cache.Put("once:" + std::to_string(i), "value");
    found += cache.Find("hot").has_value();
  }
  EXPECT_EQ(found, kStores);
}

// A stream of new keys through a full cache (bench/scale's load: each key read, missed, then
// written) keeps the table's probe runs short. Until session 58 the hand walked the buckets in
// order, so evictions gathered behind it and the stretch ahead of it, the longest unswept,
// filled into one run that every lookup landing in it walked: after half a sweep, runs of
// tens of thousands of buckets here, and 1,000 new keys a second in the real server.
TEST(RecordCacheTest, NewKeysKeepProbeRunsShort) {
  RecordCache cache(40000 * (kEntry + 16 + 32));
  const std::string value(32, 'v');
  size_t longest = 0;
  for (int i = 0; i < 400000; ++i) {
    const std::string key = "limiter:" + std::to_string(i);
    if (!cache.Find(key)) cache.PutAbsent(key);
    cache.Put(key, value);
    if (i % 10000 == 0) longest = std::max(longest, cache.longest_probe_run());
  }
  EXPECT_GE(cache.entries(), 35000u);
  // This table ends about 60% full. Spread evenly, as a freshly built table's keys are, its
  // runs stay under about a hundred buckets at this size (87 with the scattered hand).
  EXPECT_LT(longest, 200u);
}

TEST(RecordCacheTest, ClearEmptiesEverything) {
  RecordCache cache(1 << 20);
  for (int i = 0; i < 100; ++i) cache.Put(std::to_string(i), "v");
  cache.Clear();
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_FALSE(cache.Find("1").has_value());
  cache.Put("1", "again");
  EXPECT_EQ(cache.Find("1")->value, "again");
}

// Freeing millions of entries held the loop for a FLUSHALL: past a step's worth, Clear hands
// them to the background thread (one task), and the cache is empty and usable at once.
TEST(RecordCacheTest, ClearFreesALargeCachesEntriesInTheBackground) {
  // Earlier tests' caches, freed there, may still queue their tables from that thread.
  ASSERT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
  RecordCache cache(1 << 30);
  const uint64_t before = BackgroundFreesQueued();
  for (int i = 0; i < 100; ++i) cache.Put(std::to_string(i), "v");
  cache.Clear();
  EXPECT_EQ(BackgroundFreesQueued(), before) << "a small cache is freed in place";
  for (size_t i = 0; i < 2 * RecordCache::kEvictionsPerStep; ++i) {
    cache.Put(std::to_string(i), "v");
  }
  cache.Clear();
  EXPECT_EQ(BackgroundFreesQueued(), before + 1);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.bookkeeping_bytes(), 0u);
  EXPECT_FALSE(cache.Find("1").has_value());
  cache.Put("1", "again");
  EXPECT_EQ(cache.Find("1")->value, "again");
  // The thread frees them all (a leak or a double free would fail the sanitizers' build).
  EXPECT_TRUE(testing::Eventually([] { return BackgroundFreesPending() == 0; }));
}

TEST(RecordCacheTest, SetCapacityEvictsAtOnceAndZeroStopsStoring) {
  const size_t each = kEntry + 4 + 1;  // "k100" and a one-byte value
  RecordCache cache(1000 * each);
  for (int i = 100; i < 200; ++i) cache.Put("k" + std::to_string(i), "v");
  ASSERT_EQ(cache.entries(), 100u);

  cache.SetCapacity(10 * each);
  EXPECT_EQ(cache.capacity(), 10 * each);
  EXPECT_LE(cache.bytes(), 10 * each);
  EXPECT_EQ(cache.entries(), 10u);
  size_t found = 0;
  for (int i = 100; i < 200; ++i) {
    std::optional<RecordCache::Hit> hit = cache.Find("k" + std::to_string(i));
    if (hit) {
      EXPECT_EQ(hit->value, "v");
    }
    found += hit.has_value();
  }
  EXPECT_EQ(found, 10u) << "what is left is found, and nothing else";

  cache.SetCapacity(0);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.bookkeeping_bytes(), 0u) << "the table goes too";
  cache.Put("k100", "v");
  EXPECT_FALSE(cache.Find("k100").has_value());

  cache.SetCapacity(1000 * each);  // growing again stores again
  cache.Put("k100", "v");
  EXPECT_EQ(cache.Find("k100")->value, "v");
}

TEST(RecordCacheTest, ShrinkingGivesTheTableBack) {
  RecordCache cache(1 << 30);
  for (int i = 0; i < 100000; ++i) cache.Put("key" + std::to_string(i), "value");
  const size_t full = cache.bookkeeping_bytes();
  // 100,000 entries need 262,144 buckets of 16 bytes at the table's three-quarters load.
  ASSERT_GE(full, 100000 * 2 * 16) << "the full table, before the shrink";

  cache.SetCapacity(1000 * (kEntry + 16));  // about 1,000 entries of 13 to 16 bytes
  while (cache.TrimStep(RecordCache::kEvictionsPerStep)) {
  }
  EXPECT_LE(cache.bytes(), 1000 * (kEntry + 16));
  EXPECT_LE(cache.entries(), 1100u);
  EXPECT_LT(cache.bookkeeping_bytes(), full / 20);
  size_t found = 0;
  for (int i = 0; i < 100000; ++i) found += cache.Find("key" + std::to_string(i)).has_value();
  EXPECT_EQ(found, cache.entries()) << "every entry left is found through the smaller table";
}

// A large shrink (CONFIG SET record-cache-size) frees its entries a step at a time, so that
// clients are served in between; every step answers as a whole cache would.
TEST(RecordCacheTest, ALargeShrinkEvictsInBoundedSteps) {
  constexpr int kKeys = 100000;
  RecordCache cache(1 << 30);
  for (int i = 0; i < kKeys; ++i) cache.Put("key" + std::to_string(i), "value");

  cache.SetCapacity(0);
  EXPECT_EQ(cache.capacity(), 0u);
  EXPECT_GE(cache.entries(), kKeys - RecordCache::kEvictionsPerStep) << "a step at most at once";
  const size_t held = cache.bytes();
  // Meanwhile writes still reach what is held (an entry left as it was would be stale), and
  // new keys take old ones' places instead of growing the cache.
  cache.Put("key7", "changed");
  if (std::optional<RecordCache::Hit> hit = cache.Find("key7")) {
    EXPECT_EQ(hit->value, "changed");
  }
  for (int i = 0; i < 100; ++i) cache.Put("new key " + std::to_string(i), "value");
  EXPECT_LE(cache.bytes(), held);

  size_t steps = 0;
  size_t entries = cache.entries();
  while (cache.TrimStep(1000)) {
    ASSERT_LT(++steps, 10000u) << "the steps end";
    EXPECT_LE(entries - cache.entries(), 1000u);
    entries = cache.entries();
  }
  EXPECT_GE(steps, (kKeys - RecordCache::kEvictionsPerStep) / 1000 - 1);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.bookkeeping_bytes(), 0u) << "the table goes too";
  cache.Put("key7", "v");
  EXPECT_FALSE(cache.Find("key7").has_value()) << "a cache sized 0 stores nothing";
  EXPECT_FALSE(cache.TrimStep(1000));
}

// Keys in use between the steps (marked again by every read) cannot hold a shrink off.
TEST(RecordCacheTest, KeysInUseDoNotHoldAShrinkOff) {
  RecordCache cache(1 << 30);
  for (int i = 0; i < 100000; ++i) cache.Put("key" + std::to_string(i), "value");
  cache.SetCapacity(0);
  size_t steps = 0;
  do {
    for (int i = 0; i < 100000; i += 1000) cache.Find("key" + std::to_string(i));
    ASSERT_LT(++steps, 1000u) << "the hot keys hold the shrink off";
  } while (cache.TrimStep(1000));
  EXPECT_EQ(cache.entries(), 0u);
}

// A shrink stops where the new size is, and a larger size set meanwhile stops it there.
TEST(RecordCacheTest, AShrinkEndsAtTheSizeInForce) {
  RecordCache cache(1 << 30);
  for (int i = 0; i < 50000; ++i) cache.Put("key" + std::to_string(i), "value");
  const size_t each = cache.bytes() / cache.entries();
  cache.SetCapacity(1000 * each);
  ASSERT_TRUE(cache.TrimStep(1000));
  cache.SetCapacity(20000 * each);
  while (cache.TrimStep(1000)) {
  }
  EXPECT_LE(cache.bytes(), 20000 * each);
  EXPECT_GT(cache.entries(), 19000u) << "no further than the size in force";

  // Raised above what it holds in the middle of a shrink: the evictions end there, and the
  // table of the entries already freed goes back all the same (in steps of its own).
  cache.SetCapacity(1 << 30);
  for (int i = 0; i < 50000; ++i) cache.Put("again" + std::to_string(i), "value");
  const size_t full_table = cache.bookkeeping_bytes();
  cache.SetCapacity(1000 * each);
  while (cache.entries() > 30000) ASSERT_TRUE(cache.TrimStep(1000));
  cache.SetCapacity(1 << 30);
  const size_t entries = cache.entries();
  for (int steps = 0; cache.TrimStep(1000); ++steps) ASSERT_LT(steps, 100) << "the steps end";
  EXPECT_EQ(cache.entries(), entries) << "nothing more is evicted";
  EXPECT_GT(cache.entries(), 20000u);
  EXPECT_LT(cache.bookkeeping_bytes(), full_table);
  cache.Put("another", "value");
  EXPECT_EQ(cache.Find("another")->value, "value");
}

// After a shrink, the entries left move to the smaller table in steps. A full cache's stores
// meanwhile evict from the table being moved from too, the entries no read has marked first,
// and move it no faster than a few runs a store: finishing the move at the first eviction
// paused the loop for milliseconds.
TEST(RecordCacheTest, AFullCacheEvictsWhileItsTableMovesInSteps) {
  RecordCache cache(1 << 30);
  for (int i = 0; i < 100000; ++i) cache.Put("key" + std::to_string(i), "value");
  const size_t full_table = cache.bookkeeping_bytes();  // 262,144 buckets
  const size_t each = cache.bytes() / cache.entries();
  cache.SetCapacity(1000 * each);
  while (cache.bytes() > cache.capacity()) ASSERT_TRUE(cache.TrimStep(1000));
  ASSERT_GT(cache.bookkeeping_bytes(), full_table / 2) << "the entries left are still moving";
  // The even keys left are read (marked again); the odd ones keep the marks the trim left
  // them, which its first sweep cleared.
  size_t read = 0;
  for (int i = 0; i < 100000; i += 2) read += cache.Find("key" + std::to_string(i)).has_value();
  const size_t unread = cache.entries() - read;
  ASSERT_GT(read, 300u);
  ASSERT_GT(unread, 300u);

  for (int i = 0; i < 200; ++i) {
    cache.Put("new" + std::to_string(i), "value");
    ASSERT_LE(cache.bytes(), cache.capacity());
    // A store moves a thousand or two of the 262,144 buckets.
    if (i < 50) {
      ASSERT_GT(cache.bookkeeping_bytes(), full_table / 2) << "store " << i << " moved all";
    }
  }
  // Entries not read since the trim went first: none of the new ones, fewer of those read.
  for (int i = 0; i < 200; ++i) {
    EXPECT_TRUE(cache.Find("new" + std::to_string(i)).has_value()) << "new" << i;
  }
  size_t read_left = 0;
  size_t unread_left = 0;
  for (int i = 0; i < 100000; ++i) {
    (i % 2 == 0 ? read_left : unread_left) += cache.Find("key" + std::to_string(i)).has_value();
  }
  EXPECT_EQ(read_left + unread_left + 200, cache.entries());
  EXPECT_GT(read_left * unread, unread_left * read)
      << read_left << " of " << read << " read, " << unread_left << " of " << unread;

  for (int steps = 0; cache.TrimStep(1000); ++steps) ASSERT_LT(steps, 100) << "the steps end";
  EXPECT_LT(cache.bookkeeping_bytes(), full_table / 20);
  size_t found = 0;
  for (int i = 0; i < 100000; ++i) found += cache.Find("key" + std::to_string(i)).has_value();
  for (int i = 0; i < 200; ++i) found += cache.Find("new" + std::to_string(i)).has_value();
  EXPECT_EQ(found, cache.entries()) << "every entry left is found through the smaller table";
}

// A trim that starts while the table still moves (after an earlier shrink) gives every entry
// its second chance over both tables: keys read before it outlive unread ones.
TEST(RecordCacheTest, ATrimDuringAMoveGivesSecondChancesOverBothTables) {
  RecordCache cache(1 << 30);
  for (int i = 0; i < 100000; ++i) cache.Put("key" + std::to_string(i), "value");
  const size_t each = cache.bytes() / cache.entries();
  cache.SetCapacity(20000 * each);
  // Its steps until the trim ends and the entries start moving to a smaller table (the two
  // tables then take more than the one did a step before).
  for (size_t before = 0; before == 0 || cache.bookkeeping_bytes() <= before;) {
    before = cache.bookkeeping_bytes();
    ASSERT_TRUE(cache.TrimStep(1000));
  }
  const size_t moving_tables = cache.bookkeeping_bytes();
  std::vector<std::string> read;
  for (int i = 0; i < 100000 && read.size() < 1000; ++i) {
    std::string key = "key" + std::to_string(i);
    if (cache.Find(key)) read.push_back(std::move(key));
  }
  ASSERT_EQ(read.size(), 1000u);

  cache.SetCapacity(10000 * each);
  ASSERT_EQ(cache.bookkeeping_bytes(), moving_tables) << "the move is still under way";
  for (int steps = 0; cache.TrimStep(1000); ++steps) ASSERT_LT(steps, 10000) << "it ends";
  EXPECT_LE(cache.entries(), 10000u);
  size_t kept = 0;
  for (const std::string& key : read) kept += cache.Find(key).has_value();
  EXPECT_EQ(kept, read.size());
}

TEST(RecordCacheTest, ResetCountersStartsHitsAndMissesOver) {
  RecordCache cache(1 << 20);
  cache.Put("k", "v");
  cache.Find("k");
  cache.Find("other");
  ASSERT_EQ(cache.hits(), 1u);
  ASSERT_EQ(cache.misses(), 1u);
  cache.ResetCounters();
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 0u);
  EXPECT_EQ(cache.Find("k")->value, "v") << "the entries stay";
  EXPECT_EQ(cache.hits(), 1u);
}

using Truth = std::map<std::string, std::optional<std::string>>;  // nullopt: absent

// One random operation on `keys` keys, checked against `truth` when it is a read.
void StepAgainstModel(RecordCache& cache, Truth& truth, std::mt19937& rng, int step,
                      uint32_t keys) {
  const std::string key = "k" + std::to_string(rng() % keys);
  switch (rng() % 6) {
    case 0:
    case 1: {
      const std::string value(rng() % 12, static_cast<char>('a' + step % 26));
      cache.Put(key, value);
      truth[key] = value;
      break;
    }
    case 2:
      cache.PutAbsent(key);
      truth[key] = std::nullopt;
      break;
    case 3:
      cache.Erase(key);
      break;
    default: {
      std::optional<RecordCache::Hit> hit = cache.Find(key);
      if (!hit) break;  // a miss is always allowed
      auto it = truth.find(key);
      ASSERT_NE(it, truth.end());
      EXPECT_EQ(hit->absent, !it->second.has_value());
      if (it->second) {
        EXPECT_EQ(hit->value, *it->second);
      }
    }
  }
}

// Whatever it evicts, the cache never answers differently from the truth it was told.
TEST(RecordCacheTest, NeverDisagreesWithAModel) {
  std::mt19937 rng(7);
  Truth truth;
  RecordCache cache(40 * (kEntry + 16));
  for (int step = 0; step < 50000; ++step) {
    StepAgainstModel(cache, truth, rng, step, 200);
    ASSERT_LE(cache.bytes(), cache.capacity());
  }
}

// Nor while its size changes, a shrink of thousands of entries going two entries a step.
TEST(RecordCacheTest, NeverDisagreesWithAModelAsItsSizeChanges) {
  std::mt19937 rng(9);
  Truth truth;
  RecordCache cache(1 << 30);
  size_t bound = cache.capacity();  // what the cache may hold until the next change of size
  size_t unfinished_shrinks = 0;
  for (int step = 0; step < 100000; ++step) {
    if (step % 5000 == 0) {
      const size_t entries[] = {0, 500, 8000, 20000};
      cache.SetCapacity(entries[rng() % 4] * (kEntry + 16));
      bound = std::max(cache.capacity(), cache.bytes());
      unfinished_shrinks += cache.bytes() > cache.capacity();
    }
    StepAgainstModel(cache, truth, rng, step, 20000);
    if (!cache.TrimStep(2)) {
      ASSERT_LE(cache.bytes(), cache.capacity());
    }
    ASSERT_LE(cache.bytes(), bound);
  }
  EXPECT_GE(unfinished_shrinks, 3u) << "shrinks the first step did not finish";
}

// With room for everything, a key is found exactly while it is held: growing the table and
// deleting from the middle of probe runs (backward shift) never loses or resurrects one.
TEST(RecordCacheTest, WithoutEvictionFindsExactlyWhatItHolds) {
  std::mt19937 rng(11);
  std::map<std::string, std::string> truth;
  RecordCache cache(1ull << 30);
  for (int step = 0; step < 200000; ++step) {
    const std::string key = "key:" + std::to_string(rng() % 5000);
    if (rng() % 3 == 0) {
      cache.Erase(key);
      truth.erase(key);
    } else {
      const std::string value(rng() % 40, static_cast<char>('a' + step % 26));
      cache.Put(key, value);
      truth[key] = value;
    }
    if (step % 20000 == 0 || step == 199999) {
      ASSERT_EQ(cache.entries(), truth.size());
      for (int k = 0; k < 5000; ++k) {
        const std::string probe = "key:" + std::to_string(k);
        std::optional<RecordCache::Hit> hit = cache.Find(probe);
        auto it = truth.find(probe);
        ASSERT_EQ(hit.has_value(), it != truth.end()) << probe;
        if (hit) {
          EXPECT_EQ(hit->value, it->second);
        }
      }
    }
  }
}

// The same key in two spaces (two databases' families) is two entries.
TEST(RecordCacheTest, SpacesKeepTheSameKeyApart) {
  RecordCache cache(1 << 20);
  cache.Put("k", "zero");
  cache.Put("k", "four", 4);
  cache.PutAbsent("gone", 4);
  ASSERT_TRUE(cache.Find("k").has_value());
  EXPECT_EQ(cache.Find("k")->value, "zero");
  EXPECT_EQ(cache.Find("k", 4)->value, "four");
  EXPECT_FALSE(cache.Find("k", 5).has_value());
  EXPECT_TRUE(cache.Find("gone", 4)->absent);
  EXPECT_FALSE(cache.Find("gone").has_value());
  cache.Erase("k", 4);
  EXPECT_FALSE(cache.Find("k", 4).has_value());
  EXPECT_EQ(cache.Find("k")->value, "zero");
  EXPECT_EQ(cache.entries(), 2u);
}

}  // namespace
}  // namespace sluice::storage
