#include "storage/long_string.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>

#include "engine_test_util.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

constexpr uint64_t kChunk = kStringChunkBytes;

class LongStringTest : public EngineTest {
 protected:
  std::optional<RecordView> Look(std::string_view key) {
    StatusOr<std::optional<RecordView>> view = engine_->GetViewWithoutLongPayload(key, NowMs());
    EXPECT_TRUE(view.ok()) << view.status().message();
    return view.ok() ? *view : std::nullopt;
  }
  uint64_t Write(std::string_view key, uint64_t offset, std::string_view bytes) {
    StatusOr<uint64_t> length = WriteStringRange(*engine_, key, Look(key), offset, bytes);
    EXPECT_TRUE(length.ok()) << length.status().message();
    return length.ok() ? *length : 0;
  }
  std::string Read(std::string_view key, uint64_t offset, uint64_t length) {
    std::optional<RecordView> record = Look(key);
    if (!record) return "(missing)";
    std::string buffer;
    StatusOr<std::string_view> bytes =
        ReadStringRange(*engine_, key, *record, offset, length, &buffer);
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    return bytes.ok() ? std::string(*bytes) : "(error)";
  }
  // Writes staged by `write`.
  template <typename F>
  uint64_t StagedBy(F write) {
    const uint64_t before = engine_->StagedWriteCount();
    write();
    return engine_->StagedWriteCount() - before;
  }
};

// Range writes and reads against a plain string, across the inline limit, chunk edges, growth
// with zero bytes, commits, a reopen and a compaction.
TEST_F(LongStringTest, RangeWritesAndReadsMatchAPlainString) {
  std::mt19937_64 rng(7);
  std::string model;
  for (int step = 0; step < 400; ++step) {
    const uint64_t limit = step < 100 ? 20 * 1024 : 200 * 1024;
    const uint64_t offset = rng() % limit;
    std::string bytes(1 + rng() % (step % 10 == 0 ? 3 * kChunk : 300), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 3 == 0 ? 0 : rng());
    EXPECT_EQ(Write("s", offset, bytes), std::max<uint64_t>(model.size(), offset + bytes.size()));
    if (model.size() < offset + bytes.size()) model.resize(offset + bytes.size(), '\0');
    model.replace(offset, bytes.size(), bytes);
    if (step % 7 == 0) ASSERT_TRUE(engine_->Commit(false).ok());
    if (step == 200) {
      ASSERT_TRUE(engine_->Commit(false).ok());
      Reopen();
      ASSERT_TRUE(engine_->CompactAll().ok());
    }
    const uint64_t at = rng() % (model.size() + 10);
    const uint64_t length = rng() % (step % 5 == 0 ? 5 * kChunk : 200);
    const std::string expected = at < model.size() ? model.substr(at, length) : "";
    ASSERT_EQ(Read("s", at, length), expected) << "step " << step;
  }
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(GetOrDie("s")->payload, model);
  EXPECT_TRUE(GetOrDie("s")->meta.chunked);
}

// A write of a few bytes stages the chunk it lands in, and the record only when the string
// grows; the other chunks are neither read again nor written.
TEST_F(LongStringTest, AWriteStagesOnlyTheChunksItTouches) {
  PutAndCommit("s", StringRecord(std::string(64 * kChunk, 'a'), kStartMs + 60000));
  EXPECT_EQ(StagedBy([&] { Write("s", 10 * kChunk + 5, "xyz"); }), 1u);
  EXPECT_EQ(StagedBy([&] { Write("s", 3 * kChunk - 1, "xy"); }), 2u);  // across an edge
  EXPECT_EQ(StagedBy([&] { Write("s", 64 * kChunk, "tail"); }), 2u);   // a new chunk, a size
  EXPECT_EQ(StagedBy([&] { Write("s", 64 * kChunk + 4, ""); }), 1u);   // the record alone
  ASSERT_TRUE(engine_->Commit(false).ok());
  std::string expected(64 * kChunk, 'a');
  expected.replace(10 * kChunk + 5, 3, "xyz");
  expected.replace(3 * kChunk - 1, 2, "xy");
  expected += "tail";
  std::optional<Record> got = GetOrDie("s");
  EXPECT_EQ(got->payload, expected);
  EXPECT_EQ(got->meta.expire_at_ms, kStartMs + 60000);  // the expiry stays
}

