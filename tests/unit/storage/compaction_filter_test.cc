#include "storage/compaction_filter.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/stackable_db.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

rocksdb::CompactionFilter::Context ManualContext() {
  rocksdb::CompactionFilter::Context context{};
  context.is_full_compaction = true;
  context.is_manual_compaction = true;
  context.column_family_id = 0;
  context.reason = rocksdb::TableFileCreationReason::kCompaction;
  return context;
}

bool Drops(const rocksdb::CompactionFilter& filter, const std::string& key,
           const std::string& value) {
  std::string new_value;
  bool changed = false;
  return filter.Filter(1, key, value, &new_value, &changed);
}

// --- The filters on their own -------------------------------------------------------------------

TEST(MetadataFilterTest, DropsOnlyRecordsExpiredAtCreationTime) {
  ManualClock clock(kStartMs * 1000);
  MetadataFilterFactory factory(&clock, std::make_shared<ExpiryHorizon>(),
                                std::make_shared<SharedExpiryHold>());
  std::unique_ptr<rocksdb::CompactionFilter> filter =
      factory.CreateCompactionFilter(ManualContext());
  clock.AdvanceMicros(1000000000);  // later clock moves do not affect a running compaction
  EXPECT_FALSE(Drops(*filter, "k", EncodeRecord(StringRecord("v"))));
  EXPECT_FALSE(Drops(*filter, "k", EncodeRecord(StringRecord("v", kStartMs))));  // at expiry
  EXPECT_TRUE(Drops(*filter, "k", EncodeRecord(StringRecord("v", kStartMs - 1))));
  EXPECT_TRUE(Drops(*filter, "k", EncodeRecord(CompositeRecord(KeyType::kHash, 1, 1, 5))));
  EXPECT_FALSE(Drops(*filter, "k", "garbage"));  // undecodable: kept
  EXPECT_FALSE(Drops(*filter, "k", ""));
  std::unique_ptr<rocksdb::CompactionFilter> later =
      factory.CreateCompactionFilter(ManualContext());
  EXPECT_TRUE(Drops(*later, "k", EncodeRecord(StringRecord("v", kStartMs))));
}

// While the loop holds the horizon (a batch under way), a compaction that starts keeps what
// expired since it; once released, compactions take the clock again.
TEST(MetadataFilterTest, NeverDropsPastTheLoopsHorizon) {
  ManualClock clock(kStartMs * 1000);
  auto horizon = std::make_shared<ExpiryHorizon>();
  MetadataFilterFactory factory(&clock, horizon, std::make_shared<SharedExpiryHold>());
  const std::string expiring = EncodeRecord(StringRecord("v", kStartMs));
  horizon->Hold(kStartMs);
  clock.AdvanceMicros(1000000);
  EXPECT_FALSE(Drops(*factory.CreateCompactionFilter(ManualContext()), "k", expiring));
  horizon->Release();
  EXPECT_TRUE(Drops(*factory.CreateCompactionFilter(ManualContext()), "k", expiring));
}

TEST(MetadataFilterTest, KeepsHeldLimitersAsTheHoldWasAtCreationTime) {
  ManualClock clock(kStartMs * 1000);
  auto hold = std::make_shared<SharedExpiryHold>();
  hold->Set(ExpiryHold{kStartMs - 100, kStartMs + 1000, nullptr});
  MetadataFilterFactory factory(&clock, std::make_shared<ExpiryHorizon>(), hold);
  std::unique_ptr<rocksdb::CompactionFilter> filter =
      factory.CreateCompactionFilter(ManualContext());
  hold->Set(std::nullopt);  // a running compaction keeps the hold it started with
  auto limiter = [](int64_t expire_at_ms) {
    return EncodeRecord(CompositeRecord(KeyType::kLimiter, 0, 0, expire_at_ms));
  };
  EXPECT_FALSE(Drops(*filter, "k", limiter(kStartMs - 100))) << "expiring at from_ms: held";
  EXPECT_TRUE(Drops(*filter, "k", limiter(kStartMs - 101))) << "expired before the hold";
  EXPECT_TRUE(Drops(*filter, "k", EncodeRecord(StringRecord("v", kStartMs - 50))))
      << "only limiters are held";
  std::unique_ptr<rocksdb::CompactionFilter> later =
      factory.CreateCompactionFilter(ManualContext());
  EXPECT_TRUE(Drops(*later, "k", limiter(kStartMs - 100))) << "the hold was lifted";
}

