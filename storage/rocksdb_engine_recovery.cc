// How the engine gets writes back after RocksDB stopped them (contract section 7: writes
// resume by themselves once the cause is gone).
//
// DB::Resume() clears what RocksDB considers recoverable: a full disk, a failed flush. An I/O
// error while appending to the WAL, or a file system remounted read-only, leaves the database
// stopped for good (RocksDB's "fatal" severity): only closing and opening it again helps.
// Reopening is safe for acknowledged writes, which are all in the WAL that opening replays;
// a refused write is not replayed unless its bytes reached the file before a failed sync
// (docs/notes.md). It is only tried once a probe file in the
// directory can be written and synced, so a dead disk is not reopened once a second.
//
// Resume runs on a thread of its own, beside the loop's reads (RocksDB allows it): it waits
// for RocksDB's background work, which pauses a second after a failed flush, and on the loop
// that held every client for a second per attempt while a disk was full. A reopen runs on the
// loop thread, but only for the fatal errors: a full disk is no reason to replay the WAL.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "storage/rocksdb_engine.h"

namespace sluice::storage {

namespace {

constexpr const char* kProbeFileName = "WRITE-PROBE";

// Ok when a new file in `dir` can be created, written and synced (then removed).
Status ProbeWritable(const std::string& dir) {
  const std::string path = dir + "/" + kProbeFileName;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool written = false;
  int error = errno;
  if (fd >= 0) {
    const char byte = 0;
    written = ::write(fd, &byte, 1) == 1 && ::fdatasync(fd) == 0;
    error = errno;
    ::close(fd);
    ::unlink(path.c_str());
  }
  if (written) return Status::Ok();
  return IoError("the data directory is not writable: " + std::string(strerror(error)));
}

}  // namespace

bool RocksDbEngine::StartResume(std::function<void(Status)> done) {
  if (resumer_->Busy()) return false;
  if (listener_->Current().ok()) {
    done(Status::Ok());
  } else if (read_only_ || needs_reopen_) {
    // Closing the database pulls it from under every other call: here, between commands.
    Status writable = ProbeWritable(dir_);
    done(writable.ok() ? Reopen() : writable);
  } else {
    return resumer_->Start([this] { return Resume(); }, std::move(done));
  }
  return true;
}

Status RocksDbEngine::Resume() {
  // RocksDB reports a recovery to the listener itself (OnErrorRecoveryEnd) before Resume
  // returns, and the loop may write, and fail anew, in between: that error must stay. The
  // clear below is for the errors whose "recovery" RocksDB does not report (one that did not
  // stop writes: Resume has nothing to do).
  const uint64_t generation = listener_->Generation();
  rocksdb::Status s = db_->Resume();
  if (s.ok()) {
    listener_->ClearIfNoneSince(generation);
    return Status::Ok();
  }
  // Beyond "hard" is RocksDB's word that only closing and opening the database helps. Less
  // (no space yet, or Busy: RocksDB's own recovery is running) is tried again later.
  if (s.severity() > rocksdb::Status::Severity::kHardError) needs_reopen_ = true;
  return IoError("resume failed: " + s.ToString());
}

Status RocksDbEngine::Reopen() {
  // The loop thread calls this between commands, when no iterator is open.
  if (CompactorBusy()) {
    stop_compacting_ = true;  // gives up at its next look (RocksDB's compactions do it later)
    return IoError("reopen postponed: a compaction is under way");
  }
  if (open_iterators_.all > 0 || key_counter_->Busy()) {
    return IoError("reopen postponed: an iterator is open");
  }
  stop_compacting_ = false;
  // What serves reads now is only closed once the files are known to open again.
  if (Status readable = CheckOpensReadOnly(); !readable.ok()) return readable;
  CloseDb();
  listener_->Clear();
  needs_reopen_ = false;
  Status opened = OpenDb(/*read_only=*/false);
  if (opened.ok()) return FollowReopenedDb();
  if (Status read_only = OpenDb(/*read_only=*/true); !read_only.ok()) {
    // They opened a moment ago, and every engine call needs a database: nothing can be served.
    std::fprintf(stderr, "sluiced: RocksDB could not be reopened: %s; read-only: %s\n",
                 opened.message().c_str(), read_only.message().c_str());
    std::abort();
  }
  listener_->Set("RocksDB reopened read-only, writes refused until it reopens for writing: " +
                 opened.message());
  if (Status followed = FollowReopenedDb(); !followed.ok()) return followed;
  return listener_->Current();
}

Status RocksDbEngine::FollowReopenedDb() {
  // The WAL's replay may hold a batch whose commit was refused (its sync failed after the
  // write): what memory says of the database is read again rather than trusted.
  ++reopens_;
  cache_.Clear();
  draws_.Clear();
  for (const std::unique_ptr<KeySpace>& space : spaces_) {
    if (space != nullptr) space->expire_resume.reset();
  }
  return ReadDatabaseMap();
}

Status RocksDbEngine::CheckOpensReadOnly() const {
  // The trial gets RocksDB's plain memtable: the key space's own factory follows the one
  // memtable the live database writes to, which a second database must not take over.
  std::vector<rocksdb::ColumnFamilyDescriptor> families = families_;
  for (rocksdb::ColumnFamilyDescriptor& family : families) {
    family.options.memtable_factory = std::make_shared<rocksdb::SkipListFactory>();
  }
  rocksdb::DBOptions options = db_options_;
  options.sst_file_manager = nullptr;  // the live database's deleter is not the trial's
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, dir_, families, &handles, &db);
  if (!s.ok()) return IoError("RocksDB cannot be reopened yet: " + s.ToString());
  CloseAndDelete(db, handles);
  return Status::Ok();
}

}  // namespace sluice::storage
