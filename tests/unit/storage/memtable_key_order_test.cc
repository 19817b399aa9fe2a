// The inlined memtable order must be RocksDB's for a bytewise column family: user keys by
// RocksDB's BytewiseComparator, then newer sequence numbers first, the type byte ignored.
// (indexed_memtable_test drives a whole database through it, and builds with assertions
// check each of its comparisons against RocksDB's own comparator there.)

#include "storage/memtable_key_order.h"

#include <gtest/gtest.h>
#include <rocksdb/comparator.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/storage/memtable_entry.h"

namespace sluice::storage {
namespace {

struct InternalKey {
  std::string user_key;
  uint64_t sequence;
  uint8_t type;

  std::string Entry() const { return testing::MemtableEntry(user_key, sequence, type); }
};

int Sign(int x) { return (x > 0) - (x < 0); }

// The order RocksDB's MemTable::KeyComparator gives a bytewise column family.
int ReferenceOrder(const InternalKey& a, const InternalKey& b) {
  const int r = rocksdb::BytewiseComparator()->Compare(a.user_key, b.user_key);
  if (r != 0) return Sign(r);
  if (a.sequence == b.sequence) return 0;
  return a.sequence > b.sequence ? -1 : 1;
}

std::string RandomUserKey(std::mt19937_64& rng) {
  // Few distinct bytes and shared prefixes, so keys often tie up to the shorter one's end;
  // lengths past 127 take a two-byte length prefix.
  static const std::vector<size_t> kLengths = {0, 1, 2, 3, 8, 15, 16, 17, 119, 120, 200, 300};
  std::string key(kLengths[rng() % kLengths.size()], 'k');
  for (char& c : key) c = "k\x00\x7f\x80\xff"[rng() % 5];
  return key;
}

TEST(MemtableKeyOrderTest, DecodesTheEntryInternalKey) {
  for (size_t length : {0, 1, 119, 120, 127, 128, 300, 20000}) {
    const InternalKey key{std::string(length, 'x'), 7, 1};
    const std::string entry = key.Entry() + "value bytes after the key";
    const rocksdb::Slice internal = EntryInternalKey(entry.data());
    EXPECT_EQ(internal.size(), length + 8) << length;
    EXPECT_EQ(internal.data(), entry.data() + (length + 8 < 128 ? 1 : length + 8 < 16384 ? 2 : 3));
    EXPECT_EQ(InternalKeyTag(internal), (uint64_t{7} << 8) | 1);
  }
}

TEST(MemtableKeyOrderTest, MatchesRocksDbOnRandomKeys) {
  std::mt19937_64 rng(20261124);
  const BytewiseEntryComparator order;
  for (int i = 0; i < 200000; ++i) {
    InternalKey a{RandomUserKey(rng), rng() % 4, static_cast<uint8_t>(rng() % 3)};
    InternalKey b = rng() % 4 == 0 ? a : InternalKey{RandomUserKey(rng), rng() % 4, 1};
    b.type = static_cast<uint8_t>(rng() % 3);
    if (rng() % 8 == 0) b.sequence = a.sequence;
    const std::string a_entry = a.Entry();
    const std::string b_entry = b.Entry();
    const int expected = ReferenceOrder(a, b);
    ASSERT_EQ(Sign(order(a_entry.data(), b_entry.data())), expected) << i;
    ASSERT_EQ(Sign(order(a_entry.data(), EntryInternalKey(b_entry.data()))), expected) << i;
  }
}

TEST(MemtableKeyOrderTest, NewerSequenceFirstAndTypeIgnored) {
  const BytewiseEntryComparator order;
  const std::string newer = InternalKey{"key", 9, 0}.Entry();
  const std::string older = InternalKey{"key", 8, 1}.Entry();
  const std::string same_sequence_other_type = InternalKey{"key", 9, 1}.Entry();
  const std::string longer = InternalKey{std::string("key") + '\0', 100, 1}.Entry();
  EXPECT_LT(order(newer.data(), older.data()), 0);
  EXPECT_GT(order(older.data(), newer.data()), 0);
  EXPECT_EQ(order(newer.data(), same_sequence_other_type.data()), 0);
  EXPECT_LT(order(older.data(), longer.data()), 0);  // a prefix sorts first, whatever its age
}

}  // namespace
}  // namespace sluice::storage