// Keeps the limiter records whose payload starts with 'P' (the server's filter reads its
// policies' states from the payload the same way).
class KeepsKindP final : public LimiterPayloadFilter {
 public:
  bool Keeps(std::string_view payload, int64_t) const override {
    return !payload.empty() && payload.front() == 'P';
  }
};

ExpiryHold HoldOfKindP(int64_t from_ms, int64_t until_ms) {
  return ExpiryHold{from_ms, until_ms, std::make_shared<KeepsKindP>()};
}

Record LimiterRecord(std::string payload, int64_t expire_at_ms) {
  Record record;
  record.meta.type = KeyType::kLimiter;
  record.meta.expire_at_ms = expire_at_ms;
  record.payload = std::move(payload);
  return record;
}

TEST(MetadataFilterTest, HoldsOnlyLimitersItsPayloadFilterKeeps) {
  ManualClock clock(kStartMs * 1000);
  auto hold = std::make_shared<SharedExpiryHold>();
  hold->Set(HoldOfKindP(kStartMs - 100, kStartMs + 1000));
  MetadataFilterFactory factory(&clock, std::make_shared<ExpiryHorizon>(), hold);
  std::unique_ptr<rocksdb::CompactionFilter> filter =
      factory.CreateCompactionFilter(ManualContext());
  EXPECT_FALSE(Drops(*filter, "k", EncodeRecord(LimiterRecord("P-states", kStartMs - 50))));
  EXPECT_TRUE(Drops(*filter, "k", EncodeRecord(LimiterRecord("T-state", kStartMs - 50))))
      << "another kind of limiter state expires on time";
  EXPECT_TRUE(Drops(*filter, "k", EncodeRecord(LimiterRecord("", kStartMs - 50))));
}

TEST(SubEntryFilterTest, KeepsEverythingWhileDetached) {
  ManualClock clock(kStartMs * 1000);
  auto source = std::make_shared<MetadataSource>();
  SubEntryFilterFactory factory(&clock, std::make_shared<ExpiryHorizon>(), source);
  std::unique_ptr<rocksdb::CompactionFilter> filter =
      factory.CreateCompactionFilter(ManualContext());
  EXPECT_FALSE(Drops(*filter, EncodeSubKey("h", 1, "f"), "v"));
  EXPECT_FALSE(Drops(*filter, "not a sub-key", "v"));
  Metadata meta;
  EXPECT_EQ(source->Get("h", 1, &meta), MetadataSource::Lookup::kUnknown);
}

// MOVE takes a key from one database's metadata family to another's in one batch, keeping its
// version. A compaction thread that asks for the owner while that happens must find it in one
// of them: reading the families one after the other, without a snapshot, it could read the
// destination before the batch and the source after it, find the owner nowhere, and drop the
// elements of a live hash.
TEST(SubEntryFilterTest, FindsAnOwnerThatMovesBetweenDatabasesWhileItLooks) {
  TempDir dir;
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {"db1", rocksdb::ColumnFamilyOptions()},
  };
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir.path() + "/db", families, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  const std::string record = EncodeRecord(CompositeRecord(KeyType::kHash, 7, 1));
  // Database 1 is looked at last: the owner starts there.
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[1], "h", record).ok());
  auto source = std::make_shared<MetadataSource>();
  source->Attach(db.get(), handles);

  std::atomic<bool> done{false};
  std::atomic<uint64_t> moves{0};
  std::thread mover([&] {
    rocksdb::WriteOptions write;
    write.disableWAL = true;
    for (int i = 0; i < 200000 && !done; ++i) {  // MOVE h back and forth
      rocksdb::WriteBatch batch;
      rocksdb::ColumnFamilyHandle* from = handles[(i + 1) % 2];
      rocksdb::ColumnFamilyHandle* to = handles[i % 2];
      if (!batch.Delete(from, "h").ok() || !batch.Put(to, "h", record).ok() ||
          !db->Write(write, &batch).ok()) {
        break;
      }
      ++moves;
    }
    done = true;
  });
  uint64_t missing = 0;
  uint64_t lookups = 0;
  while (!done && missing == 0) {
    Metadata meta;
    if (source->Get("h", 7, &meta) == MetadataSource::Lookup::kMissing) ++missing;
    ++lookups;
  }
  done = true;
  mover.join();
  EXPECT_EQ(missing, 0u) << "in " << lookups << " lookups during " << moves << " moves";
  source->Detach();
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
  }
  ASSERT_TRUE(db->Close().ok());
}

