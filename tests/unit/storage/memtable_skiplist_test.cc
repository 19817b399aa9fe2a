// The memtables' skiplist against a std::set of the same entries: order, searches, duplicate
// internal keys, iterators (on the heap and in RocksDB's arena), sampling and estimates, and a
// reader on another thread while entries are inserted. (indexed_memtable_test drives whole
// databases through it against RocksDB's own skiplist.)

#include "storage/memtable_skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "storage/memtable_key_order.h"
#include "tests/unit/storage/memtable_entry.h"

namespace sluice::storage {
namespace {

std::string Entry(const std::string& user_key, uint64_t sequence, const std::string& value = "v") {
  return testing::MemtableEntry(user_key, sequence, /*type=*/1, value);
}

std::string InternalKeyOf(const char* entry) { return EntryInternalKey(entry).ToString(); }
std::string InternalKeyOf(const std::string& entry) { return InternalKeyOf(entry.data()); }

struct ByMemtableOrder {
  bool operator()(const std::string& a, const std::string& b) const {
    return CompareInternalKeysBytewise(EntryInternalKey(a.data()), EntryInternalKey(b.data())) < 0;
  }
};

// A list with its entries' memory (a memtable keeps them in its arena).
class TestList {
 public:
  // Places `entry` in a new node; returns what Insert returned.
  bool Insert(const std::string& entry, const MemtableSkipList::Splice* start = nullptr) {
    const MemtableSkipList::NodeShape shape = list_.NextNodeShape(entry.size());
    memory_.push_back(std::make_unique<char[]>(shape.bytes));
    char* placed = MemtableSkipList::PlaceNode(memory_.back().get(), shape);
    std::copy(entry.begin(), entry.end(), placed);
    return list_.Insert(placed, start);
  }
  MemtableSkipList& operator*() { return list_; }
  MemtableSkipList* operator->() { return &list_; }

