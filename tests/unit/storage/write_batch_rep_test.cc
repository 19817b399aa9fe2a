#include "storage/write_batch_rep.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <string>
#include <utility>

#include "tests/unit/storage/id_only_handle.h"

namespace sluice::storage {
namespace {

// The serialized form must be byte for byte what WriteBatch's own Put and Delete build: the
// WAL holds it, and RocksDB reads it back at recovery.
TEST(WriteBatchRepTest, BuildsTheBytesWriteBatchBuilds) {
  IdOnlyHandle default_family(0), family(3), far_family(300);  // 300: a two-byte varint id
  const std::string long_value(200, 'v');                      // a two-byte varint length
  rocksdb::WriteBatch expected;
  ASSERT_TRUE(expected.Put(&default_family, "k1", "v1").ok());
  ASSERT_TRUE(expected.Delete(&default_family, "k2").ok());
  ASSERT_TRUE(expected.Put(&family, "k3", long_value).ok());
  ASSERT_TRUE(expected.Delete(&far_family, "k4").ok());
  ASSERT_TRUE(expected.Put(&far_family, "", "").ok());

  WriteBatchRep rep(5, 64);
  rep.Put(0, "k1", "v1");
  rep.Delete(0, "k2");
  rep.Put(3, "k3", long_value);
  rep.Delete(300, "k4");
  rep.Put(300, "", "");
  rocksdb::WriteBatch built = std::move(rep).Finish();

  EXPECT_EQ(built.Data(), expected.Data());
  EXPECT_EQ(built.Count(), 5u);
  EXPECT_TRUE(built.HasPut());
  EXPECT_TRUE(built.HasDelete());
  EXPECT_FALSE(built.HasMerge());
}

TEST(WriteBatchRepTest, GrowsPastTheSizeItWasGiven) {
  rocksdb::WriteBatch expected;
  IdOnlyHandle family(1);
  WriteBatchRep rep(0, 0);
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "key" + std::to_string(i);
    const std::string value(i % 300, 'x');
    ASSERT_TRUE(expected.Put(&family, key, value).ok());
    rep.Put(1, key, value);
  }
  rocksdb::WriteBatch built = std::move(rep).Finish();
  EXPECT_EQ(built.Data(), expected.Data());
  EXPECT_EQ(built.Count(), 1000u);
}

TEST(WriteBatchRepTest, AnEmptyBatchIsWriteBatchsEmptyBatch) {
  EXPECT_EQ(WriteBatchRep(0, 0).Finish().Data(), rocksdb::WriteBatch().Data());
}

}  // namespace
}  // namespace sluice::storage
