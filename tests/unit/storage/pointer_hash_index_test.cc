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

size_t ProbeFor(const PointerHashIndex<Item>& index, const Item& item) {
  return index.Probe(item.hash, [&item](Item* e) { return e->id == item.id; });
}

Item* FindIn(const PointerHashIndex<Item>& index, const Item& item) {
  return index.Find(item.hash, [&item](Item* e) { return e->id == item.id; });
}

TEST(PointerHashIndexTest, EmptyIndexFindsNothing) {
  PointerHashIndex<Item> index;
  Item item{7, 1};
  EXPECT_EQ(FindIn(index, item), nullptr);
  index.Prefetch(std::span<const Item>(&item, 1), [](const Item& i) { return i.hash; },
                 sizeof(Item));
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(index.bytes(), 0u);
}

TEST(PointerHashIndexTest, AgreesWithAMapUnderCollidingInsertsAndRemovals) {
  PointerHashIndex<Item> index;
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
  EXPECT_LE(index.size() * 2, index.bytes() / sizeof(PointerHashIndex<Item>::Bucket));

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
  EXPECT_LE(index.size() * 2, index.bytes() / sizeof(PointerHashIndex<Item>::Bucket));
  for (const auto& item : items) {
    ASSERT_EQ(FindIn(index, *item), model.count(item->id) != 0 ? item.get() : nullptr);
  }
  index.Clear();
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(FindIn(index, *items[0]), nullptr);
}

}  // namespace
}  // namespace sluice
