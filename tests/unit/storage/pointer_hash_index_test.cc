// The open-addressing index under the record cache and the key space's memtable index, driven
// with hashes chosen to collide, so probe runs wrap around the table and deletions shift.

#include "common/pointer_hash_index.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace sluice {
namespace {

struct Item {
  uint64_t hash;
  int id;
};

template <typename Index>
size_t ProbeFor(const Index& index, const Item& item) {
  return index.Probe(item.hash, [&item](Item* e) { return e->id == item.id; });
}

template <typename Index>
Item* FindIn(const Index& index, const Item& item) {
  return index.Find(item.hash, [&item](Item* e) { return e->id == item.id; });
}

// The default (half full) and the record cache's fuller table.
template <typename Index>
class PointerHashIndexLoadTest : public testing::Test {};
using Loads = testing::Types<PointerHashIndex<Item>, PointerHashIndex<Item, 75>>;
TYPED_TEST_SUITE(PointerHashIndexLoadTest, Loads);

TEST(PointerHashIndexTest, EmptyIndexFindsNothing) {
  PointerHashIndex<Item> index;
  Item item{7, 1};
  EXPECT_EQ(FindIn(index, item), nullptr);
  index.Prefetch(std::span<const Item>(&item, 1), [](const Item& i) { return i.hash; },
                 sizeof(Item));
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(index.bytes(), 0u);
}

TEST(PointerHashIndexTest, LongestRunCountsARunThroughTheTableEnd) {
  PointerHashIndex<Item> index;
  EXPECT_EQ(index.LongestRun(), 0u);
  index.Reserve(1);  // 1,024 buckets
  std::vector<Item> items;
  // Three at home 1020 (to 1022), four at home 1023 (1023, then 0 to 2), one at home 500.
  for (uint64_t home : {1020, 1020, 1020, 1023, 1023, 1023, 1023, 500}) {
    items.push_back(Item{home, static_cast<int>(items.size())});
  }
  for (Item& item : items) index.Insert(ProbeFor(index, item), item.hash, &item);
  EXPECT_EQ(index.LongestRun(), 7u);
  // The other two of home 1020 move back, leaving 1022 empty: runs of two and of four.
  index.Remove(ProbeFor(index, items[0]));
  EXPECT_EQ(index.LongestRun(), 4u);
}

TYPED_TEST(PointerHashIndexLoadTest, AgreesWithAMapUnderCollidingInsertsAndRemovals) {
  TypeParam index;
  std::vector<std::unique_ptr<Item>> items;
  std::map<int, Item*> model;
  std::mt19937 rng(7);
  // Few distinct hashes, all near the top of the table's range: long runs that wrap around.
  auto hash_of = [](int id) { return static_cast<uint64_t>(1023 - id % 5) + (uint64_t{1} << 40); };
  for (int id = 0; id < 600; ++id) items.push_back(std::make_unique<Item>(Item{hash_of(id), id}));

  for (int step = 0; step < 20000; ++step) {
    Item& item = *items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(rng)];
    if (rng() % 3 != 0) {
      index.Reserve(index.size() + 1);
      const size_t i = ProbeFor(index, item);
      if (index.at(i).entry == nullptr) index.Insert(i, item.hash, &item);
      model[item.id] = &item;
    } else if (!index.empty()) {
      const size_t i = ProbeFor(index, item);
      if (index.at(i).entry != nullptr) index.Remove(i);
      model.erase(item.id);
    }
    ASSERT_EQ(index.size(), model.size());
    if (step % 500 == 0) {
      // A hint, over several cache lines of each entry: changes nothing.
      std::vector<Item> keys;
      for (const auto& other : items) keys.push_back(*other);
      index.Prefetch(std::span<const Item>(keys), [](const Item& i) { return i.hash; }, 200);
      ASSERT_EQ(index.size(), model.size());
      for (const auto& other : items) {
        const bool held = model.count(other->id) != 0;
        ASSERT_EQ(FindIn(index, *other), held ? other.get() : nullptr) << "id " << other->id;
      }
    }
  }
  EXPECT_LE(index.size() * 100, index.bucket_count() * TypeParam::kMaxLoadPercent);

  // Shrunk to fit what is left, it still finds exactly that.
  const size_t before = index.bytes();
  for (const auto& item : items) {
    if (model.count(item->id) != 0 && item->id % 8 != 0) {
      index.Remove(ProbeFor(index, *item));
      model.erase(item->id);
    }
  }
  index.ShrinkToFit();
  while (index.Move(64)) {
  }
  EXPECT_LE(index.bytes(), before);
  EXPECT_LE(index.size() * 100, index.bucket_count() * TypeParam::kMaxLoadPercent);
  for (const auto& item : items) {
    ASSERT_EQ(FindIn(index, *item), model.count(item->id) != 0 ? item.get() : nullptr);
  }
  index.Clear();
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(FindIn(index, *items[0]), nullptr);
}

