#include "storage/key_encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "storage/record.h"

namespace sluice::storage {
namespace {

using namespace std::string_literals;

Record MakeRecord(KeyType type, int64_t expire_at_ms, uint64_t version, uint64_t size,
                  std::string payload) {
  Record r;
  r.meta.type = type;
  r.meta.expire_at_ms = expire_at_ms;
  r.meta.version = version;
  r.meta.size = size;
  r.payload = std::move(payload);
  return r;
}

void ExpectSameRecord(const Record& a, const Record& b) {
  EXPECT_EQ(a.meta.type, b.meta.type);
  EXPECT_EQ(a.meta.expire_at_ms, b.meta.expire_at_ms);
  EXPECT_EQ(a.meta.version, b.meta.version);
  EXPECT_EQ(a.meta.size, b.meta.size);
  EXPECT_EQ(a.payload, b.payload);
}

// --- Records --------------------------------------------------------------------------------

TEST(RecordEncodingTest, StringLayoutIsTypeFormatExpiryPayload) {
  Record r = MakeRecord(KeyType::kString, 0x0102030405060708, 0, 0, "hello");
  std::string bytes = EncodeRecord(r);
  const std::string expected = "\x01\x01"s + "\x08\x07\x06\x05\x04\x03\x02\x01"s + "hello";
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(bytes.size(), kSimpleHeaderBytes + 5);
}

TEST(RecordEncodingTest, CompositeLayoutAddsVersionAndSize) {
  Record r = MakeRecord(KeyType::kHash, 0, 0x1122334455667788, 3, "");
  std::string bytes = EncodeRecord(r);
  const std::string expected = "\x02\x01"s + std::string(8, '\0') +
                               "\x88\x77\x66\x55\x44\x33\x22\x11"s +
                               "\x03\x00\x00\x00\x00\x00\x00\x00"s;
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(bytes.size(), kCompositeHeaderBytes);
}

TEST(RecordEncodingTest, StringsAndLimitersCarryNoVersionOrSize) {
  // Version and size of non-composite types are not stored: they decode as 0.
  Record r = MakeRecord(KeyType::kLimiter, 42, 99, 99, std::string(16, 'x'));
  std::string bytes = EncodeRecord(r);
  EXPECT_EQ(bytes.size(), 32u);  // 10 header bytes, 16 of state, padded to the 32-byte class
  StatusOr<Record> back = DecodeRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->meta.version, 0u);
  EXPECT_EQ(back->meta.size, 0u);
  EXPECT_EQ(back->meta.expire_at_ms, 42);
  EXPECT_EQ(back->payload, std::string(16, 'x'));
}

TEST(RecordEncodingTest, RoundTripsEveryType) {
  const std::vector<Record> records = {
      MakeRecord(KeyType::kString, 0, 0, 0, ""),
      MakeRecord(KeyType::kString, 1700000000123, 0, 0, "v\0al\xff"s),
      MakeRecord(KeyType::kString, -5, 0, 0, "negative expiry survives"),
      MakeRecord(KeyType::kLimiter, std::numeric_limits<int64_t>::max(), 0, 0, "\x01\x02"s),
      MakeRecord(KeyType::kHash, 7, 1, 0, ""),
      MakeRecord(KeyType::kZSet, 0, std::numeric_limits<uint64_t>::max(), 12345, ""),
      MakeRecord(KeyType::kList, 9, 77, 2, "head-tail"),
  };
  for (const Record& r : records) {
    SCOPED_TRACE(std::string(TypeName(r.meta.type)));
    const std::string bytes = EncodeRecord(r);
    StatusOr<Record> back = DecodeRecord(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ExpectSameRecord(*back, r);
    StatusOr<Metadata> meta = DecodeMetadata(bytes);
    ASSERT_TRUE(meta.ok()) << meta.status().message();
    EXPECT_EQ(meta->type, r.meta.type);
    EXPECT_EQ(meta->expire_at_ms, r.meta.expire_at_ms);
    EXPECT_EQ(meta->version, r.meta.version);
    EXPECT_EQ(meta->size, r.meta.size);
  }
}

TEST(RecordEncodingTest, EveryTruncatedHeaderIsAnError) {
  for (KeyType type : {KeyType::kString, KeyType::kLimiter, KeyType::kHash, KeyType::kZSet,
                       KeyType::kList, KeyType::kSet}) {
    const std::string bytes = EncodeRecord(MakeRecord(type, 123, 4, 5, ""));
    const size_t header = IsCompositeType(type) ? kCompositeHeaderBytes : kSimpleHeaderBytes;
    for (size_t len = 0; len < header; ++len) {
      SCOPED_TRACE(std::string(TypeName(type)) + " truncated to " + std::to_string(len));
      // A fresh allocation of exactly `len` bytes, so ASan flags any read past the end.
      std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<long>(len));
      std::string_view view(cut.data(), cut.size());
      StatusOr<Record> record = DecodeRecord(view);
      EXPECT_FALSE(record.ok());
      EXPECT_EQ(record.status().code(), Code::kIo);
      EXPECT_FALSE(DecodeMetadata(view).ok());
    }
  }
}

TEST(RecordEncodingTest, UnknownTypeOrFormatIsAnError) {
  std::string bytes = EncodeRecord(MakeRecord(KeyType::kString, 0, 0, 0, "x"));
  for (uint8_t bad_type : {uint8_t{0}, uint8_t{7}, uint8_t{0xff}}) {
    std::string copy = bytes;
    copy[0] = static_cast<char>(bad_type);
    StatusOr<Record> r = DecodeRecord(copy);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("unknown type"), std::string::npos);
  }
  for (uint8_t bad_format : {uint8_t{0}, uint8_t{5}, uint8_t{0x81}}) {
    std::string copy = bytes;
    copy[1] = static_cast<char>(bad_format);
    StatusOr<Metadata> m = DecodeMetadata(copy);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.status().message().find("unknown format"), std::string::npos);
  }
}

