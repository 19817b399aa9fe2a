#include "storage/zset_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

// A sorted array walked with RocksDB's iterator semantics: what the inline index must match.
class ModelIterator {
 public:
  explicit ModelIterator(const std::vector<std::string>& keys) : keys_(keys), at_(keys.size()) {}
  bool Valid() const { return at_ < keys_.size(); }
  std::string key() const { return keys_[at_]; }
  void SeekToFirst() { at_ = 0; }
  void SeekToLast() { at_ = keys_.empty() ? 0 : keys_.size() - 1; }
  void Seek(const std::string& t) {
    at_ = std::lower_bound(keys_.begin(), keys_.end(), t) - keys_.begin();
  }
  void SeekForPrev(const std::string& t) {
    size_t past = std::upper_bound(keys_.begin(), keys_.end(), t) - keys_.begin();
    at_ = past == 0 ? keys_.size() : past - 1;
  }
  void Next() {
    if (Valid()) ++at_;
  }
  void Prev() {
    if (Valid()) at_ = at_ == 0 ? keys_.size() : at_ - 1;
  }

 private:
  const std::vector<std::string>& keys_;
  size_t at_;
};

class ZSetKeyTest : public EngineTest {};

// An inline set's index reads the stored entries forwards and decodes them at its first step
// backwards, mid-walk: every random sequence of seeks and steps lands where a sorted array
// says, whichever way the iterator is reading at the time.
TEST_F(ZSetKeyTest, InlineIndexWalksLikeASortedArray) {
  std::mt19937 rng(11);
  Record stored = ZSetKey::NewRecord(*engine_);
  std::vector<std::string> keys;
  {
    ZSetKey set(*engine_, "z", stored, InlineLimits{});
    ASSERT_TRUE(set.Load().ok());
    for (int i = 0; i < 60; ++i) {
      const double score = static_cast<double>(rng() % 20) - 5;
      const std::string member = "m" + std::to_string(rng() % 1000) + "-" + std::to_string(i);
      set.Insert(member, score);
      keys.push_back(set.IndexKey(score, member));
    }
    stored.meta.size = keys.size();
    ASSERT_TRUE(set.Store().ok());
  }
  std::sort(keys.begin(), keys.end());
  auto target = [&] {
    std::string t = keys[rng() % keys.size()];
    switch (rng() % 4) {
      case 0:
        return t;
      case 1:
        return t.substr(0, 8);  // a bare score: just before that score's first member
      case 2:
        return t + '\0';  // just after the key
      default:
        return std::string(rng() % 2 ? "" : "\xff\xff\xff\xff\xff\xff\xff\xff\xff");
    }
  };
  for (int trial = 0; trial < 400; ++trial) {
    // Reading takes the record as it is: every trial reads the one stored, copying nothing.
    const Record& record = stored;
    ZSetReader set(*engine_, "z", record);
    ASSERT_TRUE(set.Load().ok());
    std::unique_ptr<SubEntryIterator> it = set.Index();
    ModelIterator model(keys);
    for (int step = 0; step < 16; ++step) {
      switch (rng() % 6) {
        case 0:
          it->SeekToFirst(), model.SeekToFirst();
          break;
        case 1:
          it->SeekToLast(), model.SeekToLast();
          break;
        case 2: {
          const std::string t = target();
          it->Seek(t), model.Seek(t);
          break;
        }
        case 3: {
          const std::string t = target();
          it->SeekForPrev(t), model.SeekForPrev(t);
          break;
        }
        case 4:
          it->Next(), model.Next();
          break;
        default:
          it->Prev(), model.Prev();
          break;
      }
      ASSERT_EQ(it->Valid(), model.Valid()) << "trial " << trial << " step " << step;
      if (model.Valid()) {
        ASSERT_EQ(std::string(it->key()), model.key()) << "trial " << trial;
      }
    }
  }
}

// A stored inline set whose lengths do not add up fails the reads that reach the bad entry
// and every write; reads that stop before it are served. (That no read goes past the payload
// is the code's bounds checks: ASan does not see reads within a std::string's capacity.)
TEST_F(ZSetKeyTest, CorruptInlinePayloadsFailTheReadsThatReachThem) {
  Record record = ZSetKey::NewRecord(*engine_);
  {
    ZSetKey set(*engine_, "z", record, InlineLimits{});
    ASSERT_TRUE(set.Load().ok());
    set.Insert("a", 1);
    set.Insert("b", 2);
    record.meta.size = 2;
    ASSERT_TRUE(set.Store().ok());
  }
  auto walk = [](ZSetReader& set, bool backwards) {
    std::unique_ptr<SubEntryIterator> it = set.Index();
    size_t seen = 0;
    if (backwards) {
      for (it->SeekToLast(); it->Valid(); it->Prev()) ++seen;
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
    }
    return std::make_pair(seen, it->status().ok());
  };

  Record truncated = record;
  truncated.payload.pop_back();  // "b" loses its last byte
  {
    ZSetKey cut(*engine_, "z", truncated, InlineLimits{});
    ASSERT_TRUE(cut.Load().ok());
    EXPECT_EQ(*cut.Score("a"), std::optional<double>(1));  // before the bad entry
    EXPECT_FALSE(cut.Score("b").ok());
    EXPECT_EQ(walk(cut, false), std::make_pair(size_t{1}, false));
    cut.Insert("c", 3);
    EXPECT_FALSE(cut.Store().ok());
  }
  {
    ZSetReader cut(*engine_, "z", truncated);
    ASSERT_TRUE(cut.Load().ok());
    EXPECT_FALSE(walk(cut, true).second);
  }

  Record short_entry = record;
  short_entry.payload[1] = 7;  // "a" too short to hold a score
  {
    ZSetReader cut(*engine_, "z", short_entry);
    ASSERT_TRUE(cut.Load().ok());
    EXPECT_EQ(walk(cut, false), std::make_pair(size_t{0}, false));
  }

  // A walk to the end, either way, counts the entries against the size.
  Record miscounted = record;
  miscounted.meta.size = 1;
  for (bool backwards : {false, true}) {
    ZSetReader wrong(*engine_, "z", miscounted);
    ASSERT_TRUE(wrong.Load().ok());
    EXPECT_FALSE(walk(wrong, backwards).second) << backwards;
  }
  // A size the payload could not hold is refused at once: the reads size buffers by it.
  Record oversized = record;
  oversized.meta.size = uint64_t{1} << 62;
  {
    ZSetReader wrong(*engine_, "z", oversized);
    EXPECT_FALSE(wrong.Load().ok());
  }
  {
    ZSetKey wrong(*engine_, "z", miscounted, InlineLimits{});
    ASSERT_TRUE(wrong.Load().ok());
    wrong.Insert(std::string(100, 'm'), 5);  // would convert the set to sub-entries
    EXPECT_FALSE(wrong.Store().ok());
    StatusOr<std::optional<std::string>> staged =
        engine_->GetSubEntry(SubFamily::kSubkeys, EncodeSubKey("z", miscounted.meta.version, "a"));
    ASSERT_TRUE(staged.ok());
    EXPECT_FALSE(staged->has_value()) << "a member of the malformed set was written";
  }

  ZSetKey good(*engine_, "z", record, InlineLimits{});
  ASSERT_TRUE(good.Load().ok());
  EXPECT_EQ(walk(good, false), std::make_pair(size_t{2}, true));
  EXPECT_EQ(walk(good, true), std::make_pair(size_t{2}, true));
}

}  // namespace
}  // namespace sluice::storage::testing
