#include "algorithms/sliding_log.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/codec.h"
#include "algorithms/messages.h"
#include "limiter_sim.h"

namespace sluice::algorithms {
namespace {

using testing::AtMs;
using testing::Key;
using testing::PlayTable;

TEST(SlidingLogTest, Table) {
  Key<SlidingLogState, SlidingLogParams> key({3, 1000});
  PlayTable(key, 3,
            {
                // t_ms, cost, allowed, remaining, retry_after_ms, reset_after_ms
                {0, 1, true, 2, -1, 1000},
                {300, 2, true, 0, -1, 1000},
                {500, 1, false, 0, 500, 800},  // the entry of t=0 leaves at 1000
                {500, 3, false, 0, 800, 800},  // needs t=0 and t=300 gone: 1300
                {999, 1, false, 0, 1, 301},
                {1000, 1, true, 0, -1, 1000},   // (0, 1000] holds 300 (2) + 1000 (1)
                {1000, 4, false, 0, -1, 1000},  // above the limit: never
                {1299, 0, true, 0, -1, 701},
                {1300, 0, true, 2, -1, 700},  // the 2 units of t=300 left
                {1300, 2, true, 0, -1, 1000},
                {2300, 0, true, 3, -1, 0},  // everything left: fresh
            });
}

TEST(SlidingLogTest, SameMicrosecondSharesAnEntryAndPruningBoundsTheLog) {
  SlidingLogParams params{5, 1000};
  SlidingLogState state;
  int64_t now = AtMs(0);
  for (int i = 0; i < 5; ++i) {
    StatusOr<SlidingLogDecision> d = Decide(&state, params, now, 1);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(d->allowed);
    state = d->state;
  }
  ASSERT_EQ(state.entries.size(), 1u);
  EXPECT_EQ(state.entries[0].cost, 5);
  // A long stream at the rate limit never grows the log past `limit` entries.
  for (int i = 0; i < 1000; ++i) {
    now += 200 * 1000 + 1;
    StatusOr<SlidingLogDecision> d = Decide(&state, params, now, 1);
    ASSERT_TRUE(d.ok());
    if (d->write_state) state = d->state;
    ASSERT_LE(state.entries.size(), 5u);
  }
  EXPECT_LT(state.Encode().size(), 40u);
}

TEST(SlidingLogTest, EncodingRoundTripsAndRejectsGarbage) {
  SlidingLogState state{{{AtMs(0), 3}, {AtMs(0) + 1, 1}, {AtMs(999), 7}}};
  StatusOr<SlidingLogState> back = SlidingLogState::Decode(state.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, state);
  std::string bytes = state.Encode();
  bytes[2] = '\x7f';  // claims 127 entries
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
}

// The same decision as Decide's on the decoded log, and the same encoding of the new log.
void ExpectSameAsDecide(const std::optional<EncodedSlidingLogDecision>& quick,
                        const SlidingLogState& state, const SlidingLogParams& params, int64_t now,
                        int64_t cost) {
  ASSERT_TRUE(quick.has_value());
  StatusOr<SlidingLogDecision> full = Decide(&state, params, now, cost);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(quick->decision.verdict(), full->verdict());
  EXPECT_EQ(quick->decision.expire_at_us, full->expire_at_us);
  EXPECT_EQ(quick->decision.write_state, full->write_state);
  EXPECT_EQ(quick->encoded, full->write_state ? full->state.Encode() : "");
  // A pruned log is the one Encode() writes for the entries still in the window.
  if (!quick->pruned.empty()) {
    SlidingLogState kept;
    for (const SlidingLogEntry& e : state.entries) {
      if (e.at_us > now - params.window_ms * 1000) kept.entries.push_back(e);
    }
    EXPECT_EQ(quick->pruned, kept.Encode());
  }
}

TEST(SlidingLogTest, DecidesOnTheEncodedLog) {
  const SlidingLogParams params{3, 1000};
  const SlidingLogState full{{{AtMs(0), 1}, {AtMs(100), 1}, {AtMs(200), 1}}};
  const std::string bytes = full.Encode();
  // Refusals read the summary and, for the retry time, the oldest entries only.
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(500), 1), full, params, AtMs(500), 1);
  EXPECT_EQ(DecideOnEncoding(bytes, params, AtMs(500), 1)->decision.retry_after_ms, 500);
  EXPECT_EQ(DecideOnEncoding(bytes, params, AtMs(500), 2)->decision.retry_after_ms, 600);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(500), 3), full, params, AtMs(500), 3);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(999), 4), full, params, AtMs(999), 4);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(999), 0), full, params, AtMs(999), 0);
  // A lowered limit: refused with the retry of the excess.
  ExpectSameAsDecide(DecideOnEncoding(bytes, {2, 1000}, AtMs(300), 1), full, {2, 1000}, AtMs(300),
                     1);
  // Granted: the log gains the call, after dropping the entries that left the window.
  ExpectSameAsDecide(DecideOnEncoding(bytes, {4, 1000}, AtMs(500), 1), full, {4, 1000}, AtMs(500),
                     1);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(1000), 1), full, params, AtMs(1000), 1);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(1150), 2), full, params, AtMs(1150), 2);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(5000), 3), full, params, AtMs(5000), 3);
  EXPECT_EQ(DecideOnEncoding(bytes, params, AtMs(5000), 3)->encoded,
            (SlidingLogState{{{AtMs(5000), 3}}}.Encode()));
  // Inspections (COST 0) and refusals write nothing, entries dropped or not.
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(1000), 0), full, params, AtMs(1000), 0);
  ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(1100), 3), full, params, AtMs(1100), 3);
  // A call in the newest entry's microsecond joins it; one before it (the clock moved back) is
  // Decide's to place.
  ExpectSameAsDecide(DecideOnEncoding(bytes, {4, 1000}, AtMs(200), 1), full, {4, 1000}, AtMs(200),
                     1);
  EXPECT_FALSE(DecideOnEncoding(bytes, {4, 1000}, AtMs(150), 1));
  // Neither a version 1 log nor another algorithm's state.
  StateWriter v1(AlgorithmTag::kSlidingLog, 1);
  v1.Unsigned(1);
  v1.Signed(AtMs(0));
  v1.Unsigned(5);
  EXPECT_FALSE(DecideOnEncoding(std::move(v1).Finish(), params, AtMs(500), 1));
  EXPECT_FALSE(DecideOnEncoding(StateWriter(AlgorithmTag::kGcra).Finish(), params, AtMs(0), 1));
}