// A long string's record is its header alone: version and size name its bytes' sub-entry.
TEST(RecordEncodingTest, LongStringRecordIsAHeaderWithVersionAndSize) {
  Metadata meta;
  meta.type = KeyType::kString;
  meta.expire_at_ms = 12345;
  meta.version = 77;
  meta.size = 1 << 20;
  meta.payload_outside = true;
  std::string bytes;
  EncodeRecordTo(meta, "", &bytes);
  ASSERT_EQ(bytes.size(), kCompositeHeaderBytes);
  EXPECT_EQ(bytes[1], static_cast<char>(kOutsideRecordFormat));
  StatusOr<RecordView> view = DecodeRecordView(bytes);
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_TRUE(view->meta.payload_outside);
  EXPECT_EQ(view->meta.expire_at_ms, 12345);
  EXPECT_EQ(view->meta.version, 77u);
  EXPECT_EQ(view->meta.size, uint64_t{1} << 20);
  EXPECT_TRUE(view->payload.empty());
  EXPECT_FALSE(DecodeRecordView(bytes + "x").ok());  // no payload may follow
  bytes[0] = static_cast<char>(KeyType::kHash);       // only strings are stored this way
  EXPECT_FALSE(DecodeMetadata(bytes).ok());
}

TEST(RecordEncodingTest, RandomBytesNeverCrashAndDecodedOnesReencodeIdentically) {
  std::mt19937_64 rng(20240601);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 40);
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<char> buf(static_cast<size_t>(length(rng)));
    for (char& c : buf) c = static_cast<char>(byte(rng));
    // Bias towards plausible headers so that the success path gets exercised too.
    if (buf.size() >= 2 && i % 2 == 0) {
      buf[0] = static_cast<char>(1 + i % 5);
      buf[1] = static_cast<char>(i % 4 == 0 ? kPaddedRecordFormat : kRecordFormat);
    }
    std::string_view view(buf.data(), buf.size());
    StatusOr<Record> r = DecodeRecord(view);
    EXPECT_EQ(r.ok(), DecodeMetadata(view).ok());
    if (r.ok()) {
      ++decoded;
      // Limiter states are written padded, whatever format they were read in; every other
      // type is written exactly as it was read.
      const std::string again = EncodeRecord(*r);
      if (r->meta.type == KeyType::kLimiter || view[1] == static_cast<char>(kPaddedRecordFormat)) {
        StatusOr<Record> back = DecodeRecord(again);
        ASSERT_TRUE(back.ok());
        ExpectSameRecord(*back, *r);
      } else {
        EXPECT_EQ(again, view);
      }
    }
  }
  EXPECT_GT(decoded, 1000);
}

