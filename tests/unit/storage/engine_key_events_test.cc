// The engine's reports for keyspace notifications (KeyEventObserver): expiries found by reads
// and by the active cycle, counted misses, and keys created by a Put.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"
#include "storage/long_string.h"

namespace sluice::storage::testing {
namespace {

struct Recorded : KeyEventObserver {
  std::vector<std::pair<std::string, std::string>> events;  // (what, "db:key")
  void OnKeyExpired(int db, std::string_view key) override { Add("expired", db, key); }
  void OnKeyMissed(int db, std::string_view key) override { Add("missed", db, key); }
  void OnKeyCreated(int db, std::string_view key) override { Add("created", db, key); }
  void Add(std::string what, int db, std::string_view key) {
    events.emplace_back(std::move(what), std::to_string(db) + ":" + std::string(key));
  }
};

using Events = std::vector<std::pair<std::string, std::string>>;

class EngineKeyEventsTest : public EngineDatabasesTest {};

TEST_F(EngineKeyEventsTest, NothingIsReportedOnceTheObserverIsRemoved) {
  Recorded recorded;
  LookupCounter counter;
  counter.on = true;
  engine_->set_lookup_counter(&counter);
  engine_->set_key_events(&recorded, true);
  engine_->set_key_events(nullptr, true);
  EXPECT_FALSE(GetOrDie("missing"));
  engine_->Put("k", StringRecord("v", NowMs() + 10));
  AdvanceMs(20);
  EXPECT_FALSE(GetOrDie("k"));
  EXPECT_TRUE(recorded.events.empty());
}

TEST_F(EngineKeyEventsTest, AReadFindingAnExpiredKeyReportsItOnce) {
  Recorded recorded;
  engine_->set_key_events(&recorded, false);
  Select(2);
  engine_->Put("k", StringRecord("v", NowMs() + 10));
  AdvanceMs(20);
  EXPECT_FALSE(GetOrDie("k"));
  EXPECT_FALSE(GetOrDie("k"));  // deleted by the first read: nothing more
  EXPECT_EQ(recorded.events, (Events{{"expired", "2:k"}}));
}

// Its record swept, an expired key is reported once, whichever of reads and the active cycle
// comes first, and however many follow.
TEST_F(EngineKeyEventsTest, AnExpiredKeyIsReportedOnceByReadsAndTheCycle) {
  Recorded recorded;
  engine_->set_key_events(&recorded, false);
  PutAndCommit("read", StringRecord("v", NowMs() + 10));
  PutAndCommit("cycled", StringRecord("v", NowMs() + 10));
  AdvanceMs(20);
  EXPECT_FALSE(GetOrDie("read"));
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 1u);
  ASSERT_TRUE(engine_->Commit(false).ok());
  for (int again = 0; again < 2; ++again) {
    EXPECT_FALSE(GetOrDie("read"));
    EXPECT_FALSE(GetOrDie("cycled"));
    EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 0u);
  }
  EXPECT_EQ(recorded.events, (Events{{"expired", "0:read"}, {"expired", "0:cycled"}}));
}

TEST_F(EngineKeyEventsTest, TheActiveCycleReportsEachKeyInItsDatabase) {
  Recorded recorded;
  engine_->set_key_events(&recorded, false);
  Select(1);
  PutAndCommit("a", StringRecord("v", NowMs() + 10));
  Select(3);
  PutAndCommit("b", StringRecord("v", NowMs() + 10));
  PutAndCommit("c", StringRecord("v"));
  AdvanceMs(20);
  EXPECT_EQ(engine_->ActiveExpireStep(NowMs(), 100, 100), 2u);
  EXPECT_EQ(recorded.events, (Events{{"expired", "1:a"}, {"expired", "3:b"}}));
}

