#pragma once

// A unique directory for one test (mkdtemp under $TMPDIR or /tmp), removed with everything in
// it when the test ends: tests never share state and run safely in parallel.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace sluice::storage::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
                        "/sluice-storage-test-XXXXXX";
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

 private:
  std::string path_;
};

}  // namespace sluice::storage::testing
