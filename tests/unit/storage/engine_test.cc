#include "storage/engine.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine_test_util.h"
#include "storage/background_errors.h"
#include "storage/key_encoding.h"
#include "storage/long_string.h"
#include "storage/rocksdb_engine.h"
#include "tests/unit/eventually.h"

namespace sluice::storage::testing {
namespace {

using namespace std::string_literals;

// The chunks a long string of `bytes` bytes (none of its chunks all zeros) is stored in.
uint64_t Chunks(uint64_t bytes) { return (bytes + kStringChunkBytes - 1) / kStringChunkBytes; }

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key:%04d", i);
  return buf;
}

// Pages through the whole key space, checking the per-page bound on the way.
std::vector<std::string> ScanAll(Engine& engine, size_t count, const ScanFilter& filter,
                                 int64_t now_ms, int* pages = nullptr) {
  std::vector<std::string> all;
  std::string cursor;
  for (int page_no = 1;; ++page_no) {
    StatusOr<ScanPage> page = engine.Scan(cursor, count, filter, now_ms);
    EXPECT_TRUE(page.ok()) << page.status().message();
    if (!page.ok()) break;
    // At most `count` keys examined (0 counts as 1), the empty key for free.
    const bool has_empty_key =
        std::find(page->keys.begin(), page->keys.end(), "") != page->keys.end();
    EXPECT_LE(page->keys.size(), std::max<size_t>(count, 1) + (has_empty_key ? 1 : 0));
    all.insert(all.end(), page->keys.begin(), page->keys.end());
    if (pages != nullptr) *pages = page_no;
    if (page->done) break;
    EXPECT_FALSE(page->last_key.empty());
    cursor = page->last_key;
    if (page_no > 100000) {
      ADD_FAILURE() << "scan does not terminate";
      break;
    }
  }
  return all;
}

// --- Open --------------------------------------------------------------------------------------

TEST_F(EngineTest, OpenCreatesMissingNestedDirectory) {
  EngineOptions options = Options();
  options.dir = dir_.path() + "/a/b/c";
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options, &clock_);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  EXPECT_TRUE(std::filesystem::is_directory(options.dir));
  EXPECT_TRUE((*engine)->BackgroundError().ok());
}

TEST_F(EngineTest, SecondOpenOfSameDirFailsWithClearMessage) {
  StatusOr<std::unique_ptr<Engine>> second = Engine::Open(Options(), &clock_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "dir '" + Options().dir + "' is locked by another sluiced process");
  // The first engine is unaffected.
  PutAndCommit("k", StringRecord("v"));
  EXPECT_TRUE(GetOrDie("k").has_value());
}

TEST_F(EngineTest, OpenOnAFileFails) {
  const std::string file = dir_.path() + "/file";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  EngineOptions options = Options();
  options.dir = file;
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options, &clock_);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find(file), std::string::npos);
}

// --- Records and staging ------------------------------------------------------------------------

TEST_F(EngineTest, PutGetDelete) {
  EXPECT_FALSE(GetOrDie("k").has_value());
  PutAndCommit("k", StringRecord("v1"));
  std::optional<Record> got = GetOrDie("k");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->meta.type, KeyType::kString);
  EXPECT_EQ(got->payload, "v1");
  PutAndCommit("k", StringRecord("v2"));
  EXPECT_EQ(GetOrDie("k")->payload, "v2");

  StatusOr<std::optional<Metadata>> meta = engine_->GetMetadata("k", NowMs());
  ASSERT_TRUE(meta.ok());
  ASSERT_TRUE(meta->has_value());
  EXPECT_EQ((*meta)->type, KeyType::kString);

  engine_->Delete("k");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_FALSE(GetOrDie("k").has_value());
  StatusOr<std::optional<Metadata>> gone = engine_->GetMetadata("k", NowMs());
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

// A string longer than the engine keeps inline lives in a sub-entry: the key space's walks
// (active expiry, SCAN, DBSIZE) read a small record, never its bytes, and a rewrite or a
// deletion leaves the old bytes to the compaction filter.
TEST_F(EngineTest, LongStringsKeepTheirBytesOutsideTheKeySpace) {
  std::string long_value(100 * 1024, '\0');
  for (size_t i = 0; i < long_value.size(); ++i) long_value[i] = static_cast<char>(i * 131 % 251);
  PutAndCommit("long", StringRecord(long_value, kStartMs + 60000));
  std::optional<Record> got = GetOrDie("long");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->payload, long_value);
  EXPECT_EQ(got->meta.expire_at_ms, kStartMs + 60000);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), Chunks(long_value.size()));

  // The key space holds a header of 26 bytes: what a walk reads of this key, whatever its size.
  EXPECT_EQ(RawEntries(), 1u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 0u);
  EXPECT_EQ(GetOrDie("long")->payload, long_value);  // from a table file now

  PutAndCommit("long", StringRecord("short"));
  EXPECT_EQ(GetOrDie("long")->payload, "short");
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  PutAndCommit("long", StringRecord(long_value));
  PutAndCommit("long", StringRecord(long_value + "!"));
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), Chunks(long_value.size() + 1));
  Reopen();
  EXPECT_EQ(GetOrDie("long")->payload, long_value + "!");

  engine_->Delete("long");
  PutAndCommit("expiring", StringRecord(long_value, kStartMs + 1000));
  AdvanceMs(2000);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_FALSE(GetOrDie("long").has_value());
  EXPECT_FALSE(GetOrDie("expiring").has_value());
}

// A command that needs only a long string's metadata (TYPE, TTL, STRLEN) or changes only it
// (EXPIRE) reads and writes its record alone: the bytes stay in their sub-entry, unread and
// under the same version, committed or still staged.
TEST_F(EngineTest, ALongStringsMetadataIsReadAndRewrittenWithoutItsBytes) {
  const std::string long_value(40 * 1024, 'y');
  PutAndCommit("long", StringRecord(long_value));
  const auto ReadWithoutBytes = [&](std::string_view key) {
    StatusOr<std::optional<RecordView>> view = engine_->GetViewWithoutLongPayload(key, NowMs());
    EXPECT_TRUE(view.ok() && view->has_value());
    return Record{(*view)->meta, std::string((*view)->payload)};
  };
  Record record = ReadWithoutBytes("long");
  EXPECT_TRUE(record.meta.payload_outside);
  EXPECT_EQ(record.meta.size, long_value.size());
  EXPECT_EQ(record.payload, "");
  const uint64_t version = record.meta.version;

  record.meta.expire_at_ms = kStartMs + 60000;
  engine_->PutWithoutLongPayload("long", record);
  EXPECT_EQ(GetOrDie("long")->payload, long_value);  // staged
  ASSERT_TRUE(engine_->Commit(false).ok());
  std::optional<Record> got = GetOrDie("long");
  EXPECT_EQ(got->payload, long_value);
  EXPECT_EQ(got->meta.expire_at_ms, kStartMs + 60000);
  EXPECT_EQ(got->meta.version, version);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), Chunks(long_value.size()));  // no second copy

  // Staged in the same batch as the string itself, and then compacted after a reopen.
  engine_->Put("new", StringRecord(long_value + "!"));
  Record staged = ReadWithoutBytes("new");
  staged.meta.expire_at_ms = kStartMs + 90000;
  engine_->PutWithoutLongPayload("new", staged);
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys),
            Chunks(long_value.size()) + Chunks(long_value.size() + 1));
  EXPECT_EQ(GetOrDie("new")->payload, long_value + "!");
  EXPECT_EQ(GetOrDie("new")->meta.expire_at_ms, kStartMs + 90000);
  EXPECT_EQ(GetOrDie("long")->payload, long_value);

  // A short string goes through Put as usual.
  PutAndCommit("short", StringRecord("abc"));
  Record short_record = ReadWithoutBytes("short");
  EXPECT_EQ(short_record.payload, "abc");
  short_record.meta.expire_at_ms = kStartMs + 5000;
  engine_->PutWithoutLongPayload("short", short_record);
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(GetOrDie("short")->payload, "abc");
  EXPECT_EQ(GetOrDie("short")->meta.expire_at_ms, kStartMs + 5000);
}

// --- Versions ----------------------------------------------------------------------------------

// The clock stands still across each reopen here, as the test clock frozen at one time does in
// two runs of a server (or a clock set back): the versions before it are still in use by
// elements that wait for compaction.
TEST_F(EngineTest, VersionsAreNeverHandedOutAgainAfterAReopen) {
  const uint64_t before = engine_->NextVersion();
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  const uint64_t after = engine_->NextVersion();
  EXPECT_GT(after, before);
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_GT(engine_->NextVersion(), after);
}

TEST_F(EngineTest, AVersionCeilingLostWithItsBatchIsStagedAgain) {
  const uint64_t discarded = engine_->NextVersion();
  engine_->DiscardStaged();
  const uint64_t logged = engine_->NextVersion();
  EXPECT_GT(logged, discarded);
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_GT(engine_->NextVersion(), logged);
}

