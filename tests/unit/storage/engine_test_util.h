#pragma once

// A fixture for Engine tests: a unique directory, a ManualClock, and helpers to build records.

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "storage/draws_ahead.h"
#include "storage/engine.h"
#include "storage/record.h"
#include "temp_dir.h"

namespace sluice::storage::testing {

// 2023-11-14T22:13:20Z: a realistic unix time, in ms.
inline constexpr int64_t kStartMs = 1700000000000;

inline Record StringRecord(std::string value, int64_t expire_at_ms = 0) {
  Record r;
  r.meta.type = KeyType::kString;
  r.meta.expire_at_ms = expire_at_ms;
  r.payload = std::move(value);
  return r;
}

inline Record CompositeRecord(KeyType type, uint64_t version, uint64_t size,
                              int64_t expire_at_ms = 0) {
  Record r;
  r.meta.type = type;
  r.meta.version = version;
  r.meta.size = size;
  r.meta.expire_at_ms = expire_at_ms;
  return r;
}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  EngineOptions Options() const {
    EngineOptions options;
    options.dir = dir_.path() + "/db";
    options.block_cache_bytes = 4 << 20;
    options.write_buffer_bytes = write_buffer_bytes_;
    options.before_queued_compaction = before_queued_compaction_;
    options.databases = databases_;
    return options;
  }

  // Closes the engine (dropping what is staged) and opens the directory again.
  void Reopen() {
    engine_.reset();
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(Options(), &clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    engine_ = std::move(*opened);
  }

  int64_t NowMs() const { return clock_.NowMillis(); }
  void AdvanceMs(int64_t ms) { clock_.AdvanceMicros(ms * 1000); }

  void PutAndCommit(const std::string& key, const Record& record) {
    engine_->Put(key, record);
    ASSERT_TRUE(engine_->Commit(false).ok());
  }

  std::optional<Record> GetOrDie(std::string_view key) {
    StatusOr<std::optional<Record>> got = engine_->Get(key, NowMs());
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  // What `draws` hold for `key` under its version now; nullptr when nothing, or no key.
  template <typename Element>
  const std::vector<Element>* HeldDraw(const DrawsAhead<Element>& draws, std::string_view key) {
    std::optional<Record> record = GetOrDie(key);
    return record ? draws.Peek(key, record->meta.version) : nullptr;
  }

  // The key lookups `run` makes (hits and misses of the record cache and RocksDB).
  template <typename Fn>
  LookupCounter LookupsDuring(Fn&& run) {
    LookupCounter counter;
    counter.on = true;
    engine_->set_lookup_counter(&counter);
    run();
    engine_->set_lookup_counter(nullptr);
    return counter;
  }

  uint64_t RawEntries() {
    StatusOr<uint64_t> n = engine_->CountRawEntries();
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  uint64_t RawSubEntries(SubFamily family) {
    StatusOr<uint64_t> n = engine_->CountRawSubEntries(family);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  int databases_ = 1;  // EngineOptions::databases at the next Reopen
  uint64_t write_buffer_bytes_ = 1 << 20;  // and EngineOptions::write_buffer_bytes
  std::function<void()> before_queued_compaction_;  // and EngineOptions' hook
  // Declaration order matters: the engine goes first, then the clock, then the directory.
  TempDir dir_;
  ManualClock clock_{kStartMs * 1000};
  std::unique_ptr<Engine> engine_;
};

// EngineTest with four databases, and helpers that read the selected one.
class EngineDatabasesTest : public EngineTest {
 protected:
  void SetUp() override {
    databases_ = 4;
    Reopen();
  }

  void Select(int db) { ASSERT_TRUE(engine_->SelectDatabase(db).ok()); }

  // A string key's value; nullopt when missing.
  std::optional<std::string> Value(std::string_view key) {
    std::optional<Record> record = GetOrDie(key);
    if (!record) return std::nullopt;
    return record->payload;
  }

  // Live keys (DBSIZE).
  uint64_t Keys() {
    StatusOr<Engine::KeyCounts> counts = engine_->CountKeys(NowMs());
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->keys : 0;
  }
};

}  // namespace sluice::storage::testing