// The table grows exactly when one more entry would pass the maximum load.
TYPED_TEST(PointerHashIndexLoadTest, GrowsPastTheMaximumLoadOnly) {
  TypeParam index;
  std::vector<Item> items;
  for (int id = 0; id < 4096; ++id) items.push_back(Item{static_cast<uint64_t>(id) * 7919, id});
  index.Reserve(1);
  const size_t initial = index.bucket_count();
  const size_t full = initial * TypeParam::kMaxLoadPercent / 100;
  for (size_t n = 0; n < full; ++n) {
    index.Reserve(index.size() + 1);
    index.Insert(ProbeFor(index, items[n]), items[n].hash, &items[n]);
  }
  EXPECT_EQ(index.bucket_count(), initial) << full << " entries fit in " << initial << " buckets";
  index.Reserve(index.size() + 1);
  EXPECT_EQ(index.bucket_count(), 2 * initial);
  for (size_t n = 0; n < full; ++n) EXPECT_EQ(FindIn(index, items[n]), &items[n]);
}

// Whether bucket number `i` (from Probe) is one of the old table's, which a growth or a shrink
// moves from in steps: beyond the table in use.
template <typename Index>
bool InOldTable(const Index& index, size_t i) {
  return i >= index.bucket_count();
}

// While a growth or a shrink moves entries in steps, each is in one of two tables: lookups,
// updates, marks and removals find it in either, and new entries go to the new one.
TYPED_TEST(PointerHashIndexLoadTest, AgreesWithAMapWhileEntriesMove) {
  TypeParam index;
  std::vector<std::unique_ptr<Item>> items;
  std::map<int, Item*> model;
  std::map<int, bool> marks;
  std::mt19937 rng(11);
  // Hashes of a few hundred homes: runs long enough to wrap around and shift.
  for (int id = 0; id < 20000; ++id) {
    items.push_back(std::make_unique<Item>(Item{rng() % 300 * 0x9E3779B9ull, id}));
  }
  size_t checks_while_moving = 0;
  size_t old_table_hits = 0;
  auto check_all = [&] {
    for (const auto& item : items) {
      const bool held = model.count(item->id) != 0;
      ASSERT_EQ(FindIn(index, *item), held ? item.get() : nullptr) << "id " << item->id;
      if (held) {
        ASSERT_EQ(index.marked(ProbeFor(index, *item)), marks[item->id]) << item->id;
      }
    }
    checks_while_moving += index.moving();
  };
  for (int round = 0; round < 2; ++round) {
    // Grows through several tables, adding mostly.
    for (int step = 0; step < 30000; ++step) {
      Item& item = *items[rng() % items.size()];
      const bool add = rng() % 4 != 0;
      if (add) index.Reserve(index.size() + 1);
      if (index.bucket_count() == 0) continue;  // a removal before any table
      const size_t i = ProbeFor(index, item);
      old_table_hits += index.at(i).entry != nullptr && InOldTable(index, i);
      if (add) {
        if (index.at(i).entry == nullptr) {
          ASSERT_FALSE(InOldTable(index, i)) << "new entries go to the table in use";
          index.Insert(i, item.hash, &item);
          model[item.id] = &item;
          marks[item.id] = false;
        } else if (rng() % 2 == 0) {
          const bool mark = rng() % 2 == 0;
          index.SetMarked(i, mark);
          marks[item.id] = mark;
        }
      } else if (index.at(i).entry != nullptr) {
        index.Remove(i);
        model.erase(item.id);
      }
      ASSERT_EQ(index.size(), model.size());
      if (step % 1500 == 0) check_all();
    }
    // Most go, then the table shrinks, in steps too, with removals and additions meanwhile.
    for (const auto& item : items) {
      if (model.count(item->id) != 0 && item->id % 10 != 0) {
        index.Remove(ProbeFor(index, *item));
        model.erase(item->id);
      }
    }
    const size_t before = index.bucket_count();
    index.ShrinkToFit();
    ASSERT_LT(index.bucket_count(), before);
    ASSERT_TRUE(index.moving());
    check_all();
    for (int step = 0; index.moving(); ++step) {
      ASSERT_LT(step, 100000) << "the moves end";
      Item& item = *items[rng() % items.size()];
      index.Reserve(index.size() + 1);
      const size_t i = ProbeFor(index, item);
      if (index.at(i).entry == nullptr) {
        index.Insert(i, item.hash, &item);
        model[item.id] = &item;
        marks[item.id] = false;
      } else if (step % 3 == 0) {
        index.Remove(i);
        model.erase(item.id);
      }
      if (step % 50 == 0) check_all();
    }
    check_all();
  }
  EXPECT_GT(checks_while_moving, 10u) << "the checks saw two tables";
  EXPECT_GT(old_table_hits, 100u) << "entries were found in the table being moved from";
  EXPECT_EQ(index.bytes(), index.bucket_count() * sizeof(typename TypeParam::Bucket));
}

