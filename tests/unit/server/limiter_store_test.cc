// Limiter states as stored: a state that shrinks into a smaller size class and grows back, or
// starts again over its key's expired record, is rewritten in its key's memtable entry, not
// inserted anew. Time is explicit (no sleeping).

#include "server/limiter_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/codec.h"
#include "common/clock.h"
#include "server/limiter_call.h"
#include "storage/engine.h"
#include "storage/key_encoding.h"
#include "tests/unit/storage/temp_dir.h"

namespace sluice::server {
namespace {

constexpr int64_t kStartUs = 1700000000000LL * 1000;

// The keys reported expired: by the active cycle, or by reads.
struct ExpiredKeys : storage::KeyEventObserver {
  void OnKeyExpired(int /*db*/, std::string_view key) override { keys.emplace(key); }
  void OnKeyMissed(int /*db*/, std::string_view /*key*/) override {}
  void OnKeyCreated(int /*db*/, std::string_view /*key*/) override {}
  std::set<std::string> keys;
};

class LimiterStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage::EngineOptions options;
    options.dir = dir_.path() + "/db";
    auto opened = storage::Engine::Open(options, &clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    engine_ = std::move(opened).value();
  }

  // RL.SLIDINGLOG key 100 1000, once, committed.
  void TakeFromLog(const std::string& key) {
    const std::vector<std::string_view> params = {"100", "1000"};
    auto call = MakeLimiterCall(algorithms::AlgorithmTag::kSlidingLog, params, 1);
    ASSERT_TRUE(call.ok()) << call.status().message();
    const int64_t now_us = clock_.NowMicros();
    auto outcome = DecideAndStage(*engine_, key, **call, now_us, now_us / 1000);
    ASSERT_TRUE(outcome.ok()) << outcome.status().message();
    ASSERT_TRUE(outcome->verdict.allowed);
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  size_t StoredBytes(const std::string& key) {
    auto record = engine_->GetView(key, clock_.NowMillis());
    EXPECT_TRUE(record.ok() && record->has_value());
    return record.ok() && record->has_value() ? (*record)->meta.stored_bytes : 0;
  }

  uint64_t MemtableEntries() const {
    return engine_->GetKeyspaceIntProperty("rocksdb.num-entries-active-mem-table");
  }

  storage::testing::TempDir dir_;
  ManualClock clock_{kStartUs};
  std::unique_ptr<storage::Engine> engine_;
};

TEST_F(LimiterStoreTest, LogThatShrinksAClassAndGrowsBackKeepsItsMemtableEntry) {
  constexpr int kKeys = 200;
  // Every key takes at each of these times (ms). Three entries 100 ms apart take the 64-byte
  // class; at 1250 the first three have left the 1 s window, and the two left would fit in
  // 32 bytes; at 1350 there are three again.
  const std::vector<std::pair<int64_t, size_t>> takes_and_stored_bytes = {
      {0, 32}, {100, 32}, {200, 64}, {900, 64}, {1250, 64}, {1350, 64}};
  for (const auto& [at_ms, stored_bytes] : takes_and_stored_bytes) {
    clock_.SetMicros(kStartUs + at_ms * 1000);
    for (int i = 0; i < kKeys; ++i) TakeFromLog("log:" + std::to_string(i));
    EXPECT_EQ(StoredBytes("log:0"), stored_bytes) << "at " << at_ms << " ms";
  }
  // The first write of each key inserted its entry, the growth at 200 ms a second one; every
  // other write was in place, the one at 1350 ms too.
  EXPECT_EQ(MemtableEntries(), static_cast<uint64_t>(2 * kKeys));
}

TEST_F(LimiterStoreTest, LogWrittenAgainAfterItsKeyExpiredKeepsItsMemtableEntry) {
  constexpr int kKeys = 200;
  // Three entries take the 64-byte class; the log's key expires a second after the last.
  for (int64_t at_ms : {0, 100, 200}) {
    clock_.SetMicros(kStartUs + at_ms * 1000);
    for (int i = 0; i < kKeys; ++i) TakeFromLog("log:" + std::to_string(i));
  }
  ASSERT_EQ(StoredBytes("log:0"), 64u);
  ASSERT_EQ(MemtableEntries(), static_cast<uint64_t>(2 * kKeys));
  // Long expired: the active cycle sweeps half the keys, and a read finds the rest expired.
  ExpiredKeys by_cycle;
  engine_->set_key_events(&by_cycle, /*report_created=*/false);
  clock_.SetMicros(kStartUs + 5000 * 1000);
  ASSERT_EQ(engine_->ActiveExpireStep(clock_.NowMillis(), kKeys / 2, kKeys / 2), kKeys / 2);
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_EQ(by_cycle.keys.size(), static_cast<size_t>(kKeys / 2));
  const std::string swept = *by_cycle.keys.begin();
  std::string found_by_read;
  for (int i = 0; i < kKeys && found_by_read.empty(); ++i) {
    if (!by_cycle.keys.contains("log:" + std::to_string(i)))
      found_by_read = "log:" + std::to_string(i);
  }
  ExpiredKeys by_reads;
  engine_->set_key_events(&by_reads, /*report_created=*/false);
  // A new log of one entry would fit in 32 bytes: it keeps the 64 its key had, so the third
  // entry again finds room in place.
  for (int64_t at_ms : {5000, 5100, 5200}) {
    clock_.SetMicros(kStartUs + at_ms * 1000);
    for (int i = 0; i < kKeys; ++i) TakeFromLog("log:" + std::to_string(i));
    EXPECT_EQ(StoredBytes(swept), 64u) << "at " << at_ms << " ms";
    EXPECT_EQ(StoredBytes(found_by_read), 64u) << "at " << at_ms << " ms";
  }
  EXPECT_EQ(by_reads.keys.size(), static_cast<size_t>(kKeys / 2));
  EXPECT_TRUE(by_reads.keys.contains(found_by_read));
  EXPECT_EQ(MemtableEntries(), static_cast<uint64_t>(2 * kKeys));
  engine_->set_key_events(nullptr, false);
}

TEST_F(LimiterStoreTest, NewLogStartsInTheSmallestClass) {
  TakeFromLog("fresh");
  EXPECT_EQ(StoredBytes("fresh"), 32u);
}

}  // namespace
}  // namespace sluice::server