// A string written whole stores no chunk of zeros, and a write far past its end stores the
// chunk it lands in: the zeros between cost nothing, and read back as zeros.
TEST_F(LongStringTest, ZeroChunksAreNotStored) {
  std::string sparse(100 * kChunk, '\0');
  sparse[50 * kChunk + 7] = 'x';
  PutAndCommit("sparse", StringRecord(sparse));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
  EXPECT_EQ(GetOrDie("sparse")->payload, sparse);

  EXPECT_EQ(Write("sparse", 1000 * kChunk, "!"), 1000 * kChunk + 1);
  ASSERT_TRUE(engine_->Commit(false).ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 2u);
  EXPECT_EQ(Read("sparse", 50 * kChunk, 10), std::string(7, '\0') + "x" + std::string(2, '\0'));
  EXPECT_EQ(Read("sparse", 999 * kChunk, kChunk + 5), std::string(kChunk, '\0') + "!");
  EXPECT_EQ(GetOrDie("sparse")->payload.size(), 1000 * kChunk + 1);
}

// A long string stored before chunks (one sub-entry, kOutsideRecordFormat) still reads, and
// its first range write rewrites it in chunks under a new version.
TEST_F(LongStringTest, AOneEntryStringIsReadAndRewrittenInChunks) {
  std::string bytes(50 * 1024, 'q');
  bytes[20000] = 'r';
  Metadata legacy;
  legacy.type = KeyType::kString;
  legacy.payload_outside = true;
  legacy.version = engine_->NextVersion();
  legacy.size = bytes.size();
  legacy.expire_at_ms = kStartMs + 90000;
  engine_->PutSubEntry(SubFamily::kSubkeys, EncodeSubKey("old", legacy.version, ""), bytes);
  engine_->PutWithoutLongPayload("old", legacy, {});
  ASSERT_TRUE(engine_->Commit(false).ok());
  Reopen();
  EXPECT_FALSE(Look("old")->meta.chunked);
  EXPECT_EQ(GetOrDie("old")->payload, bytes);
  EXPECT_EQ(Read("old", 19999, 3), "qrq");

  EXPECT_EQ(Write("old", 30000, "new"), bytes.size());
  ASSERT_TRUE(engine_->Commit(false).ok());
  bytes.replace(30000, 3, "new");
  std::optional<Record> got = GetOrDie("old");
  EXPECT_TRUE(got->meta.chunked);
  EXPECT_NE(got->meta.version, legacy.version);
  EXPECT_EQ(got->meta.expire_at_ms, kStartMs + 90000);
  EXPECT_EQ(got->payload, bytes);
  ASSERT_TRUE(engine_->CompactAll().ok());  // the one entry is garbage now
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), (bytes.size() + kChunk - 1) / kChunk);
}

// Range writes within a batch see each other and the string's staged chunks; a discarded
// batch leaves the string as it was.
TEST_F(LongStringTest, StagedChunksAreReadAndDiscarded) {
  engine_->Put("s", Metadata{}, std::string(5 * kChunk, 'a'));
  Write("s", kChunk - 2, "bbbb");
  EXPECT_EQ(Read("s", kChunk - 3, 6), "abbbba");
  ASSERT_TRUE(engine_->Commit(false).ok());
  Write("s", 2, "zz");
  Write("s", 8 * kChunk, "zz");
  EXPECT_EQ(Read("s", 0, 5), "aazza");
  engine_->DiscardStaged();
  EXPECT_EQ(Read("s", 0, 5), "aaaaa");
  EXPECT_EQ(Look("s")->meta.size, 5 * kChunk);
}

}  // namespace
}  // namespace sluice::storage::testing