TEST_F(EngineTest, ADeletedLongStringsBytesStayGoneUnderTheSameClock) {
  const std::string long_value(20 * 1024, 'x');
  PutAndCommit("big", StringRecord(long_value));
  engine_->Delete("big");
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  // The new string's bytes are a sub-entry under a fresh version, not the deleted one's.
  PutAndCommit("big", StringRecord(long_value + "!"));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys),
            Chunks(long_value.size()) + Chunks(long_value.size() + 1));
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), Chunks(long_value.size() + 1));
  EXPECT_EQ(GetOrDie("big")->payload, long_value + "!");
}

TEST_F(EngineTest, BinaryKeysAndValues) {
  const std::string key = "\0k\xff"s;
  PutAndCommit(key, StringRecord("\0\x01\xff"s));
  EXPECT_EQ(GetOrDie(key)->payload, "\0\x01\xff"s);
  EXPECT_FALSE(GetOrDie("\0k"s).has_value());
}

TEST_F(EngineTest, StagedWritesAreVisibleBeforeCommitAndLostWithoutIt) {
  EXPECT_FALSE(engine_->HasStagedWrites());
  engine_->Put("staged", StringRecord("v"));
  EXPECT_TRUE(engine_->HasStagedWrites());
  EXPECT_EQ(GetOrDie("staged")->payload, "v");
  EXPECT_EQ(RawEntries(), 0u);  // nothing in the database yet
  Reopen();                     // never committed: gone
  EXPECT_FALSE(GetOrDie("staged").has_value());
}

TEST_F(EngineTest, CommittedWritesSurviveReopen) {
  engine_->Put("a", StringRecord("1"));
  engine_->Put("b", StringRecord("2", kStartMs + 60000));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->Put("c", StringRecord("3"));
  engine_->Delete("a");
  ASSERT_TRUE(engine_->Commit(true).ok());
  EXPECT_FALSE(engine_->HasStagedWrites());
  Reopen();
  EXPECT_FALSE(GetOrDie("a").has_value());
  ASSERT_TRUE(GetOrDie("b").has_value());
  EXPECT_EQ(GetOrDie("b")->meta.expire_at_ms, kStartMs + 60000);
  EXPECT_EQ(GetOrDie("c")->payload, "3");
  EXPECT_TRUE(engine_->SyncWal().ok());
}

TEST_F(EngineTest, StagedDeleteHidesCommittedKey) {
  PutAndCommit("k", StringRecord("v"));
  engine_->Delete("k");
  EXPECT_FALSE(GetOrDie("k").has_value());
  engine_->DiscardStaged();
  EXPECT_TRUE(GetOrDie("k").has_value());
}

TEST_F(EngineTest, DiscardStagedDropsEverythingStaged) {
  PutAndCommit("kept", StringRecord("v"));
  engine_->Put("dropped", StringRecord("x"));
  engine_->Put("kept", StringRecord("overwritten"));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "f"), "v");
  engine_->DiscardStaged();
  EXPECT_FALSE(engine_->HasStagedWrites());
  EXPECT_FALSE(GetOrDie("dropped").has_value());
  EXPECT_EQ(GetOrDie("kept")->payload, "v");
  StatusOr<std::optional<std::string>> sub =
      engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "f"));
  ASSERT_TRUE(sub.ok());
  EXPECT_FALSE(sub->has_value());
  EXPECT_TRUE(engine_->Commit(true).ok());  // nothing to commit is fine
  Reopen();
  EXPECT_FALSE(GetOrDie("dropped").has_value());
}

TEST_F(EngineTest, CorruptRecordIsAnErrorNotACrash) {
  engine_.reset();
  {  // Write garbage under a key behind the engine's back.
    rocksdb::DBOptions db_options = MakeDbOptions(Options());
    rocksdb::ColumnFamilyOptions cf_options = MakeColumnFamilyOptions(Options(), nullptr);
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, cf_options},
        {kSubkeysFamilyName, cf_options},
        {kZScoreFamilyName, cf_options},
        {kSystemFamilyName, cf_options}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(db_options, Options().dir, families, &handles, &db).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[0], "bad", "\x09\x01xyz").ok());
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), handles[0], "good", EncodeRecord(StringRecord("v"))).ok());
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    ASSERT_TRUE(db->Close().ok());
    delete db;
  }
  Reopen();
  StatusOr<std::optional<Record>> bad = engine_->Get("bad", NowMs());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("corrupt"), std::string::npos);
  EXPECT_FALSE(engine_->GetMetadata("bad", NowMs()).ok());
  // Key-space walks still list it, so it can be seen and deleted.
  StatusOr<std::vector<std::string>> keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"bad", "good"}));
  ScanFilter strings;
  strings.type = KeyType::kString;
  EXPECT_EQ(ScanAll(*engine_, 10, strings, NowMs()), std::vector<std::string>{"good"});
  // The compaction filter keeps what it cannot decode.
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 2u);
  engine_->Delete("bad");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawEntries(), 1u);
}

// --- Lazy expiry ----------------------------------------------------------------------------

TEST_F(EngineTest, LazyExpiryHidesAndStagesTheSweptRecord) {
  PutAndCommit("ttl", StringRecord("v", kStartMs + 1000));
  PutAndCommit("forever", StringRecord("v"));
  AdvanceMs(1000);  // at the expiry time itself the key still exists
  EXPECT_TRUE(GetOrDie("ttl").has_value());
  EXPECT_FALSE(engine_->HasStagedWrites());
  AdvanceMs(1);
  EXPECT_FALSE(GetOrDie("ttl").has_value());
  EXPECT_TRUE(engine_->HasStagedWrites());  // the swept record, staged by the read
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_FALSE(GetOrDie("ttl").has_value());
  EXPECT_FALSE(engine_->HasStagedWrites());  // swept once: reads pass it
  EXPECT_EQ(RawEntries(), 2u);               // until a compaction drops it
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 1u);
  EXPECT_TRUE(GetOrDie("forever").has_value());
}

// A key that expires and is written again keeps one memtable entry, rewritten in place each
// time, whether a read or the active cycle found it expired (a tombstone and the write after
// it would each be an entry of their own). A record too large to rewrite whole is deleted.
TEST_F(EngineTest, AnExpiredKeyWrittenAgainKeepsItsMemtableEntry) {
  auto entries = [&] {
    return engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table");
  };
  PutAndCommit("read", StringRecord("v", NowMs() + 10));
  PutAndCommit("cycled", StringRecord("v", NowMs() + 10));
  ASSERT_EQ(entries(), 2u);
  for (int round = 0; round < 3; ++round) {
    AdvanceMs(11);
    EXPECT_FALSE(GetOrDie("read").has_value());
    ASSERT_TRUE(engine_->Commit(false).ok());
    EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 1u);  // "cycled"; "read" is swept
    ASSERT_TRUE(engine_->Commit(false).ok());
    PutAndCommit("read", StringRecord("w", NowMs() + 10));
    PutAndCommit("cycled", StringRecord("w", NowMs() + 10));
  }
  EXPECT_EQ(entries(), 2u);

  // A string record is its 10-byte header and its bytes.
  const std::string largest(kLargestSweptRecordBytes - kSimpleHeaderBytes, 'x');
  PutAndCommit("largest", StringRecord(largest, NowMs() + 10));
  PutAndCommit("larger", StringRecord(largest + "x", NowMs() + 10));
  AdvanceMs(11);
  EXPECT_FALSE(GetOrDie("largest").has_value());
  EXPECT_FALSE(GetOrDie("larger").has_value());
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-deletes-active-mem-table"), 1u);
  EXPECT_EQ(entries(), 5u);  // "larger"'s tombstone
}

// The exact counts pass swept records as they pass tombstones, within the bound on passed
// entries, not the bound on records read: a few live keys among many removed are counted.
TEST_F(EngineTest, KeyCountsPassSweptRecordsAsTombstones) {
  for (int i = 0; i < 2000; ++i) engine_->Put(Key(i), StringRecord("v", kStartMs + 10));
  for (int i = 0; i < 50; ++i) engine_->Put("zz" + std::to_string(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  for (int i = 0; i < 2000; ++i) EXPECT_FALSE(GetOrDie(Key(i)).has_value());
  ASSERT_TRUE(engine_->Commit(false).ok());
  StatusOr<std::optional<Engine::KeyCounts>> counts = engine_->CountKeysUpTo(1000, NowMs());
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  ASSERT_TRUE(counts->has_value());
  EXPECT_EQ((*counts)->keys, 50u);
}

TEST_F(EngineTest, LazyExpiryInGetMetadata) {
  PutAndCommit("h", CompositeRecord(KeyType::kHash, 7, 3, kStartMs + 10));
  StatusOr<std::optional<Metadata>> meta = engine_->GetMetadata("h", NowMs());
  ASSERT_TRUE(meta.ok() && meta->has_value());
  EXPECT_EQ((*meta)->version, 7u);
  EXPECT_EQ((*meta)->size, 3u);
  AdvanceMs(11);
  meta = engine_->GetMetadata("h", NowMs());
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(meta->has_value());
  EXPECT_TRUE(engine_->HasStagedWrites());
}

// --- Key space --------------------------------------------------------------------------------

TEST_F(EngineTest, ScanWithSmallCountCoversEveryKeyExactlyOnce) {
  std::set<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    engine_->Put(Key(i), StringRecord("v"));
    expected.insert(Key(i));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  // Some staged changes too: the scan sees them.
  engine_->Put("key:staged", StringRecord("v"));
  expected.insert("key:staged");
  engine_->Delete(Key(7));
  expected.erase(Key(7));

  for (size_t count : {1u, 7u, 10u, 1000u}) {
    SCOPED_TRACE(count);
    int pages = 0;
    std::vector<std::string> all = ScanAll(*engine_, count, ScanFilter{}, NowMs(), &pages);
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), expected);
    EXPECT_EQ(all.size(), expected.size());  // no duplicates
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_GE(static_cast<size_t>(pages), expected.size() / count);
  }
}