// A DB that, right after answering its first read, commits a MOVE of `key` from family
// `from` to family `to` (one batch, as the engine commits a client's MOVE): what a client's
// MOVE does when it commits between two of a compaction's reads.
class MovesAfterFirstRead final : public rocksdb::StackableDB {
 public:
  MovesAfterFirstRead(rocksdb::DB* db, std::string key, rocksdb::ColumnFamilyHandle* from,
                      rocksdb::ColumnFamilyHandle* to)
      : rocksdb::StackableDB(db), key_(std::move(key)), from_(from), to_(to) {}

  using rocksdb::StackableDB::Get;
  rocksdb::Status Get(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* family,
                      const rocksdb::Slice& key, rocksdb::PinnableSlice* value) override {
    rocksdb::Status s = rocksdb::StackableDB::Get(options, family, key, value);
    if (!moved_) {
      moved_ = true;
      std::string record;
      EXPECT_TRUE(rocksdb::StackableDB::Get(rocksdb::ReadOptions(), from_, key_, &record).ok());
      rocksdb::WriteBatch move;
      EXPECT_TRUE(move.Delete(from_, key_).ok());
      EXPECT_TRUE(move.Put(to_, key_, record).ok());
      EXPECT_TRUE(Write(rocksdb::WriteOptions(), &move).ok());
    }
    return s;
  }

 private:
  std::string key_;
  rocksdb::ColumnFamilyHandle* from_;
  rocksdb::ColumnFamilyHandle* to_;
  bool moved_ = false;
};

// A key MOVEd from database 1 to database 0 while a compaction looks for its owner: the lookup
// reads every database as of one moment, so it finds the key in one of them (reading each as it
// is at its turn, it missed the key in 0, then in 1, and dropped the hash's fields).
TEST(MetadataSourceTest, FindsAnOwnerMovedBetweenDatabasesDuringTheLookup) {
  TempDir dir;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {"db0", rocksdb::ColumnFamilyOptions()},
      {"db1", rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir.path() + "/db", families, &handles, &raw).ok());
  ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), handles[2], "h",
                       EncodeRecord(CompositeRecord(KeyType::kHash, 7, 1)))
                  .ok());
  {
    MovesAfterFirstRead db(raw, "h", /*from=*/handles[2], /*to=*/handles[1]);
    MetadataSource source;
    source.Attach(&db, {handles[1], handles[2]});  // database 0 is read first
    Metadata meta;
    EXPECT_EQ(source.Get("h", 7, &meta), MetadataSource::Lookup::kFound);
    EXPECT_EQ(meta.version, 7u);
    source.Detach();
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      EXPECT_TRUE(db.DestroyColumnFamilyHandle(handle).ok());
    }
  }  // db deletes raw
}

// --- Through the engine: what compaction leaves on disk ---------------------------------------