// A limiter's state is padded to a size class: states that grow or shrink a little keep
// their stored size (so RocksDB rewrites them in place), and the padding decodes away.
TEST(RecordEncodingTest, LimiterStatesArePaddedToSizeClasses) {
  std::map<size_t, std::vector<size_t>> sizes_by_class;
  for (size_t state = 0; state <= 600; ++state) {
    const Record r = MakeRecord(KeyType::kLimiter, 5, 0, 0, std::string(state, '\x7f'));
    const std::string bytes = EncodeRecord(r);
    EXPECT_EQ(bytes[1], static_cast<char>(kPaddedRecordFormat));
    EXPECT_EQ(bytes.size(), PaddedRecordBytes(kSimpleHeaderBytes + state + 1));
    EXPECT_GE(bytes.size(), kSimpleHeaderBytes + state + 1);
    StatusOr<Record> back = DecodeRecord(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ExpectSameRecord(*back, r);
    sizes_by_class[bytes.size()].push_back(state);
  }
  std::vector<size_t> classes;
  for (const auto& [size, states] : sizes_by_class) classes.push_back(size);
  EXPECT_EQ(classes, (std::vector<size_t>{32, 64, 128, 256, 384, 512, 640}));
  // The padding is zeros and one count byte, at most 127 of them.
  const std::string bytes = EncodeRecord(MakeRecord(KeyType::kLimiter, 0, 0, 0, "ab"));
  EXPECT_EQ(static_cast<uint8_t>(bytes.back()), 32 - 10 - 2 - 1);
  // A count running past the payload, or a padded record with no count byte, is corrupt.
  std::string too_much = bytes;
  too_much.back() = static_cast<char>(40);
  EXPECT_FALSE(DecodeRecord(too_much).ok());
  EXPECT_FALSE(DecodeMetadata(too_much).ok());
  EXPECT_FALSE(DecodeRecord(bytes.substr(0, kSimpleHeaderBytes)).ok());
  // A limiter written before padding (format 1) still reads.
  std::string unpadded = bytes.substr(0, kSimpleHeaderBytes) + "ab";
  unpadded[1] = static_cast<char>(kRecordFormat);
  StatusOr<Record> old = DecodeRecord(unpadded);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->payload, "ab");
}