// A granted call copies the kept entries' bytes without reading them: the summary stands for
// them, so a grant does not walk a log of up to `limit` entries. What it can check cheaply it
// does; a summary that disagrees with the entries is Decode's to find (RESTORE runs it).
TEST(SlidingLogTest, GrantTrustsTheSummaryForTheEntriesItKeeps) {
  const SlidingLogParams params{10, 1000};
  const SlidingLogState state{{{AtMs(0), 1}, {AtMs(100), 2}, {AtMs(200), 1}}};
  const std::string good = state.Encode();
  ASSERT_TRUE(DecideOnEncoding(good, params, AtMs(300), 1));
  // The summary's total (byte 3) says 5 where the entries hold 4: the grant counts 5.
  std::string bytes = good;
  ASSERT_EQ(bytes[3], '\x04');
  bytes[3] = '\x05';
  std::optional<EncodedSlidingLogDecision> quick = DecideOnEncoding(bytes, params, AtMs(300), 1);
  ASSERT_TRUE(quick.has_value());
  EXPECT_EQ(quick->decision.remaining, 4);
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
  EXPECT_FALSE(SlidingLogState::Decode(quick->encoded).ok());
  // A middle entry's delta of 0, which no entry has, is copied unread too.
  const SlidingLogState two_close{{{AtMs(0), 1}, {AtMs(0) + 1, 1}, {AtMs(200), 1}}};
  bytes = two_close.Encode();
  // ... delta 1 us, cost 1, delta 199,999 us (3 bytes), cost 1
  ASSERT_EQ(bytes.substr(bytes.size() - 6, 2), std::string("\x01\x01"));
  bytes[bytes.size() - 6] = '\x00';
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
  EXPECT_TRUE(DecideOnEncoding(bytes, params, AtMs(300), 1));
  // The last entry's cost is 0, which no entry has: the newest entry's bytes are checked.
  bytes = good;
  bytes.back() = '\x00';
  EXPECT_FALSE(DecideOnEncoding(bytes, params, AtMs(300), 1));
  EXPECT_FALSE(DecideOnEncoding(bytes, params, AtMs(200), 1));
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
  // A count of more entries than the bytes can hold, or than the total can pay for.
  bytes = good;
  ASSERT_EQ(bytes[2], '\x03');
  bytes[2] = '\x7f';
  EXPECT_FALSE(DecideOnEncoding(bytes, {200, 1000}, AtMs(300), 1));
  bytes = good;
  bytes[3] = '\x02';
  EXPECT_FALSE(DecideOnEncoding(bytes, params, AtMs(300), 1));
  // Bytes that end inside a varint.
  EXPECT_FALSE(DecideOnEncoding(good + '\x81', params, AtMs(300), 1));
  // Every entry dropped: all were read, and the summary is checked, for a grant and for a
  // refusal.
  bytes = good;
  bytes[3] = '\x09';
  EXPECT_FALSE(DecideOnEncoding(bytes, params, AtMs(5000), 1));
  EXPECT_FALSE(DecideOnEncoding(bytes, {4, 1000}, AtMs(5000), 1));
  bytes = good;
  ASSERT_EQ(static_cast<uint8_t>(bytes[4]), 0xc0);  // 200,000 us: c0 9a 0c
  bytes[4] = '\xc1';
  EXPECT_FALSE(DecideOnEncoding(bytes, params, AtMs(5000), 1));
}

