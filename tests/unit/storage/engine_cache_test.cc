// The engine's write stage and record cache (storage/write_stage.h, storage/record_cache.h)
// must be invisible: every read answers what RocksDB alone would.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/engine.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

TEST_F(EngineTest, CachedReadFollowsCommittedOverwritesAndDeletes) {
  PutAndCommit("k", StringRecord("v1"));
  EXPECT_EQ(GetOrDie("k")->payload, "v1");  // now cached
  PutAndCommit("k", StringRecord("v2"));
  EXPECT_EQ(GetOrDie("k")->payload, "v2");
  engine_->Delete("k");
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_FALSE(GetOrDie("k").has_value());
  PutAndCommit("k", StringRecord("v3"));
  EXPECT_EQ(GetOrDie("k")->payload, "v3");
  Reopen();
  EXPECT_EQ(GetOrDie("k")->payload, "v3");
}

TEST_F(EngineTest, KnownAbsentKeyBecomesVisibleOnceWritten) {
  EXPECT_FALSE(GetOrDie("new").has_value());  // caches "absent"
  engine_->Put("new", StringRecord("v"));
  EXPECT_EQ(GetOrDie("new")->payload, "v");  // the stage comes first
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(GetOrDie("new")->payload, "v");
}

TEST_F(EngineTest, DiscardedWritesNeverReachTheCache) {
  PutAndCommit("k", StringRecord("committed"));
  EXPECT_EQ(GetOrDie("k")->payload, "committed");
  engine_->Put("k", StringRecord("staged"));
  engine_->Put("other", StringRecord("staged"));
  EXPECT_EQ(GetOrDie("k")->payload, "staged");
  engine_->DiscardStaged();
  EXPECT_EQ(GetOrDie("k")->payload, "committed");
  EXPECT_FALSE(GetOrDie("other").has_value());
}

TEST_F(EngineTest, FlushAllEmptiesTheCache) {
  PutAndCommit("k", StringRecord("v"));
  EXPECT_TRUE(GetOrDie("k").has_value());
  engine_->FlushAll();
  ASSERT_TRUE(engine_->Commit(/*sync=*/true).ok());
  EXPECT_FALSE(GetOrDie("k").has_value());
  StatusOr<std::optional<Metadata>> meta = engine_->GetMetadata("k", NowMs());
  ASSERT_TRUE(meta.ok());
  EXPECT_FALSE(meta->has_value());
}

// GetView's payload views the stage, the cache or RocksDB's read buffer, as the key is found.
TEST_F(EngineTest, GetViewAnswersAsGetFromEveryLayer) {
  auto expect_view = [&](std::string_view key, std::string_view payload, int64_t expire_at_ms) {
    StatusOr<std::optional<RecordView>> view = engine_->GetView(key, NowMs());
    ASSERT_TRUE(view.ok() && view->has_value()) << key;
    EXPECT_EQ((*view)->payload, payload);
    EXPECT_EQ((*view)->meta.expire_at_ms, expire_at_ms);
    EXPECT_EQ(GetOrDie(key)->payload, payload);
  };
  engine_->Put("k", StringRecord("staged", kStartMs + 100));
  expect_view("k", "staged", kStartMs + 100);
  ASSERT_TRUE(engine_->Commit(false).ok());
  expect_view("k", "staged", kStartMs + 100);  // from the cache
  Reopen();
  expect_view("k", "staged", kStartMs + 100);  // from RocksDB
  AdvanceMs(101);
  StatusOr<std::optional<RecordView>> expired = engine_->GetView("k", NowMs());
  ASSERT_TRUE(expired.ok());
  EXPECT_FALSE(expired->has_value());
  EXPECT_TRUE(engine_->HasStagedWrites());  // the lazy deletion, as Get stages it
}

TEST_F(EngineTest, CachedRecordExpiresLikeAStoredOne) {
  PutAndCommit("ttl", StringRecord("v", kStartMs + 100));
  EXPECT_TRUE(GetOrDie("ttl").has_value());  // cached with its expiry
  AdvanceMs(101);
  EXPECT_FALSE(GetOrDie("ttl").has_value());
  EXPECT_TRUE(engine_->HasStagedWrites());  // the lazy deletion
  engine_->DiscardStaged();
  // The compaction filter drops it from disk; reads agree before and after.
  EXPECT_FALSE(GetOrDie("ttl").has_value());
  engine_->DiscardStaged();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawEntries(), 0u);
  EXPECT_FALSE(GetOrDie("ttl").has_value());
}

