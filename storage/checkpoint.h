#pragma once

// Backups as RocksDB checkpoints: `dir`/checkpoints/<unix seconds>[-n], each an openable copy
// of the database (SST files hard-linked, MANIFEST, OPTIONS and WAL files copied).

#include <rocksdb/db.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::storage {

inline constexpr const char* kCheckpointsDirName = "checkpoints";

// Creates a checkpoint of `db` under `db_dir`/checkpoints, first as "<name>.tmp" then renamed,
// so a crash never leaves a half-made checkpoint under a final name. The memtables are flushed
// first (in RocksDB's background threads: writers are not stalled). Keeps the newest `keep`
// checkpoints, deletes older ones and leftover ".tmp" directories. Returns the new path.
// Safe to call from any thread while the database is open.
StatusOr<std::string> CreateCheckpoint(rocksdb::DB* db, const std::string& db_dir,
                                       int64_t now_unix_s, size_t keep);

// The checkpoints under `db_dir`, oldest first.
std::vector<std::string> ListCheckpoints(const std::string& db_dir);

}  // namespace sluice::storage
