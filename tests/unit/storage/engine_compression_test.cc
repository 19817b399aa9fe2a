// How the engine lays out its table files for reads the record cache misses. Where data
// settles, the bottom level, blocks are LZ4: such a read mostly decompresses one, and ZSTD's
// decompression took nearly 40% of a limiter call's instructions over millions of keys. The
// key space's blocks are a quarter of RocksDB's usual size, as its reads are point reads of
// one block each; the elements' keep it, as they are mostly read in runs.

#include <gtest/gtest.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"
#include "storage/rocksdb_engine.h"

namespace sluice::storage::testing {
namespace {

// The properties each table file of the database records.
std::vector<rocksdb::TableProperties> PropertiesOfEachTableFile(const std::string& dir) {
  std::vector<rocksdb::TableProperties> properties;
  for (const std::filesystem::directory_entry& file : std::filesystem::directory_iterator(dir)) {
    if (file.path().extension() != ".sst") continue;
    rocksdb::SstFileReader reader{rocksdb::Options()};
    rocksdb::Status opened = reader.Open(file.path().string());
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    if (opened.ok()) properties.push_back(*reader.GetTableProperties());
  }
  return properties;
}

// A data block's bytes before compression, on average over a file's blocks.
uint64_t AverageBlockBytes(const rocksdb::TableProperties& table) {
  return table.num_data_blocks == 0
             ? 0
             : (table.raw_key_size + table.raw_value_size) / table.num_data_blocks;
}

TEST_F(EngineTest, AFullCompactionLeavesLz4Blocks) {
  for (int i = 0; i < 5000; ++i) {
    engine_->Put("limiter:" + std::to_string(i), StringRecord(std::string(32, 'a' + i % 26)));
  }
  ASSERT_TRUE(engine_->Commit(false).ok());

  ASSERT_TRUE(engine_->CompactAll().ok());  // to the bottom level

  const std::vector<rocksdb::TableProperties> tables = PropertiesOfEachTableFile(Options().dir);
  ASSERT_FALSE(tables.empty());
  for (const rocksdb::TableProperties& table : tables) EXPECT_EQ(table.compression_name, "LZ4");
}

TEST_F(EngineTest, KeySpaceBlocksAreSmallAndElementBlocksAreNot) {
  const uint64_t version = engine_->NextVersion();
  engine_->Put("hash", CompositeRecord(KeyType::kHash, version, 5000));
  for (int i = 0; i < 5000; ++i) {
    const std::string value(32, 'a' + i % 26);
    engine_->Put("limiter:" + std::to_string(i), StringRecord(value));
    engine_->PutSubEntry(SubFamily::kSubkeys,
                         EncodeSubKey("hash", version, "field:" + std::to_string(i)), value);
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  ASSERT_TRUE(engine_->CompactAll().ok());

  int key_space_files = 0;
  int element_files = 0;
  for (const rocksdb::TableProperties& table : PropertiesOfEachTableFile(Options().dir)) {
    // Near each family's block size, not exactly: the raw sizes count whole keys, which the
    // blocks store with shared prefixes left out, and a block closes past its size.
    if (table.column_family_name == rocksdb::kDefaultColumnFamilyName) {
      ++key_space_files;
      EXPECT_LE(AverageBlockBytes(table), 3 * kKeySpaceBlockBytes / 2);
    } else if (table.column_family_name == kSubkeysFamilyName) {
      ++element_files;
      EXPECT_GE(AverageBlockBytes(table), 3 * kDefaultBlockBytes / 4);
    }
  }
  EXPECT_GT(key_space_files, 0);
  EXPECT_GT(element_files, 0);
}

}  // namespace
}  // namespace sluice::storage::testing