 private:
  MemtableSkipList list_;
  std::vector<std::unique_ptr<char[]>> memory_;
};

std::string RandomUserKey(std::mt19937_64& rng) {
  // Shared prefixes and a small alphabet, so keys often tie up to the shorter one's end.
  std::string key(rng() % 12, 'k');
  for (char& c : key) c = "ab\x00\xff"[rng() % 4];
  return key;
}

std::vector<std::string> ListEntries(MemtableSkipList& list) {
  std::vector<std::string> entries;
  for (const char* e = list.First(); e != nullptr; e = MemtableSkipList::Next(e)) {
    entries.push_back(InternalKeyOf(e));
  }
  return entries;
}

std::vector<std::string> ModelEntries(const std::set<std::string, ByMemtableOrder>& model) {
  std::vector<std::string> entries;
  for (const std::string& e : model) entries.push_back(InternalKeyOf(e));
  return entries;
}

// Inserts `count` random entries, half the time as a sorted run (as a commit's batch comes),
// into both the list and the model; a repeated internal key must be refused.
void InsertRandomEntries(TestList& list, std::set<std::string, ByMemtableOrder>& model,
                         std::mt19937_64& rng, int count) {
  while (count > 0) {
    std::vector<std::string> batch;
    const int size = std::min<int>(count, 1 + static_cast<int>(rng() % 40));
    for (int i = 0; i < size; ++i) batch.push_back(Entry(RandomUserKey(rng), rng() % 50));
    if (rng() % 2 == 0) std::sort(batch.begin(), batch.end(), ByMemtableOrder());
    for (const std::string& entry : batch) {
      const bool fresh = model.insert(entry).second;
      EXPECT_EQ(list.Insert(entry), fresh)
          << "an entry with this internal key was " << (fresh ? "not " : "") << "there already";
    }
    count -= size;
  }
}

TEST(MemtableSkipListTest, KeepsEntriesInMemtableOrderAndRefusesRepeatedInternalKeys) {
  std::mt19937_64 rng(7);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  EXPECT_EQ(list->First(), nullptr);
  EXPECT_EQ(list->Last(), nullptr);
  InsertRandomEntries(list, model, rng, 5000);
  ASSERT_GT(model.size(), 1000u);
  EXPECT_EQ(ListEntries(*list), ModelEntries(model));
  EXPECT_EQ(InternalKeyOf(list->Last()), InternalKeyOf(*model.rbegin()));
  // The same internal key with another value is the same entry to RocksDB.
  const std::string& first = *model.begin();
  EXPECT_FALSE(list.Insert(Entry(InternalKeyOf(first).substr(0, InternalKeyOf(first).size() - 8),
                                 InternalKeyTag(EntryInternalKey(first.data())) >> 8, "other")));
}

TEST(MemtableSkipListTest, SearchesFindWhatTheModelFinds) {
  std::mt19937_64 rng(11);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  InsertRandomEntries(list, model, rng, 3000);
  for (int i = 0; i < 3000; ++i) {
    const std::string probe = Entry(RandomUserKey(rng), rng() % 50);
    const rocksdb::Slice key = EntryInternalKey(probe.data());
    const auto at_or_after = model.lower_bound(probe);
    const char* found = list->FindGreaterOrEqual(key);
    if (at_or_after == model.end()) {
      EXPECT_EQ(found, nullptr);
    } else {
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(InternalKeyOf(found), InternalKeyOf(*at_or_after));
    }
    const char* before = list->FindLessThan(key);
    if (at_or_after == model.begin()) {
      EXPECT_EQ(before, nullptr);
    } else {
      ASSERT_NE(before, nullptr);
      EXPECT_EQ(InternalKeyOf(before), InternalKeyOf(*std::prev(at_or_after)));
    }
    EXPECT_EQ(list->Contains(probe.data()), model.count(probe) == 1);
  }
}

// What the indexed memtable searches for before a batch: `user_key` before all its versions.
std::string SearchKeyBeforeAllVersions(const std::string& user_key) {
  std::string key;
  AppendKeyBeforeAllVersions(user_key, &key);
  return key;
}

std::vector<MemtableSkipList::Splice> SearchTogether(const MemtableSkipList& list,
                                                     const std::vector<std::string>& keys) {
  const std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<MemtableSkipList::Splice> splices(keys.size());
  list.SearchTogether(slices, splices.data());
  return splices;
}

TEST(MemtableSkipListTest, SearchesTogetherEndWhereEachSearchAloneEnds) {
  std::mt19937_64 rng(23);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  InsertRandomEntries(list, model, rng, 3000);
  // More keys than searches run at once, some of them repeated, some before every entry.
  std::vector<std::string> keys = {SearchKeyBeforeAllVersions("")};
  for (int i = 0; i < 500; ++i) keys.push_back(SearchKeyBeforeAllVersions(RandomUserKey(rng)));
  const std::vector<MemtableSkipList::Splice> splices = SearchTogether(*list, keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    // At the bottom level the splice holds the last entry before the key (or the head, whose
    // successor is the first entry) and the first at or after it.
    const rocksdb::Slice key(keys[i]);
    EXPECT_EQ(splices[i].after[0], list->FindGreaterOrEqual(key)) << i;
    const char* before = list->FindLessThan(key);
    if (before != nullptr) {
      EXPECT_EQ(splices[i].before[0], before) << i;
    } else {
      EXPECT_EQ(MemtableSkipList::Next(splices[i].before[0]), list->First()) << i;
    }
  }
}

TEST(MemtableSkipListTest, InsertsFromEarlierSearchesKeepTheOrderAsTheListGrows) {
  std::mt19937_64 rng(29);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  InsertRandomEntries(list, model, rng, 2000);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> user_keys;
    std::vector<std::string> keys;
    for (int i = 0; i < 100; ++i) {
      user_keys.push_back(RandomUserKey(rng) + (rng() % 2 == 0 ? "" : "-new"));
      keys.push_back(SearchKeyBeforeAllVersions(user_keys.back()));
    }
    const std::vector<MemtableSkipList::Splice> splices = SearchTogether(*list, keys);
    // Entries inserted after the searches, and the batch's own, lie between some splices and
    // their keys by the time those are inserted; repeated internal keys are still refused.
    InsertRandomEntries(list, model, rng, 50);
    std::vector<size_t> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
      const std::string entry = Entry(user_keys[i], rng() % 50);
      const bool fresh = model.insert(entry).second;
      EXPECT_EQ(list.Insert(entry, &splices[i]), fresh) << user_keys[i];
    }
  }
  EXPECT_EQ(ListEntries(*list), ModelEntries(model));
}

TEST(MemtableSkipListTest, ABatchOfNeighbouringKeysSearchedTogetherIsInsertedInOrder) {
  // Every search ends between the same two nodes (here, an empty list's head and its end),
  // and each insert but the first finds the batch's earlier ones there.
  TestList list;
  std::vector<std::string> user_keys;
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    char text[16];
    snprintf(text, sizeof(text), "k%08d", i);
    user_keys.emplace_back(text);
    keys.push_back(SearchKeyBeforeAllVersions(text));
  }
  const std::vector<MemtableSkipList::Splice> splices = SearchTogether(*list, keys);
  std::set<std::string, ByMemtableOrder> model;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string entry = Entry(user_keys[i], 1);
    model.insert(entry);
    ASSERT_TRUE(list.Insert(entry, &splices[i]));
  }
  EXPECT_EQ(ListEntries(*list), ModelEntries(model));
}