TEST_F(EngineTest, ScanExaminesAtMostCountEntries) {
  for (int i = 0; i < 20; ++i) {
    engine_->Put(Key(i), StringRecord("v", i < 15 ? kStartMs + 5 : 0));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(6);  // keys 0..14 expired
  StatusOr<ScanPage> page = engine_->Scan("", 10, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->keys.empty());  // ten expired entries examined, none returned
  EXPECT_FALSE(page->done);
  EXPECT_EQ(page->last_key, Key(9));
  page = engine_->Scan(page->last_key, 10, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->keys, (std::vector<std::string>{Key(15), Key(16), Key(17), Key(18), Key(19)}));
  EXPECT_TRUE(page->done);
}

TEST_F(EngineTest, ScanMatchAndTypeFilters) {
  engine_->Put("user:1", StringRecord("v"));
  engine_->Put("user:2", CompositeRecord(KeyType::kHash, 1, 0));
  engine_->Put("user:10", StringRecord("v", kStartMs + 1));  // expires
  engine_->Put("rl:api:1", CompositeRecord(KeyType::kLimiter, 0, 0));
  engine_->Put("rl:api:2", CompositeRecord(KeyType::kLimiter, 0, 0));
  engine_->Put("other", StringRecord("v"));
  engine_->Put("", StringRecord("empty key"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(2);

  auto scan = [&](std::string_view match, std::optional<KeyType> type, size_t count) {
    ScanFilter filter;
    filter.match = match;
    filter.type = type;
    return ScanAll(*engine_, count, filter, NowMs());
  };
  using V = std::vector<std::string>;
  for (size_t count : {1u, 2u, 100u}) {
    SCOPED_TRACE(count);
    EXPECT_EQ(scan("user:*", std::nullopt, count), (V{"user:1", "user:2"}));
    EXPECT_EQ(scan("*:1", std::nullopt, count), (V{"rl:api:1", "user:1"}));
    EXPECT_EQ(scan("rl:*", KeyType::kLimiter, count), (V{"rl:api:1", "rl:api:2"}));
    EXPECT_EQ(scan("*", KeyType::kString, count), (V{"", "other", "user:1"}));
    EXPECT_EQ(scan("", std::nullopt, count), V{""});  // the empty pattern: the empty key only
    EXPECT_EQ(scan("*", KeyType::kHash, count), (V{"user:2"}));
    EXPECT_EQ(scan("*", KeyType::kZSet, count), V{});
    EXPECT_EQ(scan("nomatch*", std::nullopt, count), V{});
    EXPECT_EQ(scan("*", std::nullopt, count),
              (V{"", "other", "rl:api:1", "rl:api:2", "user:1", "user:2"}));
  }
}

TEST_F(EngineTest, ScanNeverEndsAPageOnTheEmptyKey) {
  engine_->Put("", StringRecord("v"));
  engine_->Put("a", StringRecord("v"));
  engine_->Put("b", StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  StatusOr<ScanPage> first = engine_->Scan("", 1, ScanFilter{}, NowMs());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->keys, (std::vector<std::string>{"", "a"}));
  EXPECT_EQ(first->last_key, "a");
  EXPECT_EQ(ScanAll(*engine_, 1, ScanFilter{}, NowMs()), (std::vector<std::string>{"", "a", "b"}));
  // A count of 0 still makes progress.
  EXPECT_EQ(ScanAll(*engine_, 0, ScanFilter{}, NowMs()).size(), 3u);
}

TEST_F(EngineTest, KeysMatchesLiveKeys) {
  engine_->Put("a1", StringRecord("v"));
  engine_->Put("a2", StringRecord("v", kStartMs + 1));
  engine_->Put("b1", StringRecord("v"));
  engine_->Put("", StringRecord("v"));
  engine_->Put("\xff\xff"s, StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->Put("a3", StringRecord("staged"));
  AdvanceMs(2);
  using V = std::vector<std::string>;
  auto keys = [&](std::string_view pattern) {
    StatusOr<V> k = engine_->Keys(pattern, NowMs());
    EXPECT_TRUE(k.ok());
    return k.ok() ? *k : V{};
  };
  EXPECT_EQ(keys("*"), (V{"", "a1", "a3", "b1", "\xff\xff"s}));
  EXPECT_EQ(keys("a*"), (V{"a1", "a3"}));
  EXPECT_EQ(keys("?1"), (V{"a1", "b1"}));
  EXPECT_EQ(keys("[ab]1"), (V{"a1", "b1"}));
  EXPECT_EQ(keys("\xff*"s), (V{"\xff\xff"s}));
  EXPECT_EQ(keys(""), (V{""}));  // as Redis: the empty pattern matches the empty key only
  EXPECT_EQ(keys("c*"), V{});
}

TEST_F(EngineTest, CountKeysCountsLiveKeysAndExpiries) {
  engine_->Put("a", StringRecord("v"));
  engine_->Put("b", StringRecord("v", kStartMs + 100));
  engine_->Put("c", StringRecord("v", kStartMs + 200));
  engine_->Put("h", CompositeRecord(KeyType::kHash, 1, 2, kStartMs + 300));
  ASSERT_TRUE(engine_->Commit(false).ok());
  StatusOr<Engine::KeyCounts> counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 4u);
  EXPECT_EQ(counts->expires, 3u);
  AdvanceMs(150);
  counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 3u);
  EXPECT_EQ(counts->expires, 2u);
  engine_->Put("d", StringRecord("staged"));
  counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 4u);
}

// GetView counts what it finds while the counter is on: a hit, a miss, an expired key as a miss.
TEST_F(EngineTest, LookupsAreCountedOnlyWhileTheCounterIsOn) {
  LookupCounter counter;
  engine_->set_lookup_counter(&counter);
  engine_->Put("a", StringRecord("v"));
  engine_->Put("b", StringRecord("v", kStartMs + 100));
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->GetView("a", NowMs()).ok());  // off: not counted
  counter.on = true;
  ASSERT_TRUE(engine_->GetView("a", NowMs()).ok());
  ASSERT_TRUE(engine_->GetMetadata("missing", NowMs()).ok());
  AdvanceMs(150);
  ASSERT_TRUE(engine_->Get("b", NowMs()).ok());  // expired
  EXPECT_EQ(counter.hits, 1u);
  EXPECT_EQ(counter.misses, 2u);
  engine_->set_lookup_counter(nullptr);
}

// SCAN ... TYPE looks up each key it passes, as Redis does, and counts an expired one as a
// miss; a key already removed (its record swept) is not there to look up.
TEST_F(EngineTest, AScanByTypeLooksUpNoSweptRecord) {
  LookupCounter counter;
  engine_->set_lookup_counter(&counter);
  engine_->Put("expired", StringRecord("v", kStartMs + 100));
  engine_->Put("live", StringRecord("v"));
  engine_->Put("swept", StringRecord("v", kStartMs + 100));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(150);
  EXPECT_FALSE(GetOrDie("swept").has_value());
  ASSERT_TRUE(engine_->Commit(false).ok());
  counter.on = true;
  ScanFilter strings;
  strings.type = KeyType::kString;
  StatusOr<ScanPage> page = engine_->Scan("", 10, strings, NowMs());
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->keys, std::vector<std::string>{"live"});
  EXPECT_EQ(counter.hits, 1u);
  EXPECT_EQ(counter.misses, 1u);  // "expired"
  engine_->set_lookup_counter(nullptr);
}

// The count off the loop thread (DBSIZE of a large key space) counts what CountKeys counts
// of the committed records, on the counter's thread.
TEST_F(EngineTest, StartKeyCountCountsTheCommittedKeysOnItsThread) {
  engine_->Put("a", StringRecord("v"));
  engine_->Put("b", StringRecord("v", kStartMs + 100));
  engine_->Put("c", StringRecord("v", kStartMs + 200));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->Put("staged", StringRecord("v"));  // not committed: not in the count
  AdvanceMs(150);
  std::promise<std::pair<StatusOr<Engine::KeyCounts>, std::thread::id>> result;
  ASSERT_TRUE(engine_->StartKeyCount(NowMs(), [&](StatusOr<Engine::KeyCounts> counts) {
    result.set_value({std::move(counts), std::this_thread::get_id()});
  }));
  auto [counts, thread] = result.get_future().get();
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->keys, 2u);  // "b" has expired
  EXPECT_EQ(counts->expires, 1u);
  EXPECT_NE(thread, std::this_thread::get_id());
}

