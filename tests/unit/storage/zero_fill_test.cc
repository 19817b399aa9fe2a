// storage/zero_fill.h: the zeros of a prepared file reach the disk as they are written, none
// left dirty in the page cache for the caller's fdatasync to send at once. Linux's cachestat
// (6.5 and later) reports a file's dirty and under-writeback pages; the same count after plain
// writes shows that it would see them. Without cachestat, or where written pages do not stay
// dirty (tmpfs), the test is skipped.

#include "storage/zero_fill.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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
    if (testing::InMemory(dir_.path())) GTEST_SKIP() << "tmpfs never writes pages back";
  }

  int Open(const std::string& name) {
    const std::string path = dir_.path() + "/" + name;
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
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
  ASSERT_TRUE(WriteZerosPaced(paced, 0, kBytes, "paced").ok());
  EXPECT_EQ(PagesNotYetOnDisk(paced), 0u);
  EXPECT_EQ(::lseek(paced, 0, SEEK_END), static_cast<off_t>(kBytes));
}

TEST_F(ZeroFillTest, AFileNotAWholeNumberOfChunksIsFilledToTheByte) {
  const int fd = Open("odd");
  const uint64_t bytes = 2 * kZeroFillChunk + 12345;
  ASSERT_TRUE(WriteZerosPaced(fd, 0, bytes, "odd").ok());
  EXPECT_EQ(::lseek(fd, 0, SEEK_END), static_cast<off_t>(bytes));
}

TEST_F(ZeroFillTest, ARangeIsWrittenOverAndTheRestLeftAlone) {
  const int fd = Open("range");
  const std::string ones(3 * kZeroFillChunk, '\x01');
  ASSERT_EQ(::pwrite(fd, ones.data(), ones.size(), 0), static_cast<ssize_t>(ones.size()));
  ASSERT_TRUE(WriteZerosPaced(fd, 100, 2 * kZeroFillChunk + 5, "range").ok());
  std::string back(ones.size(), '\0');
  ASSERT_EQ(::pread(fd, back.data(), back.size(), 0), static_cast<ssize_t>(back.size()));
  EXPECT_EQ(back.find('\0'), 100u);
  EXPECT_EQ(back.find('\x01', 100), 2 * kZeroFillChunk + 5);
  EXPECT_EQ(back.find_last_of('\0'), 2 * kZeroFillChunk + 4);
}

TEST_F(ZeroFillTest, ARateAsksForAPauseAfterEachChunkButTheLast) {
  const int fd = Open("rated");
  std::vector<std::chrono::microseconds> pauses;
  const ZeroFillPause record = [&](std::chrono::microseconds owed) {
    pauses.push_back(owed);
    return true;
  };
  ASSERT_TRUE(WriteZerosPaced(fd, 0, 3 * kZeroFillChunk, "rated", 4 * kZeroFillChunk, record).ok());
  EXPECT_EQ(pauses, std::vector<std::chrono::microseconds>(2, std::chrono::milliseconds(250)));
  EXPECT_EQ(::lseek(fd, 0, SEEK_END), static_cast<off_t>(3 * kZeroFillChunk));
}

TEST_F(ZeroFillTest, APauseThatSaysStopEndsTheWriting) {
  const int fd = Open("stopped");
  const ZeroFillPause stop = [](std::chrono::microseconds) { return false; };
  const Status status = WriteZerosPaced(fd, 0, 3 * kZeroFillChunk, "stopped", 0, stop);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'stopped'"), std::string::npos) << status.message();
  EXPECT_EQ(::lseek(fd, 0, SEEK_END), static_cast<off_t>(kZeroFillChunk));
}

TEST_F(ZeroFillTest, AWriteErrorNamesTheFile) {
  const Status status = WriteZerosPaced(-1, 0, kZeroFillChunk, "nowhere");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'nowhere'"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace sluice::storage
