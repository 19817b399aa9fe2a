#pragma once

// BGREWRITEAOF. sluice's append-only file is RocksDB's WAL: rewriting it means flushing the
// memtables to table files, after which the WAL files before the flush are deleted, so a
// restart after a crash has less to replay.

#include "server/command_context.h"

namespace sluice::server {

// Whether the flush the last BGREWRITEAOF asked for is still under way (INFO persistence's
// aof_rewrite_in_progress). RocksDB does not tell one flush from another: a flush of its own
// that runs at the same time counts too. Once seen finished, the request is forgotten, so
// RocksDB's later flushes do not count.
bool LogRewriteInProgress(CommandContext& ctx);

}  // namespace sluice::server