// RocksDB rewrites a memtable entry in place under a lock its iterators do not take, and
// keeps the entry's sequence number: the count's thread could read a record half rewritten
// (the active cycle sweeping an expired key: DBSIZE once counted one such key as live), or a
// version newer than its start. While a count is under way a write adds a new version.
TEST_F(EngineTest, AKeyCountUnderWayLeavesTheRecordsItReadsAsTheyAre) {
  engine_->Put("a", StringRecord("v1"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  const uint64_t entries = engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table");
  std::promise<StatusOr<Engine::KeyCounts>> result;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  // Lets the count end however the test does: a failed assertion returns early, and a count
  // left waiting would hold the engine's destructor for good.
  struct Releaser {
    std::promise<void>& release;
    ~Releaser() { release.set_value(); }
  } releaser{release};
  ASSERT_TRUE(
      engine_->StartKeyCount(NowMs(), [&result, released](StatusOr<Engine::KeyCounts> counts) {
        result.set_value(std::move(counts));
        released.wait();  // the count stays under way
      }));
  StatusOr<Engine::KeyCounts> counts = result.get_future().get();
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts->keys, 1u);
  engine_->Put("a", StringRecord("v2"));  // the same size: in place but for the count
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), entries + 1);
  EXPECT_EQ(GetOrDie("a")->payload, "v2");
}

// A key space too large to count on the loop thread is estimated as Redis counts, expired
// keys not removed yet included: RocksDB's record count, and the share with an expiry in a
// sample read where the key space's files begin and at keys drawn from its memtable. Keys with
// an expiry alternate with keys without, in the files and in the memtable.
TEST_F(EngineTest, EstimateKeysIsNearTheCountOfRecords) {
  auto put = [&](int from, int to, int64_t expire_at_ms) {
    for (int i = from; i < to; ++i) {
      engine_->Put(Key(i), StringRecord("v", i % 2 == 0 ? expire_at_ms : 0));
    }
    ASSERT_TRUE(engine_->Commit(false).ok());
  };
  put(0, 30000, kStartMs + 60000);
  ASSERT_TRUE(engine_->CompactAll().ok());  // in files
  put(30000, 40000, kStartMs + 60000);      // in the memtable
  put(40000, 50000, kStartMs + 10);
  AdvanceMs(11);  // 5,000 of those have expired
  StatusOr<Engine::KeyCounts> estimate = engine_->EstimateKeys();
  ASSERT_TRUE(estimate.ok()) << estimate.status().message();
  EXPECT_NEAR(static_cast<double>(estimate->keys), 50000, 50000 * 0.1);
  EXPECT_NEAR(static_cast<double>(estimate->expires), 25000, 25000 * 0.2);
}

// Keys removed once expired are not counted, as Redis would no longer count them: their
// swept records stay in the memtable (and RocksDB's record count) until a compaction.
TEST_F(EngineTest, EstimateKeysLeavesOutSweptRecords) {
  write_buffer_bytes_ = 64 << 20;  // the memtable holds every swept record
  Reopen();
  for (int i = 0; i < 30000; ++i) engine_->Put(Key(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // in files
  for (int i = 30000; i < 50000; ++i) {
    engine_->Put(Key(i), StringRecord("v", i % 2 == 0 ? kStartMs + 10 : kStartMs + 60000));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  for (int i = 30000; i < 50000; i += 2) EXPECT_FALSE(GetOrDie(Key(i)).has_value());
  ASSERT_TRUE(engine_->Commit(false).ok());  // the reads' swept records
  ASSERT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 20000u);
  StatusOr<Engine::KeyCounts> estimate = engine_->EstimateKeys();
  ASSERT_TRUE(estimate.ok()) << estimate.status().message();
  EXPECT_NEAR(static_cast<double>(estimate->keys), 40000, 40000 * 0.1);  // 50,000 records
}

// How many internal entries (tombstones, older versions) RocksDB's iterators on this thread
// pass over while `read` runs.
uint64_t InternalEntriesSkipped(const std::function<void()>& read) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  read();
  const rocksdb::PerfContext* pc = rocksdb::get_perf_context();
  const uint64_t skipped = pc->internal_key_skipped_count + pc->internal_delete_skipped_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  return skipped;
}

// After a mass expiry the deleted keys stay as tombstones until compaction. INFO keyspace and
// /metrics count and sample keys on the loop thread: neither may walk every tombstone (one
// INFO took up to 1.2 s of the loop after a benchmark's limiter keys had expired).
TEST_F(EngineTest, KeyCountsPassTombstonesOnlyUpToABound) {
  constexpr int kDeleted = 50000;
  for (int i = 0; i < kDeleted; ++i) engine_->Put(Key(i), StringRecord("v"));
  for (int i = 0; i < 100; ++i) engine_->Put("zz" + std::to_string(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int i = 0; i < kDeleted; ++i) engine_->Delete(Key(i));
  ASSERT_TRUE(engine_->Commit(false).ok());

  // The exact count on the loop gives up (INFO then estimates, DBSIZE counts off the loop)...
  // (About 100,000 internal entries: a count of up to 1,000 records may pass 10,000.)
  StatusOr<std::optional<Engine::KeyCounts>> bounded = Err("not run");
  const uint64_t skipped_counting =
      InternalEntriesSkipped([&] { bounded = engine_->CountKeysUpTo(1000, NowMs()); });
  ASSERT_TRUE(bounded.ok()) << bounded.status().message();
  EXPECT_FALSE(bounded->has_value());
  EXPECT_LE(skipped_counting, 2u * 1000 * 10);
  // ... and the estimate's sample reads at most 16 records' worth of entries at each of its
  // points: at most 64 drawn from the memtable and 64 where files begin.
  StatusOr<Engine::KeyCounts> estimate = Err("not run");
  const uint64_t skipped_estimating =
      InternalEntriesSkipped([&] { estimate = engine_->EstimateKeys(); });
  ASSERT_TRUE(estimate.ok()) << estimate.status().message();
  EXPECT_LE(skipped_estimating, 128u * 2 * 16 * 10);
  // A count with no bound (DBSIZE inside MULTI) still walks them all.
  StatusOr<Engine::KeyCounts> counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 100u);
  // A few tombstones are passed and the count is exact.
  for (int i = 0; i < 100; ++i) engine_->Delete("zz" + std::to_string(i));
  for (int i = 0; i < 50; ++i) engine_->Put("zzz" + std::to_string(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // the 50,000 tombstones go
  for (int i = 0; i < 50; ++i) engine_->Delete("zzz" + std::to_string(i));
  engine_->Put("zzzz", StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  bounded = engine_->CountKeysUpTo(10000, NowMs());
  ASSERT_TRUE(bounded.ok() && bounded->has_value());
  EXPECT_EQ((*bounded)->keys, 1u);
}

// As Redis's: after a FLUSHALL or DEL of a few thousand keys, the first SCAN of the empty
// database is its last (an empty page and cursor 0), though its tombstones are many more than
// a page of 10 keys passes.
TEST_F(EngineTest, ScanOfADatabaseEmptiedOfAFewThousandKeysEndsAtOnce) {
  constexpr int kDeleted = 3000;
  for (int i = 0; i < kDeleted; ++i) engine_->Put(Key(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int i = 0; i < kDeleted; ++i) engine_->Delete(Key(i));
  ASSERT_TRUE(engine_->Commit(false).ok());
  StatusOr<ScanPage> page = engine_->Scan("", 10, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_TRUE(page->keys.empty());
  EXPECT_TRUE(page->done);
}

// SCAN (and RANDOMKEY, which pages with it) after a mass expiry: a page passes a bounded
// number of tombstones and ends where it stopped, and the pages still reach every live key.
TEST_F(EngineTest, ScanPagesPassTombstonesOnlyUpToABound) {
  constexpr int kDeleted = 20000;
  std::vector<std::string> live;
  for (int i = 0; i < kDeleted; ++i) engine_->Put(Key(i), StringRecord("v"));
  for (int i = 0; i < kDeleted; i += 4000) live.push_back(Key(i) + "-live");
  std::sort(live.begin(), live.end());  // in key order, as a scan finds them
  for (const std::string& key : live) engine_->Put(key, StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int i = 0; i < kDeleted; ++i) engine_->Delete(Key(i));
  ASSERT_TRUE(engine_->Commit(false).ok());

  std::vector<std::string> found;
  uint64_t most_skipped = 0;
  std::string cursor;
  int pages = 0;
  for (bool done = false; !done && pages < 10000; ++pages) {
    StatusOr<ScanPage> page = Err("not run");
    const uint64_t skipped =
        InternalEntriesSkipped([&] { page = engine_->Scan(cursor, 10, ScanFilter{}, NowMs()); });
    ASSERT_TRUE(page.ok()) << page.status().message();
    most_skipped = std::max(most_skipped, skipped);
    found.insert(found.end(), page->keys.begin(), page->keys.end());
    done = page->done;
    if (!done) {
      ASSERT_GT(page->last_key, cursor);  // every page moves on
      cursor = page->last_key;
    }
  }
  EXPECT_EQ(found, live);
  // 10 keys a page allow 100 entries per Seek or Next and 100 in all (one step may
  // overshoot); a page that found nothing so tries again with kEmptyPageSkipBound.
  EXPECT_LE(most_skipped, 201u + 2 * kEmptyPageSkipBound + 1);
  EXPECT_GE(pages, 2 * kDeleted / (2 * kEmptyPageSkipBound + 201));

  // With a staged write the page is not bounded: the staged key comes in its place.
  engine_->Put("key:0001-staged", StringRecord("v"));
  StatusOr<ScanPage> page = engine_->Scan("", 1, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->keys, std::vector<std::string>{"key:0000-live"});
  page = engine_->Scan(page->last_key, 1, ScanFilter{}, NowMs());
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->keys, std::vector<std::string>{"key:0001-staged"});
}

TEST_F(EngineTest, FlushAllRemovesEverythingDurably) {
  for (int i = 0; i < 50; ++i) engine_->Put(Key(i), StringRecord("v"));
  engine_->Put("", StringRecord("v"));
  engine_->Put("\xff\xff\xff"s, StringRecord("v"));
  engine_->Put("h", CompositeRecord(KeyType::kHash, 5, 1));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 5, "f"), "v");
  engine_->PutSubEntry(SubFamily::kZScore, EncodeZScoreKey("z", 5, 1.0, "m"), "");
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->Put("staged", StringRecord("v"));

  engine_->FlushAll();

  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  EXPECT_FALSE(engine_->HasStagedWrites());
  EXPECT_EQ(RawEntries(), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
  EXPECT_EQ(RawSubEntries(SubFamily::kZScore), 0u);
  StatusOr<Engine::KeyCounts> counts = engine_->CountKeys(NowMs());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->keys, 0u);

  // Writes after the flush work, and the flush survives a reopen.
  PutAndCommit("after", StringRecord("v"));
  Reopen();
  StatusOr<std::vector<std::string>> keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::vector<std::string>{"after"});
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());  // on an empty database too
  EXPECT_EQ(RawEntries(), 0u);
}

// A FLUSHALL gives the disk back at once: the files below level 0, which hold nothing but
// wiped keys, go without waiting for a compaction.
TEST_F(EngineTest, FlushAllDeletesTheWipedFilesAtOnce) {
  for (int i = 0; i < 5000; ++i) engine_->Put(Key(i), StringRecord(std::string(100, 'v')));
  engine_->Put("h", CompositeRecord(KeyType::kHash, 5, 1));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 5, "f"), "v");
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());
  ASSERT_GT(engine_->GetIntProperty("rocksdb.live-sst-files-size"), 10000u);
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/false).ok());
  EXPECT_EQ(engine_->GetIntProperty("rocksdb.live-sst-files-size"), 0u);
  EXPECT_EQ(RawEntries(), 0u);
  PutAndCommit("after", StringRecord("v"));
  Reopen();
  EXPECT_TRUE(GetOrDie("after").has_value());
  EXPECT_FALSE(GetOrDie(Key(0)).has_value());
}

