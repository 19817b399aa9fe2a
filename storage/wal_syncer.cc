#include "storage/wal_syncer.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "storage/sync_path.h"

namespace sluice::storage {

namespace {

// RocksDB names its WAL files <number>.log (the info log is LOG).
bool IsWalFile(const std::filesystem::path& path) { return path.extension() == ".log"; }

Status Synced(const std::string& path, bool missing_ok) {
  Status synced = SyncPath(path, missing_ok);
  return synced.ok() ? synced : IoError("WAL sync: " + std::string(synced.message()));
}

}  // namespace

bool WalSyncer::Start(Done done) {
  return worker_.Start([this] { return SyncWalFiles(); }, std::move(done));
}

Status WalSyncer::SyncWalFiles() {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_, ec);
  if (ec) return IoError("WAL sync: listing " + dir_ + ": " + ec.message());
  std::set<std::string> names;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    if (!IsWalFile(path)) continue;
    SLUICE_RETURN_IF_ERROR(Synced(path.string(), /*missing_ok=*/true));
    names.insert(path.filename().string());
  }
  if (ec) return IoError("WAL sync: listing " + dir_ + ": " + ec.message());
  // A WAL file created since the last sync is on disk only once its directory entry is
  // (RocksDB's own synced writes fsync the directory for each new WAL, too).
  const bool new_file =
      !std::includes(synced_names_.begin(), synced_names_.end(), names.begin(), names.end());
  if (new_file) SLUICE_RETURN_IF_ERROR(Synced(dir_, /*missing_ok=*/false));
  synced_names_ = std::move(names);
  return Status::Ok();
}

}  // namespace sluice::storage
