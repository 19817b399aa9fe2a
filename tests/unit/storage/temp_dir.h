#pragma once

// A unique directory for one test (mkdtemp under $TMPDIR or /tmp), removed with everything in
// it when the test ends: tests never share state and run safely in parallel.

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace sluice::storage::testing {

class TempDir {
 public:
  TempDir() {
    std::string templ = Base() + "/sluice-storage-test-XXXXXX";
    if (char* made = ::mkdtemp(templ.data()); made != nullptr) {
      path_ = made;
    } else {
      ADD_FAILURE() << "mkdtemp failed for " << templ;
    }
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Where the directories are made: $TMPDIR, or /tmp.
  static std::string Base() {
    const char* base = std::getenv("TMPDIR");
    return base != nullptr && *base != '\0' ? base : "/tmp";
  }

 private:
  std::string path_;
};

// Whether `path` is on a file system in memory (tmpfs, ramfs): nothing there is written back
// to a disk, and the engine makes no zeroed WAL files there (a sync costs nothing).
inline bool InMemory(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

}  // namespace sluice::storage::testing
