// How the engine's files are compressed. Where data settles, the bottom level, blocks are LZ4:
// a read the record cache misses mostly decompresses one, and ZSTD's decompression took
// nearly 40% of a limiter call's instructions over millions of keys.

#include <gtest/gtest.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace sluice::storage::testing {
namespace {

// The compression each table file of the database records in its properties.
std::vector<std::string> CompressionOfEachTableFile(const std::string& dir) {
  std::vector<std::string> names;
  for (const std::filesystem::directory_entry& file : std::filesystem::directory_iterator(dir)) {
    if (file.path().extension() != ".sst") continue;
    rocksdb::SstFileReader reader{rocksdb::Options()};
    rocksdb::Status opened = reader.Open(file.path().string());
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    if (opened.ok()) names.push_back(reader.GetTableProperties()->compression_name);
  }
  return names;
}

TEST_F(EngineTest, AFullCompactionLeavesLz4Blocks) {
  for (int i = 0; i < 5000; ++i) {
    engine_->Put("limiter:" + std::to_string(i), StringRecord(std::string(32, 'a' + i % 26)));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());

  ASSERT_TRUE(engine_->CompactAll().ok());  // to the bottom level

  const std::vector<std::string> compressions = CompressionOfEachTableFile(Options().dir);
  ASSERT_FALSE(compressions.empty());
  for (const std::string& name : compressions) EXPECT_EQ(name, "LZ4");
}

}  // namespace
}  // namespace sluice::storage::testing
