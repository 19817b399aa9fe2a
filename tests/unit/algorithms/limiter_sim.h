#pragma once

// Test helpers: a key as the server would keep it (encoded state + PEXPIREAT, dropped when
// now_ms > expire_at_ms as in Redis), and a table-row type with explicit times.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "algorithms/decision.h"

namespace sluice::algorithms {

// gtest prints verdicts readably (found by ADL).
inline void PrintTo(const Verdict& v, std::ostream* os) {
  *os << "{allowed=" << v.allowed << " limit=" << v.limit << " remaining=" << v.remaining
      << " retry_after_ms=" << v.retry_after_ms << " reset_after_ms=" << v.reset_after_ms << "}";
}

}  // namespace sluice::algorithms

namespace sluice::algorithms::testing {

// 2023-11-14T22:13:20Z, a multiple of every window used in the tables.
inline constexpr int64_t kT0Us = 1'700'000'000'000'000;

inline int64_t AtMs(int64_t offset_ms) { return kT0Us + offset_ms * 1000; }

// One key of one algorithm, stored between calls as bytes, as the server stores it.
template <typename State, typename Params>
class Key {
 public:
  explicit Key(Params params) : params_(params) {}

  // Decide at `now_us`; applies the decision as the server would and returns it.
  auto Call(int64_t now_us, int64_t cost) {
    if (stored_ && now_us / 1000 > expire_at_ms_) stored_.reset();  // storage expiry
    std::optional<State> state;
    if (stored_) {
      StatusOr<State> decoded = State::Decode(*stored_);
      EXPECT_TRUE(decoded.ok()) << decoded.status().message();
      if (decoded.ok()) state = *decoded;
    }
    auto result = Decide(state ? &*state : nullptr, params_, now_us, cost);
    EXPECT_TRUE(result.ok()) << result.status().message();
    auto d = *result;
    if (d.write_state) {
      stored_ = d.state.Encode();
      expire_at_ms_ = d.ExpireAtMs();
    }
    return d;
  }

  bool exists(int64_t now_us) const { return stored_ && now_us / 1000 <= expire_at_ms_; }
  int64_t expire_at_ms() const { return expire_at_ms_; }
  Params& params() { return params_; }

 private:
  Params params_;
  std::optional<std::string> stored_;
  int64_t expire_at_ms_ = 0;
};

// A table row: at t_ms (from kT0), a request of `cost` gets this verdict.
struct Row {
  int64_t t_ms;
  int64_t cost;
  bool allowed;
  int64_t remaining;
  int64_t retry_after_ms;
  int64_t reset_after_ms;
};

inline Verdict Expected(const Row& row, int64_t limit) {
  return {row.allowed, limit, row.remaining, row.retry_after_ms, row.reset_after_ms};
}

inline std::string Describe(const Verdict& v) {
  return "{allowed=" + std::to_string(v.allowed) + " limit=" + std::to_string(v.limit) +
         " remaining=" + std::to_string(v.remaining) +
         " retry_after_ms=" + std::to_string(v.retry_after_ms) +
         " reset_after_ms=" + std::to_string(v.reset_after_ms) + "}";
}

// Plays a table against one key.
template <typename State, typename Params>
void PlayTable(Key<State, Params>& key, int64_t limit, std::initializer_list<Row> rows) {
  int index = 0;
  for (const Row& row : rows) {
    auto d = key.Call(AtMs(row.t_ms), row.cost);
    Verdict want = Expected(row, limit);
    EXPECT_EQ(d.verdict(), want) << "row " << index << " at t=" << row.t_ms << "ms cost "
                                 << row.cost << ": got " << Describe(d.verdict()) << " want "
                                 << Describe(want);
    ++index;
  }
}

}  // namespace sluice::algorithms::testing