TEST_F(EngineKeyEventsTest, OnlyCountedMissesAreReported) {
  Recorded recorded;
  LookupCounter counter;
  engine_->set_lookup_counter(&counter);
  engine_->set_key_events(&recorded, false);
  EXPECT_FALSE(GetOrDie("quiet"));  // counter off: a write's lookup
  counter.on = true;
  EXPECT_FALSE(GetOrDie("missing"));
  engine_->Put("there", StringRecord("v"));
  EXPECT_TRUE(GetOrDie("there"));
  EXPECT_EQ(recorded.events, (Events{{"missed", "0:missing"}}));
  EXPECT_EQ(counter.misses, 1u);
  EXPECT_EQ(counter.hits, 1u);
}

TEST_F(EngineKeyEventsTest, APutOfAKeyThatHeldNothingReportsItsCreation) {
  Recorded recorded;
  engine_->set_key_events(&recorded, true);
  engine_->Put("new", StringRecord("v"));
  engine_->Put("new", StringRecord("w"));  // there already
  PutAndCommit("old", StringRecord("v", NowMs() + 10));
  AdvanceMs(20);
  engine_->Put("old", StringRecord("again"));  // held only an expired record
  engine_->Delete("new");
  engine_->Put("new", StringRecord("x"));  // deleted in this batch
  EXPECT_EQ(
      recorded.events,
      (Events{
          {"created", "0:new"}, {"created", "0:old"}, {"created", "0:old"}, {"created", "0:new"}}));
  engine_->set_key_events(&recorded, false);
  engine_->Put("other", StringRecord("v"));
  EXPECT_EQ(recorded.events.size(), 4u) << "creations are reported only when asked for";
  EXPECT_EQ(GetOrDie("new")->payload, "x");
  EXPECT_EQ(GetOrDie("other")->payload, "v");
}

TEST_F(EngineKeyEventsTest, APutReportedWhileAnIteratorIsOpenIsStillSeenByIt) {
  Recorded recorded;
  engine_->set_key_events(&recorded, true);
  PutAndCommit("a", StringRecord("1"));
  engine_->Put("c", StringRecord("3"));  // staged: the iterator mirrors the stage
  {
    std::unique_ptr<SubEntryIterator> it =
        engine_->NewSubEntryIterator(SubFamily::kSubkeys, "prefix");
    engine_->Put("b", StringRecord("2"));
  }
  EXPECT_EQ(GetOrDie("b")->payload, "2");
  EXPECT_EQ(recorded.events, (Events{{"created", "0:a"}, {"created", "0:c"}, {"created", "0:b"}}));
}

// A long string written in pieces (SETBIT far past the end of a new key) gets its record from
// PutWithoutLongPayload, its chunks staged first: its creation is reported as a Put's, and a
// write to it once it exists is not.
TEST_F(EngineKeyEventsTest, ALongStringWrittenInPiecesReportsItsCreation) {
  Recorded recorded;
  engine_->set_key_events(&recorded, true);
  const auto look = [&](std::string_view key) {
    StatusOr<std::optional<RecordView>> view = engine_->GetViewWithoutLongPayload(key, NowMs());
    EXPECT_TRUE(view.ok());
    return view.ok() ? *view : std::nullopt;
  };
  ASSERT_TRUE(WriteStringRange(*engine_, "bits", look("bits"), 1 << 20, "\x01").ok());
  ASSERT_TRUE(WriteStringRange(*engine_, "bits", look("bits"), 5, "\x02").ok());
  PutAndCommit("short", StringRecord("abc"));
  ASSERT_TRUE(WriteStringRange(*engine_, "short", look("short"), 40000, "z").ok());
  EXPECT_EQ(recorded.events, (Events{{"created", "0:bits"}, {"created", "0:short"}}));
  EXPECT_EQ(look("bits")->meta.size, (1u << 20) + 1);
  const std::string short_bytes = GetOrDie("short")->payload;
  EXPECT_EQ(short_bytes.size(), 40001u);
  EXPECT_EQ(short_bytes.substr(0, 4), std::string("abc\0", 4));
  EXPECT_EQ(short_bytes.back(), 'z');
}

}  // namespace
}  // namespace sluice::storage::testing