// FLUSHALL's range deletion is newer than the memtable entries it covers, and an in-place
// update keeps an entry's sequence number: a key rewritten at the same size after the flush
// must not stay hidden behind the deletion, whether FLUSHALL gave the memtable's few keys
// point deletions or sealed a memtable of many.
TEST_F(EngineTest, KeysRewrittenAfterFlushAllAreNotHiddenByIt) {
  for (int keys : {3, 3000}) {
    for (int i = 0; i < keys; ++i) engine_->Put(Key(i), StringRecord("old"));
    ASSERT_TRUE(engine_->Commit(false).ok());
    engine_->FlushAll();
    ASSERT_TRUE(engine_->Commit(/*sync=*/false).ok());
    for (int i = 0; i < keys; ++i) engine_->Put(Key(i), StringRecord("new"));
    ASSERT_TRUE(engine_->Commit(false).ok());
    StatusOr<std::vector<std::string>> live = engine_->Keys("*", NowMs());
    ASSERT_TRUE(live.ok());
    EXPECT_EQ(live->size(), static_cast<size_t>(keys));
    Reopen();  // the record cache starts empty; the WAL replays the same updates
    std::optional<Record> last = GetOrDie(Key(keys - 1));
    ASSERT_TRUE(last.has_value()) << keys << " keys";
    EXPECT_EQ(last->payload, "new");
    engine_->FlushAll();
    ASSERT_TRUE(engine_->Commit(/*sync=*/false).ok());
    EXPECT_EQ(RawEntries(), 0u);
  }
}

// The key space's end of range comes from its memtables and its files: a key in a file
// written before a restart lies beyond anything the memtables held since.
TEST_F(EngineTest, FlushAllReachesKeysOnlyInFiles) {
  PutAndCommit("zzz", StringRecord("v"));
  ASSERT_TRUE(engine_->CompactAll().ok());
  Reopen();
  PutAndCommit("a", StringRecord("v"));
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  EXPECT_EQ(RawEntries(), 0u);
  Reopen();
  EXPECT_FALSE(GetOrDie("zzz").has_value());
}

// --- Active expiry --------------------------------------------------------------------------

TEST_F(EngineTest, ActiveExpireStepIsBoundedAndEventuallyCoversAll) {
  for (int i = 0; i < 35; ++i) engine_->Put(Key(i), StringRecord("v", kStartMs + 10));
  for (int i = 35; i < 50; ++i) engine_->Put(Key(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 0u);  // nothing expired yet
  AdvanceMs(11);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 0, 0), 0u);
  EXPECT_FALSE(engine_->HasStagedWrites());
  // The cursor is after key:0009: the next ten are key:0010..key:0019, all expired.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 10u);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 10u);  // key:0020..0029
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 5u);   // key:0030..0039
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 0u);   // key:0040..0049
  // Wrapped around: key:0000..0009 are found on the next pass.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 10u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // drops the swept records
  EXPECT_EQ(RawEntries(), 15u);
}

TEST_F(EngineTest, ActiveExpireStepStopsAfterItsDeletions) {
  for (int i = 0; i < 25; ++i) engine_->Put(Key(i), StringRecord("v", kStartMs + 10));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 10), 10u);  // key:0000..0009
  EXPECT_FALSE(engine_->ExpireStepStoppedInTombstones());       // it stopped on its deletions
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 10), 10u);  // goes on at key:0010
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 10), 5u);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 10), 0u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int i = 0; i < 25; ++i) EXPECT_FALSE(GetOrDie(Key(i)).has_value()) << i;
  EXPECT_FALSE(engine_->HasStagedWrites());  // each was swept, and is not counted again
}

TEST_F(EngineTest, ActiveExpireStepWrapsWithinOneStep) {
  for (int i = 0; i < 10; ++i) engine_->Put(Key(i), StringRecord("v", kStartMs + 10));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 7, 7), 0u);  // examines key:0000..0006
  AdvanceMs(11);
  // key:0007..0009, then from the start key:0000..0003.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 7, 7), 7u);
  for (int i : {0, 1, 2, 3, 7, 8, 9}) EXPECT_FALSE(GetOrDie(Key(i)).has_value()) << i;
  // Only key:0004..0006 are left; a big step examines each key once and stops.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 1000, 1000), 3u);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 1000, 1000), 0u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());  // drops the swept records
  EXPECT_EQ(RawEntries(), 0u);
}

// Deleted keys stay behind as tombstones until compaction. A step must not walk all of them
// to reach the next live key (after a mass expiry that was 10 ms of the loop every 100 ms):
// it stops after a bounded number of internal entries and the next step goes on from there.
TEST_F(EngineTest, ActiveExpireStepPassesTombstonesInBoundedSteps) {
  constexpr int kDeleted = 5000;
  for (int i = 0; i < kDeleted; ++i) engine_->Put(Key(i), StringRecord("v"));
  engine_->Put("zz", StringRecord("v", kStartMs + 10));
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int i = 0; i < kDeleted; ++i) engine_->Delete(Key(i));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);

  uint64_t most_skipped = 0;
  size_t steps = 0;
  size_t expired = 0;
  size_t stopped_in_tombstones = 0;  // steps that said so (the pacer then goes on at once)
  while (expired == 0 && steps < 1000) {
    most_skipped = std::max(most_skipped, InternalEntriesSkipped([&] {
                              expired = engine_->ActiveExpireStep(NowMs(), 10, 10);
                            }));
    if (engine_->ExpireStepStoppedInTombstones()) ++stopped_in_tombstones;
    ++steps;
  }

  EXPECT_EQ(expired, 1u);  // "zz", behind 10,000 internal entries
  EXPECT_FALSE(GetOrDie("zz").has_value());
  // 10 keys per step allow 100 entries per Seek or Next and 100 in all: one call may overshoot.
  EXPECT_LE(most_skipped, 201u);
  EXPECT_GE(steps, 2u * kDeleted / 201);
  EXPECT_LE(steps, 2u * kDeleted / 100 + 2);
  EXPECT_GE(stopped_in_tombstones, steps - 1);  // all but (perhaps) the one that found "zz"
}

