// sluice's memtables (the key space's skiplist + hash index for in-place updates, and the
// other families' skiplist with an inlined bytewise order) must hold exactly what RocksDB's
// own skiplist memtable holds: the same random writes go to a database with each, and every
// read, iteration, flush and WAL replay (through ReplayPrefetch) must agree.

#include "storage/indexed_memtable.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "storage/bytewise_skiplist.h"
#include "storage/replay_prefetch.h"
#include "tests/unit/storage/temp_dir.h"

namespace sluice::storage {
namespace {

using testing::TempDir;

enum class Memtable {
  kRocksDb,   // RocksDB's skiplist, with in-place updates
  kIndexed,   // the key space's: bytewise_skiplist.h's skiplist, hash index, in-place updates
  kBytewise,  // the other families': bytewise_skiplist.h's skiplist alone, no in-place updates
};

class Db {
 public:
  Db(std::string dir, Memtable memtable) : dir_(std::move(dir)) {
    options_.create_if_missing = true;
    options_.allow_concurrent_memtable_write = false;
    options_.inplace_update_support = memtable != Memtable::kBytewise;
    if (memtable == Memtable::kIndexed) {
      indexed_factory_ = std::make_shared<IndexedSkipListFactory>();
      options_.memtable_factory = indexed_factory_;
      // As the engine opens: each WAL record's keys are prefetched before it is replayed.
      replay_prefetch_ =
          std::make_unique<ReplayPrefetch>(std::vector{rocksdb::ColumnFamilyDescriptor(
              rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options_))});
      options_.wal_filter = replay_prefetch_.get();
    } else if (memtable == Memtable::kBytewise) {
      options_.memtable_factory = std::make_shared<BytewiseSkipListFactory>();
    }
    Open();
  }
  ~Db() { Close(); }

  void Open() {
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options_, dir_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }
  void Close() {
    if (db_ != nullptr) {
      ASSERT_TRUE(db_->Close().ok());
    }
    db_.reset();
  }
  rocksdb::DB* operator->() { return db_.get(); }
  const std::shared_ptr<IndexedSkipListFactory>& indexed_factory() { return indexed_factory_; }

  // As the engine does before each commit (a hint, which must read only the memtable being
  // written: the random steps below seal and free memtables in between).
  void PrefetchForUpdate(const std::vector<std::string>& keys) {
    if (indexed_factory_ == nullptr) return;
    std::vector<std::string_view> views(keys.begin(), keys.end());
    indexed_factory_->PrefetchForUpdate(views);
  }

  std::optional<std::string> Get(const std::string& key) {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &value);
    EXPECT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
    if (!s.ok()) return std::nullopt;
    return value;
  }

  std::map<std::string, std::string> All() {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    return Read(*it);
  }
  // What an iterator made earlier reads from the start.
  static std::map<std::string, std::string> Read(rocksdb::Iterator& it) {
    std::map<std::string, std::string> all;
    for (it.SeekToFirst(); it.Valid(); it.Next()) all[it.key().ToString()] = it.value().ToString();
    EXPECT_TRUE(it.status().ok()) << it.status().ToString();
    return all;
  }
  uint64_t ActiveEntries() {
    uint64_t entries = 0;
    EXPECT_TRUE(db_->GetIntProperty("rocksdb.num-entries-active-mem-table", &entries));
    return entries;
  }

 private:
  std::string dir_;
  rocksdb::Options options_;
  std::shared_ptr<IndexedSkipListFactory> indexed_factory_;
  std::unique_ptr<ReplayPrefetch> replay_prefetch_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST(IndexedMemtableTest, RewrittenKeyIsReadBackAtEverySize) {
  TempDir dir;
  Db db(dir.path(), Memtable::kIndexed);
  ASSERT_TRUE(db->Put({}, "k", "aaaa").ok());
  ASSERT_TRUE(db->Put({}, "k", "bb").ok());  // smaller: in place
  EXPECT_EQ(db.Get("k"), "bb");
  ASSERT_TRUE(db->Put({}, "k", "cccccc").ok());  // larger: a new entry
  EXPECT_EQ(db.Get("k"), "cccccc");
  ASSERT_TRUE(db->Put({}, "k", "dddddd").ok());  // in place in the newer entry
  EXPECT_EQ(db.Get("k"), "dddddd");
  ASSERT_TRUE(db->Delete({}, "k").ok());
  EXPECT_EQ(db.Get("k"), std::nullopt);
  ASSERT_TRUE(db->Put({}, "k", "e").ok());  // after a deletion: a new entry
  EXPECT_EQ(db.Get("k"), "e");
  db.Close();
  db.Open();  // WAL replay goes through the same update path
  EXPECT_EQ(db.Get("k"), "e");
}

TEST(IndexedMemtableTest, SameSizeRewritesUpdateTheirEntryInPlace) {
  TempDir dir;
  Db db(dir.path(), Memtable::kIndexed);
  constexpr int kKeys = 3000;  // the index grows several times over
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      const std::string value = "round " + std::to_string(round);
      ASSERT_TRUE(db->Put({}, "key:" + std::to_string(k), value).ok());
    }
  }
  // One entry per key: every rewrite found its key's entry through the index (a lookup that
  // missed would have added a second version).
  uint64_t entries = 0;
  ASSERT_TRUE(db->GetIntProperty("rocksdb.num-entries-active-mem-table", &entries));
  EXPECT_EQ(entries, static_cast<uint64_t>(kKeys));
  EXPECT_EQ(db.Get("key:2999"), "round 3");
}

