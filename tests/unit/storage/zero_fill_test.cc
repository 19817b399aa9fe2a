// storage/zero_fill.h: the zeros of a prepared file reach the disk as they are written, none
// left dirty in the page cache for the caller's fdatasync to send at once. Linux's cachestat
// (6.5 and later) reports a file's dirty and under-writeback pages; the same count after plain
// writes shows that it would see them. Without cachestat, or where written pages do not stay
// dirty (tmpfs), the test is skipped.

#include "storage/zero_fill.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "temp_dir.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451  // x86-64 and the other architectures of the common table
#endif

namespace sluice::storage {
namespace {

struct CacheStatRange {
  uint64_t off;
  uint64_t len;  // 0: to the end of the file
};

struct CacheStat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

// Pages of the file dirty or under writeback, or nothing where the kernel cannot tell.
std::optional<uint64_t> PagesNotYetOnDisk(int fd) {
  CacheStatRange range{0, 0};
  CacheStat stat{};
  if (::syscall(__NR_cachestat, fd, &range, &stat, 0) != 0) return std::nullopt;
  return stat.nr_dirty + stat.nr_writeback;
}

class ZeroFillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    struct statfs fs {};
    ASSERT_EQ(::statfs(dir_.path().c_str(), &fs), 0);
    if (fs.f_type == TMPFS_MAGIC) GTEST_SKIP() << "tmpfs never writes pages back";
  }

  int Open(const std::string& name) {
    const std::string path = dir_.path() + "/" + name;
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    EXPECT_GE(fd, 0) << path;
    fds_.push_back(fd);
    return fd;
  }
  ~ZeroFillTest() override {
    for (int fd : fds_) ::close(fd);
  }

  testing::TempDir dir_;
  std::vector<int> fds_;
};

constexpr uint64_t kBytes = 8 * kZeroFillChunk;

TEST_F(ZeroFillTest, NoZeroWaitsInThePageCache) {
  // The instrument first: plain writes of as many zeros leave pages dirty.
  const int plain = Open("plain");
  const std::vector<char> zeros(kBytes, 0);
  ASSERT_EQ(::pwrite(plain, zeros.data(), zeros.size(), 0), static_cast<ssize_t>(kBytes));
  const std::optional<uint64_t> plain_pending = PagesNotYetOnDisk(plain);
  if (!plain_pending) GTEST_SKIP() << "no cachestat (Linux 6.5): errno " << errno;
  if (*plain_pending == 0) GTEST_SKIP() << "written pages do not stay dirty here";

  const int paced = Open("paced");
  ASSERT_TRUE(WriteZerosPaced(paced, kBytes, "paced").ok());
  EXPECT_EQ(PagesNotYetOnDisk(paced), 0u);
  EXPECT_EQ(::lseek(paced, 0, SEEK_END), static_cast<off_t>(kBytes));
}

TEST_F(ZeroFillTest, AFileNotAWholeNumberOfChunksIsFilledToTheByte) {
  const int fd = Open("odd");
  const uint64_t bytes = 2 * kZeroFillChunk + 12345;
  ASSERT_TRUE(WriteZerosPaced(fd, bytes, "odd").ok());
  EXPECT_EQ(::lseek(fd, 0, SEEK_END), static_cast<off_t>(bytes));
}

TEST_F(ZeroFillTest, AWriteErrorNamesTheFile) {
  const Status status = WriteZerosPaced(-1, kZeroFillChunk, "nowhere");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'nowhere'"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace sluice::storage