// The pacer crosses runs of tombstones at once while steps find expired keys: a step says
// whether it stopped in one, here on its total of passed entries (each run is below the bound
// of one Seek or Next), and the next step that stops otherwise says it did not.
TEST_F(EngineTest, ActiveExpireStepSaysWhenItStoppedInTombstones) {
  auto run_key = [](int run, int i) {
    return "a:" + std::to_string(run) + ":" + std::to_string(i);
  };
  for (int run = 0; run < 10; ++run) {
    for (int i = 0; i < 20; ++i) engine_->Put(run_key(run, i), StringRecord("v"));
    engine_->Put(run_key(run, 99), StringRecord("live"));  // sorts after its run
  }
  for (int i = 0; i < 30; ++i)
    engine_->Put("b:" + std::to_string(i + 10), StringRecord("v", kStartMs + 10));
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int run = 0; run < 10; ++run) {
    for (int i = 0; i < 20; ++i) engine_->Delete(run_key(run, i));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);

  // 10 keys a step allow 100 passed entries: a few runs of 20 deleted keys spend them.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 0u);
  EXPECT_TRUE(engine_->ExpireStepStoppedInTombstones());

  size_t steps = 0;
  while (engine_->ActiveExpireStep(NowMs(), 10, 10) == 0 && ++steps < 100) {
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  // Among the b: keys, no tombstone: this step stops on its 10 deletions.
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 10u);
  EXPECT_FALSE(engine_->ExpireStepStoppedInTombstones());
}

// Runs active expiry steps, committing each, until one deletes nothing.
void ExpireUntilNoneLeft(Engine& engine, int64_t now_ms) {
  while (engine.ActiveExpireStep(now_ms, 200, 200) > 0) ASSERT_TRUE(engine.Commit(false).ok());
}

// Whether a SCAN page, which may pass 10 tombstones per key it may return, soon holds `key`
// alone: once no tombstones are left in front of it. The cycle's steps go on meanwhile.
bool FirstScanPageSoonHoldsOnly(Engine& engine, int64_t now_ms, const std::string& key) {
  return sluice::testing::Eventually([&] {
    if (engine.ActiveExpireStep(now_ms, 200, 200) != 0) return false;
    StatusOr<ScanPage> page = engine.Scan("", 10, ScanFilter{}, now_ms);
    return page.ok() && page->keys == std::vector<std::string>{key};
  });
}

// Mass expiries and deletions: what becomes of the tombstones they leave.
class EngineTombstonesTest : public EngineTest {
 protected:
  static std::string RunKey(int i) { return "a:" + std::to_string(100000 + i); }

  // Commits `n` keys RunKey(i) (expiring at `expire_at_ms`, 0 for never) and, sorting after
  // them, z:live.
  void PutARunBeforeALiveKey(int n, int64_t expire_at_ms = 0) {
    for (int i = 0; i < n; ++i) engine_->Put(RunKey(i), StringRecord("v", expire_at_ms));
    engine_->Put("z:live", StringRecord("live"));
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  // PutARunBeforeALiveKey's keys expiring at once; moves the clock past their expiry, and lets
  // the active cycle delete them.
  void ExpireARunBeforeALiveKey(int n) {
    PutARunBeforeALiveKey(n, NowMs() + 10);
    AdvanceMs(11);
    ExpireUntilNoneLeft(*engine_, NowMs());
  }

  // Deletes RunKey(i) for i in [from, to) in one commit, as commands would.
  void DeleteRun(int from, int to) {
    for (int i = from; i < to; ++i) engine_->Delete(RunKey(i));
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  // Runs steps of `max_examined` keys, none of which may delete a key, until one stops in
  // tombstones (at most `max_steps`); whether one did.
  bool StepUntilStoppedInTombstones(size_t max_examined, int max_steps) {
    for (int step = 0; step < max_steps; ++step) {
      EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), max_examined, max_examined), 0u);
      if (engine_->ExpireStepStoppedInTombstones()) return true;
    }
    return false;
  }
};

// After a mass expiry every walk of the key space (active expiry, SCAN, RANDOMKEY) passes the
// tombstones until a compaction drops them, which a quiet server may not run for hours. A
// walk that stops in them seals the memtable and has their files compacted.
TEST_F(EngineTombstonesTest, AMassExpirysTombstonesAreCompactedAway) {
  write_buffer_bytes_ = 64 << 20;  // the memtable holds every deletion
  Reopen();
  ExpireARunBeforeALiveKey(30000);
  EXPECT_TRUE(FirstScanPageSoonHoldsOnly(*engine_, NowMs(), "z:live"));
  // Sealed for the compaction: the swept records went to files, and with them.
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 0u);
}

// The memtable filled and was flushed while the cycle deleted: the tombstones are in files,
// and in the memtable that followed, and all go.
TEST_F(EngineTombstonesTest, AMassExpirySpreadOverMemtablesIsCompactedAway) {
  std::atomic<int> compactions = 0;
  before_queued_compaction_ = [&] { ++compactions; };
  Reopen();  // a 1 MB memtable
  ExpireARunBeforeALiveKey(30000);
  ASSERT_LT(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 30000u);
  EXPECT_TRUE(FirstScanPageSoonHoldsOnly(*engine_, NowMs(), "z:live"));
  // Once compacted, the same run is not compacted again.
  for (int step = 0; step < 100; ++step)
    EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 200, 200), 0u);
  EXPECT_EQ(compactions, 1);
}

// Keys deleted by commands (a script's DEL of every limiter of a client, say) leave the same
// run as a mass expiry, and it goes the same way.
TEST_F(EngineTombstonesTest, AMassDeletionsTombstonesAreCompactedAway) {
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  PutARunBeforeALiveKey(30000);
  DeleteRun(0, 30000);
  EXPECT_TRUE(FirstScanPageSoonHoldsOnly(*engine_, NowMs(), "z:live"));
}

// A mass deletion that goes on past a step stopping in its tombstones (a script's DELs, say) is
// compacted once it has paused, whole: compacted at the first look, the last 6,000 would stay.
TEST_F(EngineTombstonesTest, AMassDeletionIsCompactedOnceItPauses) {
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  PutARunBeforeALiveKey(30000);
  DeleteRun(0, 24000);
  ASSERT_TRUE(StepUntilStoppedInTombstones(200, 1000));
  DeleteRun(24000, 30000);
  ASSERT_TRUE(StepUntilStoppedInTombstones(200, 1000));
  EXPECT_TRUE(FirstScanPageSoonHoldsOnly(*engine_, NowMs(), "z:live"));
}

// Deletions committed in one batch with a wipe of another database (MULTI, a script, a group
// commit) count as well.
TEST_F(EngineTombstonesTest, DeletionsCommittedWithAWipeCount) {
  databases_ = 2;
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  {
    DatabaseScope in_1(*engine_, 1);
    PutAndCommit("other", StringRecord("v"));
  }
  PutARunBeforeALiveKey(30000);
  for (int i = 0; i < 30000; ++i) engine_->Delete(RunKey(i));
  {
    DatabaseScope in_1(*engine_, 1);
    engine_->FlushDatabase();
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_TRUE(FirstScanPageSoonHoldsOnly(*engine_, NowMs(), "z:live"));
}

// Keys that expire among live ones leave no long run of tombstones: nothing is sealed or
// compacted, though the cycle deleted 30,000 keys, 10 of them in a row at the start.
TEST_F(EngineTombstonesTest, TombstonesAmongLiveKeysAreLeftToRocksDb) {
  std::atomic<int> compactions = 0;
  before_queued_compaction_ = [&] { ++compactions; };
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  for (int i = 0; i < 10; ++i)
    engine_->Put("a:" + std::to_string(i), StringRecord("v", kStartMs + 10));
  for (int i = 0; i < 59980; ++i) {
    const int64_t expire_at_ms = i % 2 == 0 ? kStartMs + 10 : 0;
    engine_->Put("k:" + std::to_string(100000 + i), StringRecord("v", expire_at_ms));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  ExpireUntilNoneLeft(*engine_, NowMs());
  for (int step = 0; step < 1000; ++step) {  // more than three whole sweeps
    EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 200, 200), 0u);
  }
  // A step with one key's budget (what a step may have left when it reaches the end of the
  // key space and starts over) stops in the 10 at the start.
  EXPECT_TRUE(StepUntilStoppedInTombstones(1, 70000));
  // Not sealed: the expired keys were swept in place, each key one entry.
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 59990u);
  EXPECT_EQ(compactions, 0);
}

// A run of 25,000 expired keys in a key space of 300,000 live ones: compacting it would rewrite
// the key space for a twelfth of it deleted, so it waits (for a tenth).
TEST_F(EngineTombstonesTest, ARunOfTombstonesInALargeKeySpaceWaitsForATenthOfIt) {
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  for (int i = 0; i < 25000; ++i) {
    engine_->Put(RunKey(i), StringRecord("v", kStartMs + 10));
  }
  for (int i = 0; i < 300000; ++i) engine_->Put("k:" + std::to_string(i), StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  ExpireUntilNoneLeft(*engine_, NowMs());
  // Twice: the first look finds the deletions going on.
  EXPECT_TRUE(StepUntilStoppedInTombstones(200, 3000));
  EXPECT_TRUE(StepUntilStoppedInTombstones(200, 3000));
  // Not sealed: the expired keys were swept in place, each key one entry.
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 325000u);
}