TEST_F(EngineTest, IteratorSeesWritesStagedBeforeAndDuringIteration) {
  const std::string prefix = SubKeyPrefix("h", 1);
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "a"), "1");
  ASSERT_TRUE(engine_->Commit(false).ok());
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "b"), "2");  // before
  std::unique_ptr<SubEntryIterator> it =
      engine_->NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "c"), "3");  // during
  engine_->DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey("h", 1, "a"));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace_back(it->value());
  ASSERT_TRUE(it->status().ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"2", "3"}));
  it.reset();
  ASSERT_TRUE(engine_->Commit(false).ok());
  // A new batch starts without the old one's entries.
  it = engine_->NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  seen.clear();
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace_back(it->value());
  EXPECT_EQ(seen, (std::vector<std::string>{"2", "3"}));
}

TEST_F(EngineTest, ScanSeesStagedKeysAndHidesStagedDeletes) {
  PutAndCommit("a", StringRecord("v"));
  PutAndCommit("b", StringRecord("v"));
  engine_->Delete("a");
  engine_->Put("c", StringRecord("v"));
  StatusOr<std::vector<std::string>> keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"b", "c"}));
  engine_->Put("d", StringRecord("v"));  // staged after the mirror was built
  keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"b", "c", "d"}));
  engine_->DiscardStaged();
  keys = engine_->Keys("*", NowMs());
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"a", "b"}));
}

// Two engines, one with a tiny record cache (constant eviction) and one with none, take the
// same random operations and must answer every read alike.
class CacheDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.block_cache_bytes = 4 << 20;
    options.write_buffer_bytes = 256 << 10;  // flushes happen too
    options.dir = cached_dir_.path() + "/db";
    options.record_cache_bytes = 30 * 120;
    auto cached = Engine::Open(options, &clock_);
    ASSERT_TRUE(cached.ok()) << cached.status().message();
    cached_ = std::move(*cached);
    options.dir = plain_dir_.path() + "/db";
    options.record_cache_bytes = 0;
    auto plain = Engine::Open(options, &clock_);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    plain_ = std::move(*plain);
  }

  TempDir cached_dir_;
  TempDir plain_dir_;
  ManualClock clock_{kStartMs * 1000};
  std::unique_ptr<Engine> cached_;
  std::unique_ptr<Engine> plain_;
};

TEST_F(CacheDifferentialTest, SameAnswersUnderRandomOperations) {
  std::mt19937 rng(2024);
  auto both = [&](auto&& op) {
    op(*cached_);
    op(*plain_);
  };
  for (int step = 0; step < 20000; ++step) {
    const std::string key = "key" + std::to_string(rng() % 100);
    const int64_t now_ms = clock_.NowMillis();
    const uint32_t dice = rng() % 100;
    if (dice < 30) {
      Record record = StringRecord("v" + std::to_string(step));
      if (rng() % 3 == 0) record.meta.expire_at_ms = now_ms + static_cast<int64_t>(rng() % 50);
      both([&](Engine& e) { e.Put(key, record); });
    } else if (dice < 40) {
      both([&](Engine& e) { e.Delete(key); });
    } else if (dice < 75) {
      auto a = cached_->Get(key, now_ms);
      auto b = plain_->Get(key, now_ms);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->has_value(), b->has_value()) << key << " at step " << step;
      if (a->has_value()) {
        EXPECT_EQ((*a)->payload, (*b)->payload);
        EXPECT_EQ((*a)->meta.expire_at_ms, (*b)->meta.expire_at_ms);
      }
    } else if (dice < 80) {
      auto a = cached_->GetMetadata(key, now_ms);
      auto b = plain_->GetMetadata(key, now_ms);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->has_value(), b->has_value()) << key << " at step " << step;
    } else if (dice < 92) {
      both([&](Engine& e) { ASSERT_TRUE(e.Commit(false).ok()); });
    } else if (dice < 95) {
      both([&](Engine& e) { e.DiscardStaged(); });
    } else if (dice < 98) {
      clock_.AdvanceMicros(static_cast<int64_t>(rng() % 30) * 1000);
    } else if (dice < 99) {
      both([&](Engine& e) { ASSERT_TRUE(e.CompactAll().ok()); });
    } else if (rng() % 10 == 0) {
      both([&](Engine& e) {
        e.FlushAll();
        ASSERT_TRUE(e.Commit(/*sync=*/true).ok());
      });
    } else {
      auto a = cached_->Keys("*", now_ms);
      auto b = plain_->Keys("*", now_ms);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b) << "at step " << step;
    }
    // The cached engine may stage more: a lazy deletion of a record the compaction filter
    // already removed from disk (the cache still held it, expired). Never less.
    if (plain_->HasStagedWrites()) {
      ASSERT_TRUE(cached_->HasStagedWrites());
    }
  }
}

}  // namespace
}  // namespace sluice::storage::testing
