#include "storage/write_stage.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/storage/id_only_handle.h"

namespace sluice::storage {
namespace {

using namespace std::string_literals;

// Records what a WriteBatch holds, in order, as "cf:key=value" / "cf:key<del>".
class Recorder : public rocksdb::WriteBatch::Handler {
 public:
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    ops.push_back(std::to_string(cf) + ":" + key.ToString() + "=" + value.ToString());
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    ops.push_back(std::to_string(cf) + ":" + key.ToString() + "<del>");
    return rocksdb::Status::OK();
  }
  std::vector<std::string> ops;
};

class WriteStageTest : public ::testing::Test {
 protected:
  std::vector<std::string> Emit() {
    rocksdb::WriteBatch batch;
    stage_.AppendTo(&batch, handles_);
    Recorder recorder;
    EXPECT_TRUE(batch.Iterate(&recorder).ok());
    EXPECT_EQ(batch.Count(), stage_.size());
    // What a commit writes: the same bytes, built without WriteBatch::Put.
    EXPECT_EQ(stage_.ToBatch(handles_).Data(), batch.Data());
    return recorder.ops;
  }

  IdOnlyHandle h0_{0}, h1_{1}, h2_{2}, h3_{3};
  std::vector<rocksdb::ColumnFamilyHandle*> handles_{&h0_, &h1_, &h2_, &h3_};
  WriteStage stage_;
};

TEST_F(WriteStageTest, EmptyStageFindsNothing) {
  EXPECT_TRUE(stage_.empty());
  EXPECT_EQ(stage_.Find(0, "k"), nullptr);
  EXPECT_TRUE(Emit().empty());
}

TEST_F(WriteStageTest, LatestWritePerKeyWins) {
  stage_.Put(0, "k", "v1");
  stage_.Put(0, "k", "v2");
  ASSERT_NE(stage_.Find(0, "k"), nullptr);
  EXPECT_EQ(stage_.Find(0, "k")->value, "v2");
  EXPECT_FALSE(stage_.Find(0, "k")->deleted);
  stage_.Delete(0, "k");
  EXPECT_TRUE(stage_.Find(0, "k")->deleted);
  EXPECT_EQ(stage_.size(), 1u);
  EXPECT_EQ(Emit(), std::vector<std::string>{"0:k<del>"});
  *stage_.PutInPlace(0, "k") = "v3";
  EXPECT_FALSE(stage_.Find(0, "k")->deleted);
  EXPECT_EQ(Emit(), std::vector<std::string>{"0:k=v3"});
}

TEST_F(WriteStageTest, CountsEveryStagedWriteAcrossClears) {
  EXPECT_EQ(stage_.writes_staged(), 0u);
  stage_.Put(0, "k", "v1");
  stage_.Put(0, "k", "v2");  // the same key again still counts: it was written
  stage_.Delete(1, "k");
  *stage_.PutInPlace(0, "j") = "v";
  EXPECT_EQ(stage_.writes_staged(), 4u);
  stage_.Find(0, "k");
  stage_.Clear();  // a commit: the count goes on, so a command spanning one still sees writes
  EXPECT_EQ(stage_.writes_staged(), 4u);
  stage_.Put(0, "k", "v3");
  EXPECT_EQ(stage_.writes_staged(), 5u);
}

TEST_F(WriteStageTest, TellsWhichKeysWereWrittenSinceACount) {
  stage_.Put(0, "old", "v");
  const uint64_t before = stage_.writes_staged();
  EXPECT_FALSE(stage_.WrittenSince(0, "old", before));  // staged, but before the count
  EXPECT_FALSE(stage_.WrittenSince(0, "never", before));
  stage_.Delete(0, "gone");
  *stage_.PutInPlace(0, "new") = "v";
  stage_.Put(1, "sub", "v");
  EXPECT_TRUE(stage_.WrittenSince(0, "gone", before));
  EXPECT_TRUE(stage_.WrittenSince(0, "new", before));
  EXPECT_FALSE(stage_.WrittenSince(0, "sub", before));  // another family's key
  EXPECT_FALSE(stage_.WrittenSince(0, "old", before));
  stage_.Put(0, "old", "again");  // a second write of an entry moves its mark
  EXPECT_TRUE(stage_.WrittenSince(0, "old", before));
  EXPECT_FALSE(stage_.WrittenSince(0, "old", stage_.writes_staged()));
}

TEST_F(WriteStageTest, AfterACommitInBetweenEveryKeyCountsAsWritten) {
  stage_.Put(0, "k", "v");
  const uint64_t before = stage_.writes_staged();
  stage_.Clear();  // nothing staged since the count was dropped: nothing to forget
  EXPECT_FALSE(stage_.WrittenSince(0, "k", before));
  stage_.Put(0, "k", "v2");
  stage_.Clear();  // a write since the count was dropped: the stage can no longer tell which
  EXPECT_TRUE(stage_.WrittenSince(0, "other", before));
  EXPECT_FALSE(stage_.WrittenSince(0, "other", stage_.writes_staged()));
}

TEST_F(WriteStageTest, FamiliesAreSeparateKeySpaces) {
  stage_.Put(0, "k", "meta");
  stage_.Put(1, "k", "sub");
  stage_.Delete(2, "k");
  EXPECT_EQ(stage_.Find(0, "k")->value, "meta");
  EXPECT_EQ(stage_.Find(1, "k")->value, "sub");
  EXPECT_TRUE(stage_.Find(2, "k")->deleted);
  EXPECT_EQ(stage_.Find(3, "k"), nullptr);
  EXPECT_EQ(stage_.size(), 3u);
}

TEST_F(WriteStageTest, EmitsInFamilyThenKeyOrder) {
  stage_.Put(1, "b", "1");
  stage_.Put(0, "z", "2");
  stage_.Put(0, "\xff"s, "3");
  stage_.Put(0, ""s, "4");
  stage_.Delete(1, "a");
  stage_.Put(0, "a\0b"s, "5");
  EXPECT_EQ(Emit(), (std::vector<std::string>{"0:=4", "0:a\0b=5"s, "0:z=2", "0:\xff=3"s,
                                              "1:a<del>", "1:b=1"}));
}

TEST_F(WriteStageTest, TheStagingOrderFamilyComesFirstAsStaged) {
  WriteStage stage(/*staging_order_family=*/1);
  stage.Put(0, "b", "1");
  stage.Put(1, "z", "2");
  stage.Put(2, "b", "3");
  stage.Put(1, "a", "4");
  stage.Put(0, "a", "5");
  stage.Put(1, "z", "6");  // rewritten: keeps its first place
  rocksdb::WriteBatch batch;
  stage.AppendTo(&batch, handles_);
  Recorder recorder;
  ASSERT_TRUE(batch.Iterate(&recorder).ok());
  EXPECT_EQ(recorder.ops,
            (std::vector<std::string>{"1:z=6", "1:a=4", "0:a=5", "0:b=1", "2:b=3"}));
}

TEST_F(WriteStageTest, ClearEmptiesAndTheStageIsReusable) {
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) stage_.Put(0, "key" + std::to_string(i), "v");
    EXPECT_EQ(stage_.size(), 100u);
    stage_.Clear();
    EXPECT_TRUE(stage_.empty());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(stage_.Find(0, "key" + std::to_string(i)), nullptr);
  }
}