TEST_F(EngineTest, CompactionDropsExpiredKeysFromDisk) {
  for (int i = 0; i < 100; ++i) {
    engine_->Put("ttl:" + std::to_string(i), StringRecord("v", kStartMs + 1000));
  }
  for (int i = 0; i < 30; ++i) engine_->Put("forever:" + std::to_string(i), StringRecord("v"));
  for (int i = 0; i < 20; ++i) {
    engine_->Put("later:" + std::to_string(i), StringRecord("v", kStartMs + 3600000));
  }
  engine_->Put("limiter", CompositeRecord(KeyType::kLimiter, 0, 0, kStartMs + 500));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawEntries(), 151u);

  ASSERT_TRUE(engine_->CompactAll().ok());  // nothing has expired yet
  EXPECT_EQ(RawEntries(), 151u);
  EXPECT_GT(engine_->GetIntProperty("rocksdb.live-sst-files-size"), 0u);

  AdvanceMs(1000);  // at the expiry time itself: still alive
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 150u);  // only the limiter (expired at +500) is gone

  AdvanceMs(1);
  // Still on disk until compaction runs: the filter, not the reads, removes them.
  EXPECT_EQ(RawEntries(), 150u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 50u);
  EXPECT_FALSE(engine_->HasStagedWrites());
  EXPECT_TRUE(GetOrDie("forever:7").has_value());
  EXPECT_TRUE(GetOrDie("later:19").has_value());
  EXPECT_FALSE(GetOrDie("ttl:3").has_value());

  Reopen();  // and they stay gone
  EXPECT_EQ(RawEntries(), 50u);
}

TEST_F(EngineTest, HeldLimitersStayLiveUntilTheHoldEnds) {
  engine_->Put("early", CompositeRecord(KeyType::kLimiter, 0, 0, kStartMs + 10));
  engine_->Put("held", CompositeRecord(KeyType::kLimiter, 0, 0, kStartMs + 100));
  engine_->Put("string", StringRecord("v", kStartMs + 100));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->SetLimiterExpiryHold(ExpiryHold{kStartMs + 50, kStartMs + 1000, nullptr});
  AdvanceMs(500);
  EXPECT_FALSE(GetOrDie("early").has_value()) << "expired before the hold's start";
  EXPECT_FALSE(GetOrDie("string").has_value());
  EXPECT_TRUE(GetOrDie("held").has_value());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 0u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 1u) << "the compaction filter keeps it too";
  auto counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 1u);

  AdvanceMs(501);  // past until_ms
  EXPECT_FALSE(GetOrDie("held").has_value());
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 0u);
}

// Each path on its own keys, none of them read before: a read deletes what it finds expired.
TEST_F(EngineTest, LimitersAHoldsFilterLeavesExpireOnTime) {
  engine_->SetLimiterExpiryHold(HoldOfKindP(kStartMs, kStartMs + 10000));
  auto expire_in_100ms = [&](std::string_view kind, std::string_view key) {
    engine_->Put(key, LimiterRecord(std::string(kind) + "-state", NowMs() + 100));
    ASSERT_TRUE(engine_->Commit(false).ok());
  };
  expire_in_100ms("P", "policy");
  expire_in_100ms("T", "compacted");
  AdvanceMs(500);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 1u) << "the compaction filter drops the other kind";

  expire_in_100ms("T", "counted");
  AdvanceMs(500);
  auto counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 1u) << "DBSIZE skips it";

  expire_in_100ms("T", "swept");
  AdvanceMs(500);
  // "counted" and "swept": the active cycle takes both, never the held one.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 2u);
  ASSERT_TRUE(engine_->Commit(false).ok());

  expire_in_100ms("T", "read");
  AdvanceMs(500);
  EXPECT_FALSE(GetOrDie("read").has_value()) << "a read finds it expired";
  EXPECT_TRUE(GetOrDie("policy").has_value()) << "the held kind stays";
}

TEST_F(EngineTest, CompactionKeepsKeysRewrittenWithoutTtl) {
  PutAndCommit("k", StringRecord("old", kStartMs + 10));
  ASSERT_TRUE(engine_->CompactAll().ok());  // the TTL'd version now sits in an SST
  PutAndCommit("k", StringRecord("new"));   // rewritten without TTL, in the memtable
  AdvanceMs(100);
  ASSERT_TRUE(engine_->CompactAll().ok());
  std::optional<Record> got = GetOrDie("k");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->payload, "new");
  EXPECT_EQ(RawEntries(), 1u);
}

