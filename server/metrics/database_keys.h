#pragma once

// The keys each database holds, as INFO's keyspace section and MEMORY STATS report them:
// counted exactly while a database has at most KeyCensus::kMaxExactKeys records (counting holds
// the loop for about half a microsecond a record), RocksDB's estimate past that or when the
// count meets a longer run of tombstones (a mass expiry's) than it may pass. A database whose
// estimate says the count would give up is not counted first, unless a FLUSHALL's range
// deletion may still be in it: the estimate ignores those, and counts the keys they removed.

#include <cstdint>
#include <vector>

#include "storage/engine.h"

namespace sluice::server {

struct DatabaseKeys {
  int db = 0;
  storage::Engine::KeyCounts counts;
  bool estimated = false;
};

// Each database that holds keys, ascending. `now_ms` is the server clock (what has expired).
std::vector<DatabaseKeys> KeysPerDatabase(storage::Engine& engine, int64_t now_ms);

}  // namespace sluice::server