// Calls in the newest entry's microsecond add to its cost on the encoding, also where the cost
// grows a byte (127 to 128) and where the newest entry is the only one kept.
TEST(SlidingLogTest, SameMicrosecondJoinsTheNewestEntryOnTheEncoding) {
  const SlidingLogParams params{1000, 1000};
  for (const SlidingLogState& state :
       {SlidingLogState{{{AtMs(0), 1}, {AtMs(100), 2}, {AtMs(200), 127}}},
        SlidingLogState{{{AtMs(0), 1}, {AtMs(200), 100}}}, SlidingLogState{{{AtMs(200), 127}}},
        SlidingLogState{{{AtMs(0), 5}, {AtMs(200), 1}}}}) {
    const std::string bytes = state.Encode();
    for (int64_t cost : {1, 2, 300}) {
      ASSERT_NO_FATAL_FAILURE(ExpectSameAsDecide(DecideOnEncoding(bytes, params, AtMs(200), cost),
                                                 state, params, AtMs(200), cost));
      // The oldest entry dropped, the newest kept.
      ASSERT_NO_FATAL_FAILURE(
          ExpectSameAsDecide(DecideOnEncoding(bytes, {1000, 150}, AtMs(200), cost), state,
                             {1000, 150}, AtMs(200), cost));
    }
  }
}