// A state rewritten over its key's record keeps that record's size when it shrank by one
// class (so a later growth back is rewritten in place too), never by more, and never with
// more zeros than the count byte can say.
TEST(RecordEncodingTest, LimiterStateKeepsTheSizeItIsStoredAtWhenOneClassSmaller) {
  EXPECT_EQ(PaddedRecordBytes(20, 0), 32u);
  EXPECT_EQ(PaddedRecordBytes(20, 32), 32u);
  EXPECT_EQ(PaddedRecordBytes(20, 64), 64u);
  EXPECT_EQ(PaddedRecordBytes(20, 128), 32u);  // two classes up: not kept
  EXPECT_EQ(PaddedRecordBytes(40, 32), 64u);   // grown: its own class
  EXPECT_EQ(PaddedRecordBytes(100, 256), 256u);
  EXPECT_EQ(PaddedRecordBytes(300, 512), 512u);
  EXPECT_EQ(PaddedRecordBytes(129, 512), 256u);  // 383 zeros: more than a byte counts
  EXPECT_EQ(PaddedRecordBytes(257, 512), 512u);  // 255 zeros

  Record small = MakeRecord(KeyType::kLimiter, 5, 0, 0, "state");
  StatusOr<Metadata> was =
      DecodeMetadata(EncodeRecord(MakeRecord(KeyType::kLimiter, 5, 0, 0, std::string(40, 's'))));
  ASSERT_TRUE(was.ok());
  EXPECT_EQ(was->stored_bytes, 64u);
  small.meta.stored_bytes = was->stored_bytes;
  const std::string bytes = EncodeRecord(small);
  EXPECT_EQ(bytes.size(), 64u);
  StatusOr<Record> back = DecodeRecord(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->payload, "state");
  EXPECT_EQ(back->meta.stored_bytes, 64u);
  // Other types are never padded.
  Record text = MakeRecord(KeyType::kString, 0, 0, 0, "v");
  text.meta.stored_bytes = 64;
  EXPECT_EQ(EncodeRecord(text).size(), kSimpleHeaderBytes + 1);
}

TEST(RecordEncodingTest, TypeNames) {
  const std::vector<std::pair<KeyType, std::string_view>> table = {
      {KeyType::kString, "string"}, {KeyType::kHash, "hash"},       {KeyType::kZSet, "zset"},
      {KeyType::kList, "list"},     {KeyType::kLimiter, "limiter"}, {KeyType::kSet, "set"},
  };
  for (const auto& [type, name] : table) {
    EXPECT_EQ(TypeName(type), name);
    EXPECT_EQ(ParseTypeName(name), type);
  }
  EXPECT_EQ(ParseTypeName("ZSET"), KeyType::kZSet);
  EXPECT_EQ(ParseTypeName("Limiter"), KeyType::kLimiter);
  EXPECT_EQ(ParseTypeName(""), std::nullopt);
  EXPECT_EQ(ParseTypeName("Set"), KeyType::kSet);
  EXPECT_EQ(ParseTypeName("sets"), std::nullopt);
  EXPECT_EQ(ParseTypeName("strings"), std::nullopt);
  EXPECT_EQ(ParseTypeName("stream"), std::nullopt);
  EXPECT_TRUE(IsCompositeType(KeyType::kHash));
  EXPECT_TRUE(IsCompositeType(KeyType::kZSet));
  EXPECT_TRUE(IsCompositeType(KeyType::kList));
  EXPECT_TRUE(IsCompositeType(KeyType::kSet));
  EXPECT_FALSE(IsCompositeType(KeyType::kString));
  EXPECT_FALSE(IsCompositeType(KeyType::kLimiter));
}

// --- The expiry predicate ---------------------------------------------------------------------

TEST(IsExpiredAtTest, Table) {
  struct Row {
    int64_t expire_at_ms;
    int64_t now_ms;
    bool expired;
  };
  const Row rows[] = {
      {0, 0, false},  // no expiry
      {0, std::numeric_limits<int64_t>::max(), false},
      {1000, 999, false},
      {1000, 1000, false},  // at its expiry time a key still exists (Redis: now > when)
      {1000, 1001, true},
      {1000, 5000, true},
      {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(), false},
      {-1, 0, true},  // already in the past
  };
  for (const Row& row : rows) {
    Metadata meta;
    meta.expire_at_ms = row.expire_at_ms;
    EXPECT_EQ(IsExpiredAt(meta, row.now_ms), row.expired)
        << "expire_at=" << row.expire_at_ms << " now=" << row.now_ms;
  }
}