// A growth moves the old table a few runs per Reserve (no call pays for it all) and is done
// before the new table fills up, so it never has to finish in one go.
TYPED_TEST(PointerHashIndexLoadTest, AGrowthMovesTheOldTableInSmallSteps) {
  TypeParam index;
  std::vector<Item> items;
  for (int id = 0; id < 200000; ++id) {
    items.push_back(Item{static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull, id});
  }
  auto add = [&index](Item& item) {
    index.Reserve(index.size() + 1);
    index.Insert(ProbeFor(index, item), item.hash, &item);
  };
  size_t n = 0;
  while (index.bucket_count() < 65536) add(items[n++]);
  ASSERT_TRUE(index.moving()) << "the 32,768-bucket table is still being moved from";
  const size_t old_buckets = index.bucket_count() / 2;
  const size_t room = index.bucket_count() * TypeParam::kMaxLoadPercent / 100 - index.size();
  size_t adds = 0;
  while (index.moving()) {
    add(items[n++]);
    ++adds;
  }
  // 16 buckets a Reserve, plus the rest of the run it stops in.
  EXPECT_GE(adds, old_buckets / 64) << "moved in small steps";
  EXPECT_LE(adds, room / 2 + 1) << "done with half the new table's room left";
  EXPECT_EQ(index.bucket_count(), 65536u);
  EXPECT_EQ(index.bytes(), 65536 * sizeof(typename TypeParam::Bucket)) << "the old table is freed";
  for (size_t k = 0; k < n; ++k) ASSERT_EQ(FindIn(index, items[k]), &items[k]);
}

// MoveDropping lets its caller drop entries instead of moving them (the record cache evicting
// as it moves), telling it each entry's mark; the entries that move keep theirs, and runs of
// colliding hashes stay whole, so every lookup in between finds what is left.
TYPED_TEST(PointerHashIndexLoadTest, AMoveCanDropEntries) {
  TypeParam index;
  std::vector<Item> items;
  for (int id = 0; id < 3000; ++id) items.push_back(Item{id % 97 * 0x9E3779B9ull, id});
  for (Item& item : items) {
    index.Reserve(index.size() + 1);
    const size_t i = ProbeFor(index, item);
    index.Insert(i, item.hash, &item);
    index.SetMarked(i, item.id % 3 == 0);
  }
  index.FinishMoving();
  for (size_t k = 300; k < items.size(); ++k) index.Remove(ProbeFor(index, items[k]));
  const size_t old_buckets = index.bucket_count();
  index.ShrinkToFit();
  ASSERT_TRUE(index.moving());

  // Drops odd ids, a step at a time, checking every entry in between.
  std::vector<bool> dropped(300);
  size_t visited = 0;
  while (index.moving()) {
    visited += index.MoveDropping(1, [&dropped](Item* item, bool marked) {
      EXPECT_EQ(marked, item->id % 3 == 0) << item->id;
      dropped[item->id] = item->id % 2 == 1;
      return dropped[item->id];
    });
    for (size_t k = 0; k < 300; ++k) {
      ASSERT_EQ(FindIn(index, items[k]), dropped[k] ? nullptr : &items[k]) << k;
    }
  }
  EXPECT_EQ(visited, old_buckets);
  EXPECT_EQ(index.size(), 150u);
  for (size_t k = 0; k < 300; k += 2) {
    EXPECT_EQ(index.marked(ProbeFor(index, items[k])), k % 3 == 0) << "the mark moves along";
  }
}

// A bucket's mark (the record cache's CLOCK bit) stays with its entry through backward shifts
// and growth, and never changes what a lookup finds.
TYPED_TEST(PointerHashIndexLoadTest, MarksMoveWithTheirEntriesAndLookupsIgnoreThem) {
  TypeParam index;
  std::vector<Item> items;
  // Colliding hashes, some with the top bit (where the mark lives) set by the caller.
  for (int id = 0; id < 3000; ++id) {
    items.push_back(Item{static_cast<uint64_t>(id % 7) << (id % 2 == 0 ? 0 : 63), id});
  }
  auto marked_by_rule = [](const Item& item) { return item.id % 3 == 0; };
  for (Item& item : items) {
    index.Reserve(index.size() + 1);  // grows the table several times
    const size_t i = ProbeFor(index, item);
    index.Insert(i, item.hash, &item);
    EXPECT_FALSE(index.marked(i)) << "a new entry starts unmarked";
    if (marked_by_rule(item)) index.SetMarked(i, true);
  }
  for (const Item& item : items) {
    if (item.id % 4 == 1) index.Remove(ProbeFor(index, item));  // shifts runs back
  }
  for (const Item& item : items) {
    const bool held = item.id % 4 != 1;
    ASSERT_EQ(FindIn(index, item), held ? &item : nullptr) << item.id;
    if (held) {
      EXPECT_EQ(index.marked(ProbeFor(index, item)), marked_by_rule(item)) << item.id;
    }
  }
  const size_t i = ProbeFor(index, items[3]);
  index.SetMarked(i, false);
  EXPECT_FALSE(index.marked(i));
  EXPECT_EQ(FindIn(index, items[3]), &items[3]);
}

}  // namespace
}  // namespace sluice