TEST_F(EngineTest, DroppedExpiredRecordDoesNotUncoverAnOlderOne) {
  PutAndCommit("k", StringRecord("old, no ttl"));
  ASSERT_TRUE(engine_->CompactAll().ok());
  PutAndCommit("k", StringRecord("new, ttl", kStartMs + 10));
  // The filter turns the expired newer version into a deletion, which must hide the old one
  // rather than let it reappear.
  AdvanceMs(11);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_FALSE(GetOrDie("k").has_value());
  EXPECT_EQ(RawEntries(), 0u);
}

// Writes a hash with `fields` fields and a zset with as many members under `key`'s versions.
void WriteComposite(Engine& engine, const std::string& key, KeyType type, uint64_t version,
                    int elements, int64_t expire_at_ms = 0) {
  engine.Put(key, CompositeRecord(type, version, static_cast<uint64_t>(elements), expire_at_ms));
  for (int i = 0; i < elements; ++i) {
    const std::string member = "m" + std::to_string(i);
    engine.PutSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, version, member), "1.5");
    if (type == KeyType::kZSet) {
      engine.PutSubEntry(SubFamily::kZScore, EncodeZScoreKey(key, version, 1.5, member), "");
    }
  }
}

TEST_F(EngineTest, CompactionDropsSubEntriesOfDeletedKeys) {
  WriteComposite(*engine_, "hash", KeyType::kHash, engine_->NextVersion(), 10);
  WriteComposite(*engine_, "zset", KeyType::kZSet, engine_->NextVersion(), 5);
  WriteComposite(*engine_, "keep", KeyType::kZSet, engine_->NextVersion(), 4);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // every owner alive: nothing dropped
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 19u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 9u);

  engine_->Delete("hash");  // one metadata write; the elements become garbage
  engine_->Delete("zset");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 19u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 4u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 4u);
  std::unique_ptr<SubEntryIterator> it = engine_->NewSubEntryIterator(SubFamily::kZScore, "");
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    EXPECT_EQ(DecodeZScoreKey(it->key())->user_key, "keep");
  }
}

TEST_F(EngineTest, CompactionDropsSubEntriesOfOldVersions) {
  const uint64_t v1 = engine_->NextVersion();
  WriteComposite(*engine_, "h", KeyType::kHash, v1, 6);
  ASSERT_TRUE(engine_->Commit(false).ok());
  // Re-created (e.g. DEL then HSET): a new version, old elements orphaned without a delete.
  const uint64_t v2 = engine_->NextVersion();
  ASSERT_GT(v2, v1);
  WriteComposite(*engine_, "h", KeyType::kHash, v2, 3);
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 9u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 3u);
  std::unique_ptr<SubEntryIterator> it =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, UserKeyPrefix("h"));
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++seen) {
    EXPECT_EQ(DecodeSubKey(it->key())->version, v2);
  }
  EXPECT_EQ(seen, 3);
}

TEST_F(EngineTest, CompactionDropsSubEntriesOfExpiredOrRetypedKeys) {
  WriteComposite(*engine_, "expiring", KeyType::kZSet, engine_->NextVersion(), 4, kStartMs + 100);
  const uint64_t retyped_version = engine_->NextVersion();
  WriteComposite(*engine_, "retyped", KeyType::kHash, retyped_version, 2);
  WriteComposite(*engine_, "alive", KeyType::kList, engine_->NextVersion(), 3, kStartMs + 1000000);
  ASSERT_TRUE(engine_->Commit(false).ok());
  // "retyped" becomes a string (SET over a hash): strings own no sub-entries, whatever the
  // version field would say.
  PutAndCommit("retyped", StringRecord("now a string"));
  // A sub-entry pointing at a limiter is garbage too.
  engine_->Put("limiter", CompositeRecord(KeyType::kLimiter, 0, 0));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("limiter", 0, "x"), "v");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 10u);

  AdvanceMs(101);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 3u);  // only "alive"'s
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
  EXPECT_EQ(RawEntries(), 3u);  // the expired zset's metadata went too
}

TEST_F(EngineTest, CompactionKeepsUndecodableSubEntries) {
  engine_->PutSubEntry(SubFamily::kSubkeys, "xy", "not a sub-key");
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
}

}  // namespace
}  // namespace sluice::storage::testing