TEST(MemtableSkipListTest, IteratorsMoveAsTheModelDoes) {
  std::mt19937_64 rng(13);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  InsertRandomEntries(list, model, rng, 2000);
  std::unique_ptr<rocksdb::MemTableRep::Iterator> it(
      MemtableSkipList::Iterator::New(&*list, /*in_arena=*/false));
  it->SeekToLast();
  std::vector<std::string> backwards;
  for (; it->Valid(); it->Prev()) backwards.push_back(InternalKeyOf(it->key()));
  std::vector<std::string> expected = ModelEntries(model);
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(backwards, expected);

  for (int i = 0; i < 1000; ++i) {
    const std::string probe = Entry(RandomUserKey(rng), rng() % 50);
    const rocksdb::Slice key = EntryInternalKey(probe.data());
    auto expected_at = model.lower_bound(probe);
    it->Seek(key, nullptr);
    ASSERT_EQ(it->Valid(), expected_at != model.end());
    if (it->Valid()) {
      EXPECT_EQ(InternalKeyOf(it->key()), InternalKeyOf(*expected_at));
      it->Next();
      ASSERT_EQ(it->Valid(), std::next(expected_at) != model.end());
    }
    // The last entry at or before the probe.
    auto expected_prev = model.upper_bound(probe);
    it->SeekForPrev(key, nullptr);
    ASSERT_EQ(it->Valid(), expected_prev != model.begin());
    if (it->Valid()) {
      EXPECT_EQ(InternalKeyOf(it->key()), InternalKeyOf(*std::prev(expected_prev)));
    }
  }
}

TEST(MemtableSkipListTest, ArenaIteratorsGiveTheirMemoryToTheNextOne) {
  TestList list;
  ASSERT_TRUE(list.Insert(Entry("a", 1)));
  // RocksDB destroys an iterator it placed in its arena without freeing it.
  rocksdb::MemTableRep::Iterator* first = MemtableSkipList::Iterator::New(&*list, true);
  first->SeekToFirst();
  EXPECT_TRUE(first->Valid());
  first->~Iterator();
  rocksdb::MemTableRep::Iterator* second = MemtableSkipList::Iterator::New(&*list, true);
  EXPECT_EQ(second, first);
  rocksdb::MemTableRep::Iterator* third = MemtableSkipList::Iterator::New(&*list, true);
  EXPECT_NE(third, second);
  second->~Iterator();
  third->~Iterator();
}

TEST(MemtableSkipListTest, RandomSamplesAreDistinctEntriesOfTheList) {
  std::mt19937_64 rng(17);
  TestList list;
  std::set<std::string, ByMemtableOrder> model;
  InsertRandomEntries(list, model, rng, 20000);
  const uint64_t entries = model.size();
  std::unordered_set<const char*> in_list;
  for (const char* e = list->First(); e != nullptr; e = MemtableSkipList::Next(e)) {
    in_list.insert(e);
  }
  for (uint64_t target : {uint64_t{0}, uint64_t{5}, uint64_t{50}, uint64_t{500}, entries - 1,
                          entries, entries + 10}) {
    std::unordered_set<const char*> sample;
    list->UniqueRandomSample(entries, target, &sample);
    EXPECT_EQ(sample.size(), std::min(target, entries)) << target;
    for (const char* e : sample) EXPECT_EQ(in_list.count(e), 1u);
  }
  // Drawn across the list, not from one end: of 500 from the whole, some lie in each half.
  std::unordered_set<const char*> sample;
  list->UniqueRandomSample(entries, 500, &sample);
  const std::string middle = *std::next(model.begin(), static_cast<long>(entries / 2));
  const size_t low = std::count_if(sample.begin(), sample.end(), [&](const char* e) {
    return CompareInternalKeysBytewise(EntryInternalKey(e), EntryInternalKey(middle.data())) < 0;
  });
  EXPECT_GT(low, 150u);
  EXPECT_LT(low, 350u);
}

TEST(MemtableSkipListTest, EstimatesCountsBeforeAKeyRoughly) {
  // Each step at a level counts as the entries it usually passes over: rough (RocksDB's own
  // estimate is the same), within a factor of two here.
  TestList list;
  const auto key = [](int i) {
    char text[16];
    snprintf(text, sizeof(text), "k%08d", i);
    return Entry(text, 1);
  };
  for (int i = 0; i < 40000; ++i) ASSERT_TRUE(list.Insert(key(i)));
  for (int i : {0, 1000, 5000, 10000, 20000, 30000, 39999}) {
    const std::string probe = key(i);
    const uint64_t estimate = list->EstimateCountBefore(EntryInternalKey(probe.data()));
    EXPECT_GE(estimate, static_cast<uint64_t>(i / 2)) << i;
    EXPECT_LE(estimate, static_cast<uint64_t>(2 * i)) << i;
  }
}

TEST(MemtableSkipListTest, AReaderOnAnotherThreadSeesOrderedEntriesWhileInsertsRun) {
  TestList list;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> passes{0};
  std::thread reader([&] {
    while (!done.load()) {
      const char* previous = nullptr;
      for (const char* e = list->First(); e != nullptr; e = MemtableSkipList::Next(e)) {
        if (previous != nullptr) {
          ASSERT_LT(CompareInternalKeysBytewise(EntryInternalKey(previous), EntryInternalKey(e)),
                    0);
        }
        previous = e;
      }
      passes.fetch_add(1);
    }
  });
  std::mt19937_64 rng(19);
  for (int i = 0; i < 20000; ++i) {
    EXPECT_TRUE(list.Insert(Entry(RandomUserKey(rng) + "-" + std::to_string(i), 1)));
  }
  while (passes.load() < 2) std::this_thread::yield();
  done.store(true);
  reader.join();
  EXPECT_EQ(ListEntries(*list).size(), 20000u);
}

}  // namespace
}  // namespace sluice::storage
