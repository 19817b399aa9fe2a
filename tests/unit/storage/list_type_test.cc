#include "storage/list_type.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "storage/composite.h"
#include "storage/key_encoding.h"

namespace sluice::storage::testing {
namespace {

using Strings = std::vector<std::string>;

class ListTypeTest : public EngineTest {
 protected:
  ListType List() { return ListType(*engine_, NowMs()); }

  uint64_t Push(std::string_view key, ListEnd end, std::vector<std::string_view> elements) {
    auto n = List().Push(key, end, elements);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? *n : 0;
  }

  Strings Range(std::string_view key, int64_t start, int64_t stop) {
    auto got = List().Range(key, start, stop);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : Strings();
  }

  std::optional<Strings> Pop(std::string_view key, ListEnd end, uint64_t count) {
    auto got = List().Pop(key, end, count);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::nullopt;
  }

  void Commit() { ASSERT_TRUE(engine_->Commit(false).ok()); }
};

TEST_F(ListTypeTest, PushOrderAndRange) {
  EXPECT_EQ(Push("l", ListEnd::kHead, {"a", "b", "c"}), 3u);
  EXPECT_EQ(Push("l", ListEnd::kTail, {"x", "y"}), 5u);
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "b", "a", "x", "y"}));
  EXPECT_EQ(Range("l", 1, 2), (Strings{"b", "a"}));
  EXPECT_EQ(Range("l", -2, 100), (Strings{"x", "y"}));
  EXPECT_EQ(Range("l", 3, 1), Strings{});
  EXPECT_EQ(Range("missing", 0, -1), Strings{});
  EXPECT_EQ(*List().Len("l"), 5u);
  Commit();
  Reopen();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"c", "b", "a", "x", "y"}));
  EXPECT_EQ(GetOrDie("l")->payload.size(), 16u);  // head and tail
}

TEST_F(ListTypeTest, IndexIsAPointRead) {
  Push("l", ListEnd::kTail, {"a", "b", "c"});
  EXPECT_EQ(*List().Index("l", 0), "a");
  EXPECT_EQ(*List().Index("l", 2), "c");
  EXPECT_EQ(*List().Index("l", -1), "c");
  EXPECT_EQ(*List().Index("l", -3), "a");
  EXPECT_EQ(*List().Index("l", 3), std::nullopt);
  EXPECT_EQ(*List().Index("l", -4), std::nullopt);
  EXPECT_EQ(*List().Index("missing", 0), std::nullopt);
}

TEST_F(ListTypeTest, PopCountsAndDeletesEmptyKey) {
  Push("l", ListEnd::kTail, {"a", "b", "c", "d"});
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), (Strings{"a"}));
  EXPECT_EQ(Pop("l", ListEnd::kTail, 2), (Strings{"d", "c"}));
  EXPECT_EQ(Pop("l", ListEnd::kTail, 10), (Strings{"b"}));
  EXPECT_FALSE(GetOrDie("l").has_value());
  EXPECT_EQ(Pop("l", ListEnd::kHead, 1), std::nullopt);
  Commit();
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(ListTypeTest, TrimKeepsTheRange) {
  Push("l", ListEnd::kTail, {"a", "b", "c", "d", "e"});
  EXPECT_TRUE(*List().Trim("l", 1, -2));
  EXPECT_EQ(Range("l", 0, -1), (Strings{"b", "c", "d"}));
  EXPECT_EQ(*List().Index("l", 0), "b");
  EXPECT_TRUE(*List().Trim("l", 0, 100));
  EXPECT_EQ(*List().Len("l"), 3u);
  EXPECT_TRUE(*List().Trim("l", 2, 1));
  EXPECT_FALSE(GetOrDie("l").has_value());
  EXPECT_FALSE(*List().Trim("l", 0, -1));
  Commit();
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 0u);
}

TEST_F(ListTypeTest, WrongType) {
  PutAndCommit("s", StringRecord("v"));
  EXPECT_EQ(List().Len("s").status().code(), Code::kWrongType);
  const std::string_view one[] = {"x"};
  EXPECT_EQ(List().Push("s", ListEnd::kHead, one).status().code(), Code::kWrongType);
}

TEST_F(ListTypeTest, DelBumpsVersionAndCompactionDropsOldElements) {
  std::vector<std::string> items;
  for (int i = 0; i < 300; ++i) items.push_back("item" + std::to_string(i));
  std::vector<std::string_view> views(items.begin(), items.end());
  Push("l", ListEnd::kTail, views);
  Commit();
  engine_->Delete("l");
  Push("l", ListEnd::kTail, {"only"});
  Commit();
  EXPECT_EQ(Range("l", 0, -1), (Strings{"only"}));
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 301u);
  ASSERT_TRUE(engine_->CompactAll().ok());
  EXPECT_EQ(RawSubEntries(SubFamily::kSubkeys), 1u);
}

TEST_F(ListTypeTest, MatchesADequeUnderRandomOperations) {
  std::mt19937 rng(7);
  std::deque<std::string> model;
  for (int step = 0; step < 2000; ++step) {
    std::string value = "v" + std::to_string(step);
    switch (rng() % 6) {
      case 0:
        Push("l", ListEnd::kHead, {value});
        model.push_front(value);
        break;
      case 1:
        Push("l", ListEnd::kTail, {value});
        model.push_back(value);
        break;
      case 2: {
        uint64_t count = rng() % 3;
        auto got = Pop("l", ListEnd::kHead, count);
        if (model.empty()) {
          EXPECT_EQ(got, std::nullopt);
          break;
        }
        Strings want;
        for (uint64_t i = 0; i < count && !model.empty(); ++i) {
          want.push_back(model.front());
          model.pop_front();
        }
        EXPECT_EQ(got, want);
        break;
      }
      case 3: {
        int64_t start = static_cast<int64_t>(rng() % 7) - 3;
        int64_t stop = static_cast<int64_t>(rng() % 7) - 3;
        Strings want;
        auto len = static_cast<int64_t>(model.size());
        int64_t s = start < 0 ? std::max<int64_t>(start + len, 0) : start;
        int64_t e = stop < 0 ? stop + len : std::min<int64_t>(stop, len - 1);
        for (int64_t i = s; i <= e && i < len; ++i) want.push_back(model[static_cast<size_t>(i)]);
        ASSERT_EQ(Range("l", start, stop), want) << "step " << step;
        break;
      }
      case 4: {
        int64_t index = static_cast<int64_t>(rng() % 9) - 4;
        auto len = static_cast<int64_t>(model.size());
        int64_t i = index < 0 ? index + len : index;
        std::optional<std::string> want;
        if (i >= 0 && i < len) want = model[static_cast<size_t>(i)];
        EXPECT_EQ(*List().Index("l", index), want);
        break;
      }
      case 5:
        if (model.size() > 20) {
          EXPECT_TRUE(*List().Trim("l", 2, -3));
          model.erase(model.begin(), model.begin() + 2);
          model.erase(model.end() - 2, model.end());
        }
        break;
    }
    ASSERT_EQ(*List().Len("l"), model.size());
    if (step % 50 == 0) Commit();
  }
  EXPECT_EQ(Range("l", 0, -1), Strings(model.begin(), model.end()));
}

}  // namespace
}  // namespace sluice::storage::testing