// A wipe takes the counted deletions' tombstones with it: a run that follows counts anew.
TEST_F(EngineTombstonesTest, AWipeStartsTheCountOfDeletionsOver) {
  write_buffer_bytes_ = 64 << 20;
  Reopen();
  for (int i = 0; i < 60000; ++i) {  // 30,000 deletions, none in a long run
    const int64_t expire_at_ms = i % 2 == 0 ? kStartMs + 10 : 0;
    engine_->Put("k:" + std::to_string(100000 + i), StringRecord("v", expire_at_ms));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  ExpireUntilNoneLeft(*engine_, NowMs());
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(false).ok());
  ExpireARunBeforeALiveKey(5000);
  for (int step = 0; step < 10; ++step) engine_->ActiveExpireStep(NowMs(), 200, 200);
  EXPECT_TRUE(engine_->ExpireStepStoppedInTombstones());
  // Not sealed: the swept records are in the memtable still.
  EXPECT_GE(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"), 5000u);
}

// The walk reads what is committed; a staged rewrite of an expired key wins over it.
TEST_F(EngineTest, ActiveExpireStepJudgesKeysByTheirStagedState) {
  engine_->Put("renewed", StringRecord("old", kStartMs + 10));
  engine_->Put("gone", StringRecord("old", kStartMs + 10));
  ASSERT_TRUE(engine_->Commit(false).ok());
  AdvanceMs(11);
  engine_->Put("renewed", StringRecord("new", kStartMs + 1000));
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 1u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_FALSE(GetOrDie("gone").has_value());
  std::optional<Record> renewed = GetOrDie("renewed");
  ASSERT_TRUE(renewed.has_value());
  EXPECT_EQ(renewed->meta.expire_at_ms, kStartMs + 1000);
}

TEST_F(EngineTest, ActiveExpireStepOnEmptyDatabase) {
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 0u);
  EXPECT_FALSE(engine_->ExpireStepStoppedInTombstones());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 10, 10), 0u);
}

// --- Sub-entries ------------------------------------------------------------------------------

TEST_F(EngineTest, NextVersionIsIncreasingAndFollowsTheClock) {
  const uint64_t v1 = engine_->NextVersion();
  const uint64_t v2 = engine_->NextVersion();
  EXPECT_GE(v1, static_cast<uint64_t>(kStartMs) * 1000);
  EXPECT_GT(v2, v1);
  AdvanceMs(5);
  const uint64_t v3 = engine_->NextVersion();
  EXPECT_GE(v3, static_cast<uint64_t>(kStartMs + 5) * 1000);
  clock_.SetMicros(0);  // a clock going backwards does not make versions go backwards
  EXPECT_GT(engine_->NextVersion(), v3);
  // After a restart, versions start from the clock again.
  clock_.SetMicros((kStartMs + 10) * 1000);
  Reopen();
  EXPECT_GE(engine_->NextVersion(), static_cast<uint64_t>(kStartMs + 10) * 1000);
}

TEST_F(EngineTest, SubEntriesAreStagedReadAndIterated) {
  const uint64_t version = engine_->NextVersion();
  engine_->Put("h", CompositeRecord(KeyType::kHash, version, 3));
  for (const char* field : {"b", "a", "c"}) {
    engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, field),
                         std::string("value-") + field);
  }
  // Neighbours that must not show up in h's range.
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h2", version, "x"), "no");
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version + 1, "x"), "no");
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("g", version, "x"), "no");

  StatusOr<std::optional<std::string>> a =
      engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "a"));
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ(**a, "value-a");
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);  // still staged

  auto collect = [&](bool reverse) {
    std::vector<std::string> fields;
    std::unique_ptr<SubEntryIterator> it =
        engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("h", version));
    if (reverse) {
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        fields.emplace_back(DecodeSubKey(it->key())->sub_key);
      }
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        fields.emplace_back(DecodeSubKey(it->key())->sub_key);
        EXPECT_EQ(it->value(), "value-" + fields.back());
      }
    }
    EXPECT_TRUE(it->status().ok());
    return fields;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(collect(false), (V{"a", "b", "c"}));
  EXPECT_EQ(collect(true), (V{"c", "b", "a"}));

  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 6u);
  engine_->DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "b"));  // staged
  EXPECT_EQ(collect(false), (V{"a", "c"}));
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_EQ(collect(false), (V{"a", "c"}));
  EXPECT_EQ(collect(true), (V{"c", "a"}));

  // Seek and SeekForPrev stay inside the prefix.
  std::unique_ptr<SubEntryIterator> it =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("h", version));
  it->Seek(EncodeSubKey("h", version, "b"));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(DecodeSubKey(it->key())->sub_key, "c");
  it->Next();
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(EncodeSubKey("h", version, "b"));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(DecodeSubKey(it->key())->sub_key, "a");
  it->Prev();
  EXPECT_FALSE(it->Valid());
  it->Seek("");  // before the prefix: clamps to its start
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(DecodeSubKey(it->key())->sub_key, "a");
  it->SeekForPrev("\xff\xff\xff\xff\xff"s);  // after the prefix: clamps to its end
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(DecodeSubKey(it->key())->sub_key, "c");
}

// The iterators' view of the staged writes is brought up to date when an iterator opens:
// writes staged while none was open (a range command's deletions after its walk) reach the
// next one, as they stand then, and writes while one is open reach it at once when it opened
// over staged writes (one opened with nothing staged reads the database alone).
TEST_F(EngineTest, IteratorsSeeWritesStagedWhileNoneWasOpen) {
  const uint64_t version = engine_->NextVersion();
  auto put = [&](const char* field, std::string value) {
    engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, field), value);
  };
  auto collect = [&](SubEntryIterator& it) {
    std::vector<std::string> seen;
    for (it.SeekToFirst(); it.Valid(); it.Next()) {
      seen.push_back(std::string(DecodeSubKey(it.key())->sub_key) + "=" + std::string(it.value()));
    }
    return seen;
  };
  auto open = [&] {
    return engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("h", version));
  };
  using V = std::vector<std::string>;
  put("a", "1");
  put("b", "1");
  EXPECT_EQ(collect(*open()), (V{"a=1", "b=1"}));  // the first iterator copies the stage
  // None open: rewritten, deleted, added, and a key rewritten twice.
  put("a", "2");
  engine_->DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "b"));
  put("c", "1");
  put("c", "2");
  {
    std::unique_ptr<SubEntryIterator> it = open();
    EXPECT_EQ(collect(*it), (V{"a=2", "c=2"}));
    put("d", "1");  // one is open: at once
    EXPECT_EQ(collect(*it), (V{"a=2", "c=2", "d=1"}));
  }
  put("b", "3");
  EXPECT_EQ(collect(*open()), (V{"a=2", "b=3", "c=2", "d=1"}));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(collect(*open()), (V{"a=2", "b=3", "c=2", "d=1"}));
}

// With nothing staged an iterator is the database's alone, which keeps to the bounds by itself
// (BoundedIterator checks them only over a batch): committed neighbours on both sides stay out
// whichever way it moves.
TEST_F(EngineTest, AnIteratorOverTheDatabaseAloneKeepsToItsBounds) {
  const uint64_t version = engine_->NextVersion();
  for (const char* field : {"a", "b", "c", "d"}) {
    engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, field), field);
  }
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("g", version, "z"), "no");
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version + 1, "a"), "no");
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_FALSE(engine_->HasStagedWrites());

  auto field = [](const SubEntryIterator& it) {
    return std::string(DecodeSubKey(it.key())->sub_key);
  };
  std::unique_ptr<SubEntryIterator> whole =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("h", version));
  whole->SeekToFirst();
  ASSERT_TRUE(whole->Valid());
  EXPECT_EQ(field(*whole), "a");
  whole->Prev();
  EXPECT_FALSE(whole->Valid());
  whole->SeekToLast();
  ASSERT_TRUE(whole->Valid());
  EXPECT_EQ(field(*whole), "d");
  whole->Next();
  EXPECT_FALSE(whole->Valid());
  whole->Seek(EncodeSubKey("h", version, "e"));
  EXPECT_FALSE(whole->Valid());
  whole->SeekForPrev(SubKeyPrefix("h", version));
  EXPECT_FALSE(whole->Valid());
  EXPECT_TRUE(whole->status().ok());
  whole.reset();

  // [b, d): both bounds inside the key's entries.
  std::unique_ptr<SubEntryIterator> middle = engine_->NewSubEntryRangeIterator(
      SubFamily::kSubkeys, EncodeSubKey("h", version, "b"), EncodeSubKey("h", version, "d"));
  std::vector<std::string> forwards, backwards;
  for (middle->SeekToFirst(); middle->Valid(); middle->Next()) forwards.push_back(field(*middle));
  for (middle->SeekToLast(); middle->Valid(); middle->Prev()) backwards.push_back(field(*middle));
  EXPECT_EQ(forwards, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(backwards, (std::vector<std::string>{"c", "b"}));
  middle->Seek(EncodeSubKey("h", version, "a"));  // before the range: clamps to its start
  ASSERT_TRUE(middle->Valid());
  EXPECT_EQ(field(*middle), "b");
  middle->SeekForPrev(EncodeSubKey("h", version, "d"));  // the upper bound is not in it
  ASSERT_TRUE(middle->Valid());
  EXPECT_EQ(field(*middle), "c");
}

