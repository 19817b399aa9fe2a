#pragma once

// RocksDB's own log (the LOG file in `dir`), written so that a failing disk cannot take the
// daemon down with it.
//
// RocksDB's default logger appends through a WritableFileWriter, which remembers a failed
// write and, in builds with assertions (Debian's librocksdb is one), aborts the process on
// the next log line: with a full disk, the first "background error" message would kill
// sluiced. This logger writes each line with one write(2) on an O_APPEND descriptor and
// drops lines the disk refuses. It starts a fresh file at open (the previous one becomes
// LOG.old) and starts over when the file passes `max_bytes`.

#include <rocksdb/env.h>

#include <cstdint>
#include <memory>
#include <string>

namespace sluice::storage {

// Logs at INFO and above into `dir`/LOG. Never fails: if the file cannot be opened, lines
// are dropped until it can (it is retried at each rotation).
std::shared_ptr<rocksdb::Logger> NewTolerantFileLogger(const std::string& dir,
                                                       uint64_t max_bytes = 64ull << 20);

}  // namespace sluice::storage