TEST_F(WriteStageTest, ClearAfterAFewKeysInABigTable) {
  // Grow the table, then stage few keys: Clear() takes the sparse path.
  for (int i = 0; i < 3000; ++i) stage_.Put(0, "grow" + std::to_string(i), "v");
  stage_.Clear();
  for (int i = 0; i < 5; ++i) stage_.Put(0, "few" + std::to_string(i), "v");
  stage_.Clear();
  EXPECT_TRUE(stage_.empty());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(stage_.Find(0, "few" + std::to_string(i)), nullptr);
  stage_.Put(0, "few1", "again");
  EXPECT_EQ(stage_.Find(0, "few1")->value, "again");
  EXPECT_EQ(stage_.size(), 1u);
}

TEST_F(WriteStageTest, HugeBatchGivesMemoryBackAndStaysCorrect) {
  for (int i = 0; i < 20000; ++i)
    stage_.Put(i % 2, std::to_string(i).append("k"), std::string(10, 'x'));
  EXPECT_EQ(stage_.size(), 20000u);
  stage_.Clear();
  EXPECT_TRUE(stage_.empty());
  stage_.Put(0, "k0", "v");
  EXPECT_EQ(stage_.Find(0, "k0")->value, "v");
  EXPECT_EQ(stage_.Find(1, "k1"), nullptr);
}

// Random operations against a std::map model, with clears in between.
TEST_F(WriteStageTest, MatchesAModelUnderRandomOperations) {
  std::mt19937 rng(42);
  std::map<std::pair<int, std::string>, std::optional<std::string>> model;
  for (int step = 0; step < 20000; ++step) {
    const int family = static_cast<int>(rng() % 4);
    const std::string key = "k" + std::to_string(rng() % 300);
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2:
      case 3: {
        const std::string value = "v" + std::to_string(step);
        stage_.Put(static_cast<uint8_t>(family), key, value);
        model[{family, key}] = value;
        break;
      }
      case 4:
      case 5:
        stage_.Delete(static_cast<uint8_t>(family), key);
        model[{family, key}] = std::nullopt;
        break;
      case 6: {
        if (rng() % 50 != 0) break;
        std::vector<std::string> expected;
        for (const auto& [fk, value] : model) {
          expected.push_back(std::to_string(fk.first) + ":" + fk.second +
                             (value ? "=" + *value : "<del>"));
        }
        EXPECT_EQ(Emit(), expected);
        stage_.Clear();
        model.clear();
        break;
      }
      default: {
        const WriteStage::Entry* e = stage_.Find(static_cast<uint8_t>(family), key);
        auto it = model.find({family, key});
        if (it == model.end()) {
          EXPECT_EQ(e, nullptr);
        } else {
          ASSERT_NE(e, nullptr);
          EXPECT_EQ(e->deleted, !it->second.has_value());
          if (it->second) {
            EXPECT_EQ(e->value, *it->second);
          }
        }
      }
    }
    ASSERT_EQ(stage_.size(), model.size());
  }
}

}  // namespace
}  // namespace sluice::storage