// What makes that safe: no command stages a write while such an iterator is open, for the
// iterator would not see it. Debug builds (CI's sanitizer pass) stop at the first that does.
TEST_F(EngineTest, AWriteStagedWhileAnIteratorReadsTheDatabaseAloneIsCaught) {
  // Forked, not run again from the start: a child run again would leave the directory its
  // SetUp made. Safe with RocksDB's threads running: the child only stages a write in memory
  // and aborts, taking no lock another thread may have held at the fork.
  GTEST_FLAG_SET(death_test_style, "fast");
  const uint64_t version = engine_->NextVersion();
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "a"), "1");
  ASSERT_TRUE(engine_->Commit(false).ok());
  std::unique_ptr<SubEntryIterator> alone =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("h", version));
  EXPECT_DEBUG_DEATH(
      engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "b"), "2"),
      "unmerged");
  EXPECT_DEBUG_DEATH(engine_->DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "a")),
                     "unmerged");
  EXPECT_DEBUG_DEATH(engine_->Put("k", StringRecord("v")), "unmerged");
  alone.reset();

  // Over a batch the iterator reads the staged writes as they come. (A release build staged
  // the writes above: another key.)
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("m", version, "a"), "1");
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("m", version, "b"), "2");
  std::unique_ptr<SubEntryIterator> merged =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, SubKeyPrefix("m", version));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("m", version, "c"), "3");
  std::vector<std::string> fields;
  for (merged->SeekToFirst(); merged->Valid(); merged->Next()) {
    fields.emplace_back(DecodeSubKey(merged->key())->sub_key);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "b", "c"}));
}

// An iterator indexes only its own family's staged writes; the others' wait, each at its
// latest value, for an iterator over theirs.
TEST_F(EngineTest, MergedIteratorsSeeTheirFamilysStagedWritesWhicheverOpensFirst) {
  const uint64_t version = engine_->NextVersion();
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "a"), "committed");
  ASSERT_TRUE(engine_->Commit(false).ok());
  auto read = [&](SubFamily family, std::string_view prefix) {
    std::vector<std::string> out;
    std::unique_ptr<SubEntryIterator> it = engine_->NewSubEntryIterator(family, prefix);
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->value());
    return out;
  };
  const std::string index = SubKeyPrefix("z", version);
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "b"), "first");
  engine_->PutSubEntry(SubFamily::kZScore, index + "1", "z1");
  EXPECT_EQ(read(SubFamily::kZScore, index), (std::vector<std::string>{"z1"}));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "b"), "second");
  engine_->DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "a"));
  engine_->PutSubEntry(SubFamily::kZScore, index + "2", "z2");
  EXPECT_EQ(read(SubFamily::kZScore, index), (std::vector<std::string>{"z1", "z2"}));
  EXPECT_EQ(read(SubFamily::kSubkeys, SubKeyPrefix("h", version)),
            (std::vector<std::string>{"second"}));
  // Open over one family, writes to both: it reads its own at once.
  std::unique_ptr<SubEntryIterator> open =
      engine_->NewSubEntryIterator(SubFamily::kZScore, index);
  engine_->PutSubEntry(SubFamily::kZScore, index + "0", "z0");
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", version, "c"), "third");
  open->SeekToFirst();
  ASSERT_TRUE(open->Valid());
  EXPECT_EQ(open->value(), "z0");
  open.reset();
  EXPECT_EQ(read(SubFamily::kSubkeys, SubKeyPrefix("h", version)),
            (std::vector<std::string>{"second", "third"}));
}

TEST_F(EngineTest, ZScoreIndexIteratesInScoreOrder) {
  const uint64_t version = engine_->NextVersion();
  const std::vector<std::pair<double, std::string>> entries = {
      {3.5, "c"}, {-1, "a"}, {3.5, "b"}, {-0.0, "z"}, {1e10, "x"}, {0.0, "y"}};
  for (const auto& [score, member] : entries) {
    engine_->PutSubEntry(SubFamily::kZScore, EncodeZScoreKey("z", version, score, member), "");
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  std::vector<std::pair<double, std::string>> got;
  std::unique_ptr<SubEntryIterator> it =
      engine_->NewSubEntryIterator(SubFamily::kZScore, SubKeyPrefix("z", version));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    StatusOr<ZScoreKey> k = DecodeZScoreKey(it->key());
    ASSERT_TRUE(k.ok());
    got.emplace_back(k->score, std::string(k->member));
  }
  const std::vector<std::pair<double, std::string>> expected = {
      {-1, "a"}, {0, "y"}, {0, "z"}, {3.5, "b"}, {3.5, "c"}, {1e10, "x"}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

// Limiter states that grow and shrink by a few bytes between decisions (a sliding log gaining
// and dropping entries) keep their padded size, so every rewrite updates the key's memtable
// entry in place: one entry per key, however many rounds.
TEST_F(EngineTest, LimiterStatesOfWanderingSizeAreRewrittenInPlace) {
  constexpr int kKeys = 3000;
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < kKeys; ++i) {
      Record state;
      state.meta.type = KeyType::kLimiter;
      state.payload.assign(4 + static_cast<size_t>((i + round * 7) % 15), 's');
      engine_->Put("limiter:" + std::to_string(i), state);
    }
    ASSERT_TRUE(engine_->Commit(false).ok());
  }
  EXPECT_EQ(engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table"),
            static_cast<uint64_t>(kKeys));
  std::optional<Record> last = GetOrDie("limiter:" + std::to_string(kKeys - 1));
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->payload, std::string(4 + (kKeys - 1 + 5 * 7) % 15, 's'));
}

// --- Introspection ------------------------------------------------------------------------------

TEST_F(EngineTest, IntPropertiesAreSummedOverFamilies) {
  EXPECT_EQ(engine_->GetIntProperty("rocksdb.no-such-property"), 0u);
  engine_->Put("k", StringRecord("v"));
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "f"), "v");
  engine_->PutSubEntry(SubFamily::kZScore, EncodeZScoreKey("z", 1, 1.0, "m"), "");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->GetIntProperty("rocksdb.num-entries-active-mem-table"), 3u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_GT(engine_->GetIntProperty("rocksdb.live-sst-files-size"), 0u);
  EXPECT_EQ(engine_->GetIntProperty("rocksdb.num-entries-active-mem-table"), 0u);
}

TEST(BackgroundErrorListenerTest, CapturesAndClearsOnRecovery) {
  BackgroundErrorListener listener;
  EXPECT_TRUE(listener.Current().ok());
  rocksdb::Status ok;
  listener.OnBackgroundError(rocksdb::BackgroundErrorReason::kFlush, &ok);
  EXPECT_TRUE(listener.Current().ok());  // an ok status is no error

  rocksdb::Status no_space = rocksdb::Status::NoSpace("disk full");
  listener.OnBackgroundError(rocksdb::BackgroundErrorReason::kFlush, &no_space);
  Status current = listener.Current();
  ASSERT_FALSE(current.ok());
  EXPECT_EQ(current.code(), Code::kIo);
  EXPECT_NE(current.message().find("flush"), std::string::npos);
  EXPECT_NE(current.message().find("disk full"), std::string::npos);

  rocksdb::BackgroundErrorRecoveryInfo failed;
  failed.old_bg_error = no_space;
  failed.new_bg_error = rocksdb::Status::IOError("still broken");
  listener.OnErrorRecoveryEnd(failed);
  ASSERT_FALSE(listener.Current().ok());
  EXPECT_NE(listener.Current().message().find("still broken"), std::string::npos);

  rocksdb::BackgroundErrorRecoveryInfo recovered;
  recovered.old_bg_error = no_space;
  listener.OnErrorRecoveryEnd(recovered);
  EXPECT_TRUE(listener.Current().ok());
}

}  // namespace
}  // namespace sluice::storage::testing

namespace sluice::storage::testing {
namespace {

TEST_F(EngineTest, SystemEntriesOutliveFlushAllAndRestarts) {
  engine_->PutSubEntry(SubFamily::kSystem, "policy:p", "FIXEDWINDOW 1 1000");
  engine_->Put("k", StringRecord("v"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  Reopen();
  auto kept = engine_->GetSubEntry(SubFamily::kSystem, "policy:p");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->value_or(""), "FIXEDWINDOW 1 1000");
  EXPECT_FALSE(GetOrDie("k").has_value());
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_TRUE(engine_->GetSubEntry(SubFamily::kSystem, "policy:p")->has_value())
      << "no compaction filter drops server metadata";
}

}  // namespace
}  // namespace sluice::storage::testing
