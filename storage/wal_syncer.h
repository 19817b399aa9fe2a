#pragma once

// appendfsync everysec's fsync, on a thread of its own, as Redis runs its everysec fsync on a
// bio thread: an fdatasync of the WAL takes 1 to 2 ms on a virtio disk, and on the event loop
// it held up every client once a second.
//
// It syncs the WAL files through descriptors of its own, outside RocksDB, which may meanwhile
// write to them, roll over to a new one or delete an old one: fdatasync covers every write
// made to the file before it, through any descriptor, and a WAL deleted meanwhile was obsolete
// (its writes are in table files RocksDB synced). Staying out of RocksDB's log writer also
// keeps the sync harmless after a failed WAL write, when RocksDB's own SyncWAL must not run.

#include <functional>
#include <set>
#include <string>
#include <utility>

#include "common/status.h"
#include "storage/background_worker.h"

namespace sluice::storage {

class WalSyncer {
 public:
  using Done = std::function<void(Status)>;

  explicit WalSyncer(std::string dir) : dir_(std::move(dir)) {}
  WalSyncer(const WalSyncer&) = delete;
  WalSyncer& operator=(const WalSyncer&) = delete;

  // Starts an fdatasync of every WAL file in the directory; `done` gets the result on the
  // syncer's thread. False, and nothing started, while the previous sync is under way.
  bool Start(Done done);

 private:
  Status SyncWalFiles();

  const std::string dir_;
  std::set<std::string> synced_names_;  // the WAL files of the last sync (worker thread only)
  BackgroundWorker worker_;             // last: destroyed first, waiting for a sync under way
};

}  // namespace sluice::storage
