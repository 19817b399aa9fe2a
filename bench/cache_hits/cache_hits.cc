// sluice-cache-hits: the record cache's hit rate over patterns of keys a limiter server sees,
// to compare eviction policies on the same draws (docs/notes.md, "The record cache's
// admission"). Each call is what a limiter call does to the cache: a lookup; on a miss, the
// engine's fill from RocksDB (here: the key is absent); then the commit's write-through.
//
//   build-perf/sluice-cache-hits                  # a cache of 100,000 entries, about 25 s
//   build-perf/sluice-cache-hits --entries 20000
//
// Every pattern first runs long enough to fill the cache and settle, then is measured. The
// draws are seeded: two builds compare on the same calls.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "storage/record_cache.h"

namespace {

using sluice::storage::RecordCache;

// A limiter's state (a token bucket's is 17 bytes, a fixed window's 9 to 17).
const std::string kValue(24, 'v');
constexpr size_t kKeyBytes = 16;  // "prefix:" and ten digits, about

class LimiterCalls {
 public:
  explicit LimiterCalls(size_t entries)
      : cache_(entries * (RecordCache::kEntryOverheadBytes + kKeyBytes + kValue.size())) {}

  bool Call(const std::string& key) {
    const bool hit = cache_.Find(key).has_value();
    if (!hit) cache_.PutAbsent(key);
    cache_.Put(key, kValue);
    return hit;
  }

 private:
  RecordCache cache_;
};

std::string Key(const char* prefix, uint64_t i) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%s:%010llu", prefix, static_cast<unsigned long long>(i));
  return buffer;
}

// Hits among the calls added.
struct HitRate {
  uint64_t calls = 0;
  uint64_t hits = 0;
  void Add(bool hit) {
    ++calls;
    hits += hit;
  }
  double percent() const { return calls == 0 ? 0 : 100.0 * hits / calls; }
};

// Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^s.
class Zipf {
 public:
  Zipf(uint64_t n, double s) : cumulative_(n) {
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) cumulative_[i] = sum += 1.0 / std::pow(i + 1, s);
  }
  uint64_t operator()(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, cumulative_.back())(rng);
    return std::lower_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin();
  }

 private:
  std::vector<double> cumulative_;
};

// `calls` calls to settle, then `calls` measured: `next(rng, rate)` makes one call and adds the
// calls it measures to `rate`, which is null while settling.
double Run(uint64_t calls, const std::function<void(std::mt19937_64&, HitRate*)>& next) {
  std::mt19937_64 rng(42);
  HitRate rate;
  for (uint64_t i = 0; i < calls; ++i) next(rng, nullptr);
  for (uint64_t i = 0; i < calls; ++i) next(rng, &rate);
  return rate.percent();
}

void Report(const std::string& pattern, double percent) {
  std::printf("| %-72s | %5.1f%% |\n", pattern.c_str(), percent);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  // Enough entries that every pattern has keys to draw (a hot set of half the cache, a
  // window of 0.7 times it), and few enough that the draws' counts cannot overflow.
  constexpr uint64_t kMinEntries = 100;
  constexpr uint64_t kMaxEntries = uint64_t{1} << 32;
  uint64_t n = 100000;
  if (argc == 3 && std::strcmp(argv[1], "--entries") == 0) {
    char* end = nullptr;
    n = std::isdigit(static_cast<unsigned char>(argv[2][0])) ? std::strtoull(argv[2], &end, 10) : 0;
    if (end == nullptr || *end != '\0') n = 0;
  } else if (argc != 1) {
    n = 0;  // not a usage this program knows
  }
  if (n < kMinEntries || n > kMaxEntries) {
    std::fprintf(stderr, "usage: %s [--entries N], N from %llu to %llu\n", argv[0],
                 static_cast<unsigned long long>(kMinEntries),
                 static_cast<unsigned long long>(kMaxEntries));
    return 2;
  }
  const uint64_t calls = 20 * n;
  std::printf("record cache of %llu entries; %llu calls to settle, %llu measured\n\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(calls),
              static_cast<unsigned long long>(calls));
  std::printf("| pattern (hits of the calls the line names) | hits |\n|---|---:|\n");

  {
    LimiterCalls cache(n);
    Report("uniform over twice as many keys as the cache holds",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             const bool hit = cache.Call(Key("u", rng() % (2 * n)));
             if (rate) rate->Add(hit);
           }));
  }
  const Zipf zipf(10 * n, 0.9);
  {
    LimiterCalls cache(n);
    Report("Zipf 0.9 over ten times as many keys",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             const bool hit = cache.Call(Key("z", zipf(rng)));
             if (rate) rate->Add(hit);
           }));
  }
  // A flood of keys used once (a scan, an attack from many addresses) beside keys in use.
  for (const int hot_percent : {50, 80, 95}) {
    LimiterCalls cache(n);
    const uint64_t hot = n * hot_percent / 100;
    uint64_t once = 0;
    Report("hot keys (" + std::to_string(hot_percent) +
               "% of the cache, uniform), half the calls keys used once: hot",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             if (rng() & 1) {
               cache.Call(Key("once", once++));
             } else if (const bool hit = cache.Call(Key("hot", rng() % hot)); rate) {
               rate->Add(hit);
             }
           }));
  }
  for (const int flood_percent : {20, 50}) {
    LimiterCalls cache(n);
    uint64_t once = 0;
    Report("Zipf 0.9, " + std::to_string(flood_percent) + "% of the calls keys used once: Zipf",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             if (rng() % 100 < static_cast<uint64_t>(flood_percent)) {
               cache.Call(Key("once", once++));
             } else if (const bool hit = cache.Call(Key("z", zipf(rng))); rate) {
               rate->Add(hit);
             }
           }));
  }
  // Users who come and go: uniform over a window of keys that moves on a key every 10 calls.
  for (const int window_tenths : {7, 9, 15}) {
    LimiterCalls cache(n);
    const uint64_t window = n * window_tenths / 10;
    uint64_t call = 0;
    Report("a drifting window of " + std::to_string(window_tenths / 10.0).substr(0, 3) +
               " times the cache, a new key every 10 calls",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             const uint64_t first = ++call / 10;
             const bool hit = cache.Call(Key("w", first + rng() % window));
             if (rate) rate->Add(hit);
           }));
  }
  // Sessions: a new user makes `session` calls, about half a cache's worth of calls apart
  // (exponential gaps); a call is a session's next one when due, else a new user's first.
  for (const int session : {2, 5}) {
    LimiterCalls cache(n);
    std::exponential_distribution<double> gap(2.0 / n);
    using Due = std::pair<uint64_t, std::pair<uint64_t, int>>;  // when, (user, calls left)
    std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
    uint64_t now = 0;
    uint64_t users = 0;
    Report("sessions of " + std::to_string(session) +
               " calls, half a cache's calls apart: repeat calls",
           Run(calls, [&](std::mt19937_64& rng, HitRate* rate) {
             ++now;
             if (due.empty() || due.top().first > now) {
               cache.Call(Key("s", users));
               due.push({now + 1 + static_cast<uint64_t>(gap(rng)), {users++, session - 1}});
               return;
             }
             const auto [user, left] = due.top().second;
             due.pop();
             const bool hit = cache.Call(Key("s", user));
             if (rate) rate->Add(hit);
             if (left > 1) due.push({now + 1 + static_cast<uint64_t>(gap(rng)), {user, left - 1}});
           }));
  }
  return 0;
}