// A swept record keeps every byte but its expiry, and reads as expired for any time and under
// any hold; no record written with an expiry of its own is swept.
TEST(SweptRecordTest, KeepsItsBytesAndSizeAndReadsAsExpired) {
  const std::vector<Record> records = {
      MakeRecord(KeyType::kString, 1000, 0, 0, "value"),
      MakeRecord(KeyType::kLimiter, 1000, 0, 0, "state"),
      MakeRecord(KeyType::kHash, 1000, 42, 3, ""),
  };
  for (const Record& record : records) {
    const std::string before = EncodeRecord(record);
    EXPECT_FALSE(IsSweptRecord(before));
    std::string swept = before;
    MarkSwept(&swept);
    EXPECT_TRUE(IsSweptRecord(swept));
    ASSERT_EQ(swept.size(), before.size());
    EXPECT_EQ(swept.substr(0, 2), before.substr(0, 2));
    EXPECT_EQ(swept.substr(kSimpleHeaderBytes), before.substr(kSimpleHeaderBytes));
    StatusOr<RecordView> view = DecodeRecordView(swept);
    ASSERT_TRUE(view.ok()) << view.status().message();
    EXPECT_TRUE(IsSwept(view->meta));
    EXPECT_EQ(view->meta.version, record.meta.version);
    // The hold a server starts under (PolicyChangeHold::Everything) covers every expiry.
    const ExpiryHold every_limiter{std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(), nullptr};
    for (int64_t now_ms : {int64_t{0}, int64_t{999}, std::numeric_limits<int64_t>::max()}) {
      EXPECT_TRUE(IsExpiredAt(*view, now_ms, every_limiter)) << now_ms;
    }
  }
  for (int64_t expire_at_ms : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_FALSE(IsSweptRecord(EncodeRecord(MakeRecord(KeyType::kString, expire_at_ms, 0, 0, ""))));
  }
  EXPECT_FALSE(IsSweptRecord("short"));
}

// --- Fixed-width integers ---------------------------------------------------------------------

TEST(FixedTest, RoundTripsAndByteOrder) {
  std::string s;
  PutFixed64LE(&s, 0x0102030405060708);
  PutFixed64BE(&s, 0x0102030405060708);
  PutFixed32BE(&s, 0xa1b2c3d4);
  ASSERT_EQ(s.size(), 20u);
  EXPECT_EQ(s.substr(0, 8), "\x08\x07\x06\x05\x04\x03\x02\x01"s);
  EXPECT_EQ(s.substr(8, 8), "\x01\x02\x03\x04\x05\x06\x07\x08"s);
  EXPECT_EQ(s.substr(16, 4), "\xa1\xb2\xc3\xd4"s);
  EXPECT_EQ(LoadFixed64LE(s.data()), 0x0102030405060708u);
  EXPECT_EQ(LoadFixed64BE(s.data() + 8), 0x0102030405060708u);
  EXPECT_EQ(LoadFixed32BE(s.data() + 16), 0xa1b2c3d4u);
}

// --- Order-preserving doubles -----------------------------------------------------------------

std::string EncodedDouble(double d) {
  std::string s;
  PutOrderedDouble(&s, d);
  return s;
}

TEST(OrderedDoubleTest, SpecialValuesInOrder) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> ascending = {
      -inf,
      std::numeric_limits<double>::lowest(),
      -1e300,
      -2.5,
      -1.0,
      -std::numeric_limits<double>::min(),
      -std::numeric_limits<double>::denorm_min(),
      0.0,
      std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::min(),
      1.0,
      1.0000000000000002,
      2.5,
      1e300,
      std::numeric_limits<double>::max(),
      inf,
  };
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(EncodedDouble(ascending[i]), EncodedDouble(ascending[i + 1]))
        << ascending[i] << " vs " << ascending[i + 1];
  }
  for (double d : ascending) {
    EXPECT_EQ(DoubleFromOrderedBits(OrderedDoubleBits(d)), d);
    EXPECT_EQ(EncodedDouble(d).size(), 8u);
  }
}