// A long log: a grant's new log is the old one's bytes with the call appended or joined.
TEST(SlidingLogTest, GrantOnALongLogAppendsToItsBytes) {
  const SlidingLogParams params{1'000'000, 60'000};
  SlidingLogState state;
  for (int i = 0; i < 100'000; ++i) state.entries.push_back({AtMs(0) + 3 * i, 1 + i % 200});
  const std::string bytes = state.Encode();
  const int64_t newest = state.entries.back().at_us;
  for (int64_t now : {newest, newest + 1, newest + 1'000'000}) {
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameAsDecide(DecideOnEncoding(bytes, params, now, 7), state, params, now, 7));
  }
}

// A call that reads many entries which left the window hands back the log without them, for
// a caller that counts nothing to store: otherwise each refusal would read them again, until
// a grant. Only when the dropped entries are many, and at least half as many as the kept.
TEST(SlidingLogTest, CallsThatDropManyEntriesHandBackThePrunedLog) {
  auto log_of = [](int expired, int kept) {
    SlidingLogState state;
    for (int i = 0; i < expired + kept; ++i) {
      state.entries.push_back({(i < expired ? AtMs(0) : AtMs(2000)) + i, 1});
    }
    return state;
  };
  const int64_t now = AtMs(2500);  // the window (1 s) holds the entries from AtMs(2000) on
  auto pruned_size = [&](const SlidingLogState& state, const SlidingLogParams& params,
                         int64_t cost) -> std::optional<size_t> {
    std::optional<EncodedSlidingLogDecision> quick =
        DecideOnEncoding(state.Encode(), params, now, cost);
    ExpectSameAsDecide(quick, state, params, now, cost);
    if (!quick) return std::nullopt;
    return quick->pruned.empty() ? 0
                                 : SlidingLogState::Decode(quick->pruned).value().entries.size();
  };
  // Refused (the window is full), and refused for good (COST above the limit).
  EXPECT_EQ(pruned_size(log_of(100, 30), {30, 1000}, 1), 30u);
  EXPECT_EQ(pruned_size(log_of(100, 30), {30, 1000}, 31), 30u);
  // Granted: the grant's log drops them already; RL.TAKE may still withhold the grant.
  EXPECT_EQ(pruned_size(log_of(100, 30), {40, 1000}, 1), 30u);
  // Too few dropped, or few against what is kept: read again, as cheap as a rewrite.
  EXPECT_EQ(pruned_size(log_of(63, 1), {1, 1000}, 1), 0u);
  EXPECT_EQ(pruned_size(log_of(100, 202), {202, 1000}, 1), 0u);
  EXPECT_EQ(pruned_size(log_of(100, 200), {200, 1000}, 1), 200u);
  // COST 0 inspects: it never writes a key.
  EXPECT_EQ(pruned_size(log_of(100, 30), {30, 1000}, 0), 0u);
}

// A log stored with a longer varint than needed (RESTORE can store one) decodes to the same
// log, and a grant on it gives the same log as Decide's, in bytes that keep that varint.
TEST(SlidingLogTest, GrantKeepsALongVarintOfTheKeptEntries) {
  const SlidingLogParams params{10, 1000};
  const SlidingLogState state{{{AtMs(0), 1}, {AtMs(0) + 1, 1}}};
  std::string bytes = state.Encode();
  ASSERT_EQ(bytes.substr(bytes.size() - 2), std::string("\x01\x01"));  // the delta, the cost
  bytes = bytes.substr(0, bytes.size() - 2) + std::string("\x81\x00\x01", 3);
  ASSERT_EQ(SlidingLogState::Decode(bytes).value(), state);
  std::optional<EncodedSlidingLogDecision> quick = DecideOnEncoding(bytes, params, AtMs(0) + 2, 1);
  ASSERT_TRUE(quick.has_value());
  StatusOr<SlidingLogDecision> full = Decide(&state, params, AtMs(0) + 2, 1);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(quick->decision.verdict(), full->verdict());
  EXPECT_EQ(quick->decision.expire_at_us, full->expire_at_us);
  EXPECT_EQ(SlidingLogState::Decode(quick->encoded).value(), full->state);
  EXPECT_EQ(quick->encoded.size(), full->state.Encode().size() + 1);
}

TEST(SlidingLogTest, EncodedDecisionsAgreeWithDecideOnRandomStreams) {
  std::mt19937_64 rng(77);
  int refused = 0;
  int granted = 0;
  int granted_after_drops = 0;
  int joined = 0;
  for (int stream = 0; stream < 40; ++stream) {
    // Half the streams with limits whose costs take two or three varint bytes.
    const SlidingLogParams params{static_cast<int64_t>(1 + rng() % (stream % 2 ? 20 : 40'000)),
                                  static_cast<int64_t>(1 + rng() % 50)};
    SlidingLogState state;
    int64_t now = AtMs(0);
    for (int step = 0; step < 500; ++step) {
      // Some calls in the same microsecond as the last.
      const uint64_t pick = rng() % 8;
      now += static_cast<int64_t>(pick == 0 ? rng() % 60'000 : pick == 1 ? 0 : rng() % 300);
      const int64_t cost = static_cast<int64_t>(rng() % (params.limit + 2));
      StatusOr<SlidingLogDecision> d = Decide(&state, params, now, cost);
      ASSERT_TRUE(d.ok());
      const std::string bytes = state.Encode();
      if (std::optional<EncodedSlidingLogDecision> quick =
              DecideOnEncoding(bytes, params, now, cost)) {
        ASSERT_NO_FATAL_FAILURE(ExpectSameAsDecide(quick, state, params, now, cost))
            << "stream " << stream << " step " << step;
        if (!d->allowed) ++refused;
        if (d->write_state) ++granted;
        if (d->write_state && d->state.entries.size() <= state.entries.size()) {
          ++granted_after_drops;
        }
        if (d->write_state && !state.entries.empty() && now == state.entries.back().at_us) {
          ++joined;
        }
      } else {
        // Declined only where Decide places the call among the entries, or the log is empty.
        EXPECT_TRUE(state.entries.empty() || (d->write_state && now < state.entries.back().at_us))
            << "stream " << stream << " step " << step;
      }
      if (d->write_state) state = d->state;
    }
  }
  // Of 20,000 calls, each kind is answered on the encoding, not just declined.
  EXPECT_GT(refused, 2000);
  EXPECT_GT(granted, 2000);
  EXPECT_GT(granted_after_drops, 500);
  EXPECT_GT(joined, 100);
}

TEST(SlidingLogTest, VersionOneLogsStillDecode) {
  const SlidingLogState state{{{AtMs(0), 3}, {AtMs(0) + 5, 1}}};
  StateWriter v1(AlgorithmTag::kSlidingLog, 1);
  v1.Unsigned(2);
  v1.Signed(AtMs(0));
  v1.Unsigned(3);
  v1.Unsigned(5);
  v1.Unsigned(1);
  StatusOr<SlidingLogState> back = SlidingLogState::Decode(std::move(v1).Finish());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, state);
  EXPECT_EQ(state.Encode()[1], '\x02');  // written again as version 2
}

TEST(SlidingLogTest, SummaryThatDisagreesWithTheEntriesIsCorrupt) {
  const SlidingLogState state{{{AtMs(0), 3}, {AtMs(0) + 5, 1}}};
  std::string bytes = state.Encode();
  ASSERT_EQ(bytes[3], '\x04');  // tag, version, count, then the total cost
  bytes[3] = '\x05';
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
  bytes = state.Encode();
  ASSERT_EQ(bytes[4], '\x05');  // the span in us
  bytes[4] = '\x06';
  EXPECT_FALSE(SlidingLogState::Decode(bytes).ok());
}

TEST(SlidingLogTest, ParseAndValidate) {
  std::vector<std::string_view> ok = {"1000000", "1"};
  EXPECT_TRUE(ParseSlidingLogParams(ok).ok());
  std::vector<std::string_view> too_big = {"1000001", "1000"};
  EXPECT_EQ(ParseSlidingLogParams(too_big).status().message(), kMsgSlidingLogTooLarge);
  std::vector<std::string_view> negative = {"-1", "1000"};
  EXPECT_EQ(ParseSlidingLogParams(negative).status().message(), "limit must be a positive integer");
}

TEST(SlidingLogTest, RescaleKeepsLoggedUnits) {
  SlidingLogState state{{{AtMs(0), 2}, {AtMs(500), 2}}};
  // A shorter window drops what is outside it; a lower limit applies to the rest.
  StatusOr<Rescaled<SlidingLogState>> r = Rescale(state, {10, 1000}, {2, 400}, AtMs(600));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->keep);
  ASSERT_EQ(r->state.entries.size(), 1u);
  EXPECT_EQ(r->expire_at_us, AtMs(900));
  StatusOr<SlidingLogDecision> d = Decide(&r->state, {2, 400}, AtMs(600), 1);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->retry_after_ms, 300);
  r = Rescale(state, {10, 1000}, {10, 50}, AtMs(600));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->keep);
}

}  // namespace
}  // namespace sluice::algorithms