// An in-place rewrite keeps the entry's sequence number, so an iterator made before it reads
// the new value (and, on another thread, could read it half written): the background key
// count suspends in-place updates while its iterator lives, and rewrites become new entries,
// which the iterator's snapshot hides.
TEST(IndexedMemtableTest, SuspendedInPlaceUpdatesLeaveAnEarlierIteratorItsSnapshot) {
  TempDir dir;
  Db db(dir.path(), Memtable::kIndexed);
  ASSERT_TRUE(db->Put({}, "a", "old a").ok());
  ASSERT_TRUE(db->Put({}, "b", "old b").ok());
  {
    std::unique_ptr<rocksdb::Iterator> before(db->NewIterator(rocksdb::ReadOptions()));
    ASSERT_TRUE(db->Put({}, "a", "new a").ok());  // the same size: in place
    EXPECT_EQ(Db::Read(*before)["a"], "new a");   // RocksDB's caveat, shown
  }
  EXPECT_EQ(db.ActiveEntries(), 2u);

  std::shared_ptr<void> suspension =
      IndexedSkipListFactory::SuspendInPlaceUpdates(db.indexed_factory());
  std::unique_ptr<rocksdb::Iterator> counting(db->NewIterator(rocksdb::ReadOptions()));
  ASSERT_TRUE(db->Put({}, "b", "new b").ok());
  ASSERT_TRUE(db->Put({}, "a", "3rd a").ok());
  EXPECT_EQ(Db::Read(*counting),
            (std::map<std::string, std::string>{{"a", "new a"}, {"b", "old b"}}));
  EXPECT_EQ(db.ActiveEntries(), 4u);  // two new entries, the old ones untouched
  EXPECT_EQ(db.Get("a"), "3rd a");
  EXPECT_EQ(db.Get("b"), "new b");
  counting.reset();
  suspension.reset();

  ASSERT_TRUE(db->Put({}, "a", "4th a").ok());  // in place again, in the newest entry
  EXPECT_EQ(db.ActiveEntries(), 4u);
  EXPECT_EQ(db.All(), (std::map<std::string, std::string>{{"a", "4th a"}, {"b", "new b"}}));
  db.Close();
  db.Open();
  EXPECT_EQ(db.All(), (std::map<std::string, std::string>{{"a", "4th a"}, {"b", "new b"}}));
}

// Keys that are prefixes of one another, hold zero and high bytes, or take two length bytes.
std::vector<std::string> DifferentialKeys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back("key:" + std::to_string(i));
  for (const char* base : {"", "k", "key", "key:1"}) {
    const std::string prefix(base);
    keys.push_back(prefix + '\0');
    keys.push_back(prefix + "\x7f");
    keys.push_back(prefix + "\x80");
    keys.push_back(prefix + "\xff");
  }
  keys.push_back("key:");
  keys.push_back(std::string(126, 'k'));
  keys.push_back(std::string(127, 'k'));
  keys.push_back(std::string(200, 'k'));
  return keys;
}

// The same random batches, flushes, deletes and reopens (WAL replays) go to a database with
// RocksDB's memtable and to one with each of sluice's; every read and full iteration agrees.
TEST(IndexedMemtableTest, AgreesWithRocksDbSkiplistUnderRandomWrites) {
  TempDir plain_dir;
  TempDir indexed_dir;
  TempDir bytewise_dir;
  Db plain(plain_dir.path(), Memtable::kRocksDb);
  Db indexed(indexed_dir.path(), Memtable::kIndexed);
  Db bytewise(bytewise_dir.path(), Memtable::kBytewise);
  const std::vector<Db*> dbs = {&plain, &indexed, &bytewise};
  const std::vector<std::string> pool = DifferentialKeys();
  std::mt19937 rng(20261122);
  auto pick = [&rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto pick_key = [&] { return pool[static_cast<size_t>(pick(static_cast<int>(pool.size())))]; };

  for (int step = 0; step < 4000; ++step) {
    const std::string key = pick_key();
    const int op = pick(20);
    if (op == 0) {
      for (Db* db : dbs) ASSERT_TRUE((*db)->Delete({}, key).ok());
    } else if (op == 1 && step % 7 == 0) {
      for (Db* db : dbs) ASSERT_TRUE((*db)->Flush({}).ok());
    } else if (op == 2 && step % 11 == 0) {
      for (Db* db : dbs) db->Close();
      for (Db* db : dbs) db->Open();
    } else {
      // Several keys per batch, as the engine commits them; now and then a batch larger than
      // the searches PrefetchForUpdate runs at once, with keys repeated in it.
      rocksdb::WriteBatch batch;
      std::vector<std::string> keys;
      for (int n = pick(10) == 0 ? 20 + pick(40) : 1 + pick(4); n > 0; --n) {
        keys.push_back(pick_key());
        const std::string value(static_cast<size_t>(1 + pick(24)),
                                static_cast<char>('a' + pick(26)));
        ASSERT_TRUE(batch.Put(keys.back(), value).ok());
      }
      indexed.PrefetchForUpdate(keys);
      for (Db* db : dbs) ASSERT_TRUE((*db)->Write({}, &batch).ok());
    }
    for (Db* db : {&indexed, &bytewise}) {
      ASSERT_EQ(plain.Get(key), db->Get(key)) << "step " << step << " key " << key;
      if (step % 50 == 0) {
        ASSERT_EQ(plain.All(), db->All()) << "step " << step;
      }
    }
  }
  ASSERT_EQ(plain.All(), indexed.All());
  ASSERT_EQ(plain.All(), bytewise.All());
}

}  // namespace
}  // namespace sluice::storage