TEST(OrderedDoubleTest, NegativeZeroEqualsPositiveZero) {
  EXPECT_EQ(EncodedDouble(-0.0), EncodedDouble(0.0));
  const double back = DoubleFromOrderedBits(OrderedDoubleBits(-0.0));
  EXPECT_EQ(back, 0.0);
  EXPECT_FALSE(std::signbit(back));
}

TEST(OrderedDoubleTest, ByteOrderIsNumericOrderOverRandomDoubles) {
  std::mt19937_64 rng(7);
  std::vector<double> values = {-std::numeric_limits<double>::infinity(), -0.0, 0.0,
                                std::numeric_limits<double>::infinity()};
  std::uniform_real_distribution<double> small(-1000, 1000);
  for (int i = 0; i < 3000; ++i) {
    values.push_back(small(rng));
    double bits_value;
    uint64_t bits = rng();
    std::memcpy(&bits_value, &bits, sizeof(bits));
    if (!std::isnan(bits_value)) values.push_back(bits_value);  // any exponent, denormals too
    values.push_back(std::trunc(small(rng)));                   // many exact ties
  }
  std::vector<double> by_value = values;
  std::sort(by_value.begin(), by_value.end());
  std::vector<double> by_bytes = values;
  std::stable_sort(by_bytes.begin(), by_bytes.end(),
                   [](double a, double b) { return EncodedDouble(a) < EncodedDouble(b); });
  ASSERT_EQ(by_value.size(), by_bytes.size());
  for (size_t i = 0; i < by_value.size(); ++i) {
    ASSERT_EQ(by_value[i], by_bytes[i]) << "at " << i;  // -0.0 == 0.0 compares equal
  }
  // Pairwise: order and equality agree exactly.
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const double a = values[i];
    const double b = values[i + 1];
    EXPECT_EQ(a < b, EncodedDouble(a) < EncodedDouble(b));
    EXPECT_EQ(a == b, EncodedDouble(a) == EncodedDouble(b));
    if (a != 0) {
      EXPECT_EQ(DoubleFromOrderedBits(OrderedDoubleBits(a)), a);
    }
  }
}

// --- Sub-keys ---------------------------------------------------------------------------------

TEST(SubKeyTest, LayoutAndRoundTrip) {
  const std::string key = EncodeSubKey("user", 0x0102030405060708, "field");
  const std::string expected =
      "\x00\x00\x00\x04"s + "user" + "\x01\x02\x03\x04\x05\x06\x07\x08"s + "field";
  EXPECT_EQ(key, expected);
  EXPECT_EQ(key.rfind(SubKeyPrefix("user", 0x0102030405060708), 0), 0u);
  EXPECT_EQ(key.rfind(UserKeyPrefix("user"), 0), 0u);
  StatusOr<SubKey> back = DecodeSubKey(key);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->user_key, "user");
  EXPECT_EQ(back->version, 0x0102030405060708u);
  EXPECT_EQ(back->sub_key, "field");
}

TEST(SubKeyTest, BinaryAndEmptyPartsRoundTrip) {
  for (const std::string& user : {""s, "a"s, "\0\xff\0"s, std::string(300, 'k')}) {
    for (const std::string& sub : {""s, "\0"s, "\xff\xff"s, "plain"s}) {
      const std::string key = EncodeSubKey(user, 42, sub);
      StatusOr<SubKey> back = DecodeSubKey(key);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(back->user_key, user);
      EXPECT_EQ(back->version, 42u);
      EXPECT_EQ(back->sub_key, sub);
    }
  }
}

