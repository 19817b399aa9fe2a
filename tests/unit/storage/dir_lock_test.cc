// storage/dir_lock.h: one holder of a data directory at a time, in this process or another;
// the lock goes with its holder.

#include "storage/dir_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <utility>

#include "temp_dir.h"

namespace sluice::storage {
namespace {

using testing::TempDir;

// Whether another process can take the lock on `dir` (it takes it and exits at once).
bool AnotherProcessCanLock(const std::string& dir) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(DirLock::Acquire(dir).ok() ? 0 : 1);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(DirLockTest, ASecondHolderIsTurnedAwayWithTheDirectoryNamed) {
  TempDir dir;
  StatusOr<DirLock> first = DirLock::Acquire(dir.path());
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->held());
  StatusOr<DirLock> second = DirLock::Acquire(dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), LockedDirMessage(dir.path()));
  EXPECT_EQ(second.status().message(),
            "dir '" + dir.path() + "' is locked by another sluiced process");
  EXPECT_FALSE(AnotherProcessCanLock(dir.path()));
}

TEST(DirLockTest, TheLockGoesWithItsHolder) {
  TempDir dir;
  std::optional<DirLock> held;
  {
    StatusOr<DirLock> acquired = DirLock::Acquire(dir.path());
    ASSERT_TRUE(acquired.ok());
    held = std::move(acquired).value();  // the moved-from DirLock releases nothing
  }
  EXPECT_FALSE(DirLock::Acquire(dir.path()).ok());
  held.reset();
  EXPECT_TRUE(DirLock::Acquire(dir.path()).ok());
  EXPECT_TRUE(AnotherProcessCanLock(dir.path()));
}

TEST(DirLockTest, AMissingDirectoryIsAnErrorNamingIt) {
  TempDir dir;
  const std::string missing = dir.path() + "/missing";
  StatusOr<DirLock> lock = DirLock::Acquire(missing);
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.status().message().find(missing), std::string::npos);
}

}  // namespace
}  // namespace sluice::storage
