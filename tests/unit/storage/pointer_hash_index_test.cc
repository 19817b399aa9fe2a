// The open-addressing index under the record cache and the key space's memtable index, driven
// with hashes chosen to collide, so probe runs wrap around the table and deletions shift.

#include "common/pointer_hash_index.h"

#include <gtest/gtest.h>

#include <map>
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