TEST(SubKeyTest, CorruptKeysAreErrors) {
  const std::vector<std::string> bad = {
      "",
      "\x00\x00\x00"s,  // short length
      "\x00\x00\x00\x05"
      "abc"s,  // user key cut
      "\x00\x00\x00\x03"
      "abc"
      "\x00\x00\x00"s,  // version cut
      "\xff\xff\xff\xff"
      "abcdefghijkl"s,  // absurd length
  };
  for (const std::string& b : bad) {
    std::vector<char> exact(b.begin(), b.end());  // no slack for ASan to miss
    std::string_view view(exact.data(), exact.size());
    EXPECT_FALSE(DecodeSubKey(view).ok());
    EXPECT_FALSE(DecodeSubKeyOwner(view).ok());
    EXPECT_FALSE(DecodeZScoreKey(view).ok());
  }
  // A complete sub-key whose rest is shorter than a score is not a zscore key.
  EXPECT_TRUE(DecodeSubKey(EncodeSubKey("k", 1, "abc")).ok());
  EXPECT_FALSE(DecodeZScoreKey(EncodeSubKey("k", 1, "abc")).ok());
}

TEST(SubKeyTest, OneKeysEntriesAreContiguousAndVersionsOrdered) {
  // Without the length prefix, "a" + version could sort among the entries of "a\0..." keys.
  std::vector<std::string> keys = {
      EncodeSubKey("a", 2, "x"),     EncodeSubKey("a", 1, "zzz"), EncodeSubKey("ab", 1, ""),
      EncodeSubKey("a\0"s, 1, "m"),  EncodeSubKey("a", 256, ""),  EncodeSubKey("b", 0, "a"),
      EncodeSubKey("a", 1, "\xff"s), EncodeSubKey("", 9, "q"),
  };
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<std::string, uint64_t>> owners;
  for (const std::string& k : keys) {
    StatusOr<SubKeyOwner> owner = DecodeSubKeyOwner(k);
    ASSERT_TRUE(owner.ok());
    owners.emplace_back(std::string(owner->user_key), owner->version);
  }
  // Every (user key, version) group is contiguous, and within a key versions ascend.
  for (size_t i = 0; i < owners.size(); ++i) {
    for (size_t j = i + 2; j < owners.size(); ++j) {
      if (owners[i].first == owners[j].first) {
        EXPECT_EQ(owners[i + 1].first, owners[i].first) << "key groups interleave";
      }
    }
    if (i + 1 < owners.size() && owners[i].first == owners[i + 1].first) {
      EXPECT_LE(owners[i].second, owners[i + 1].second);
    }
  }
  const std::string prefix = SubKeyPrefix("a", 1);
  const std::string end = PrefixSuccessor(prefix);
  int in_range = 0;
  for (const std::string& k : keys) in_range += (k >= prefix && k < end);
  EXPECT_EQ(in_range, 2);  // "zzz" and "\xff" of ("a", 1) only
}

TEST(ZScoreKeyTest, RoundTripAndOrderByScoreThenMember) {
  const std::string k = EncodeZScoreKey("z", 5, -1.5, "m1");
  StatusOr<ZScoreKey> back = DecodeZScoreKey(k);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->user_key, "z");
  EXPECT_EQ(back->version, 5u);
  EXPECT_EQ(back->score, -1.5);
  EXPECT_EQ(back->member, "m1");

  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, std::string>> ascending = {
      {-inf, "z"}, {-3, "a"}, {-3, "b"}, {0, "a"}, {-0.0, "b"}, {0, "c"}, {2, ""}, {inf, "a"},
  };
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(EncodeZScoreKey("z", 5, ascending[i].first, ascending[i].second),
              EncodeZScoreKey("z", 5, ascending[i + 1].first, ascending[i + 1].second))
        << i;
  }
}

TEST(PrefixSuccessorTest, Table) {
  EXPECT_EQ(PrefixSuccessor("abc"), "abd");
  EXPECT_EQ(PrefixSuccessor("ab\xff"s), "ac");
  EXPECT_EQ(PrefixSuccessor("a\xff\xff"s), "b");
  EXPECT_EQ(PrefixSuccessor("\xff\xff"s), "");
  EXPECT_EQ(PrefixSuccessor(""), "");
  EXPECT_EQ(PrefixSuccessor("\x00"s), "\x01"s);
}

}  // namespace
}  // namespace sluice::storage
