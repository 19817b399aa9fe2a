// appendfsync always's zeroed WAL files (storage/zeroed_wal.h): a new WAL starts as a file of
// zeros that RocksDB writes from its start, and what was committed comes back whole after a
// crash (the zeros still behind the records), after a torn last record, and after a clean
// close. A copy of the data directory taken while the engine is open is the state a kill -9
// leaves: what the process had written, in the page cache. An open zeroed WAL reports what
// was written as its size, as an appended file would.

#include "storage/zeroed_wal.h"

#include <gtest/gtest.h>
#include <rocksdb/file_system.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "storage/engine.h"
#include "temp_dir.h"
#include "tests/unit/eventually.h"

namespace sluice::storage {
namespace {

namespace fs = std::filesystem;
using sluice::testing::Eventually;
using testing::TempDir;

constexpr uint64_t kWriteBufferBytes = 1 << 20;
// What the engine zeroes: max_total_wal_size (4 write buffers) and a sixteenth.
constexpr uint64_t kZeroedBytes = 4 * kWriteBufferBytes + 4 * kWriteBufferBytes / 16;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// The WAL files of a directory, oldest first.
std::vector<fs::path> WalFiles(const std::string& dir) {
  std::vector<fs::path> wals;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".log") wals.push_back(e.path());
  }
  std::sort(wals.begin(), wals.end());
  return wals;
}

ino_t Inode(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Where the records of a zeroed WAL end: after its last byte that is not zero.
size_t WrittenEnd(const std::string& wal) {
  const size_t last = wal.find_last_not_of('\0');
  return last == std::string::npos ? 0 : last + 1;
}

// The engine makes no zeroed files on a file system in memory (ZeroedWalFileSystem::Worthwhile).
void SkipInMemory(const std::string& dir) {
  if (testing::InMemory(dir)) GTEST_SKIP() << dir << " is in memory: no zeroed WAL files there";
}

// Long enough for any test to delete the old WAL while a switch waits for it.
constexpr std::chrono::milliseconds kLongRecycleWait = std::chrono::minutes(10);

class ZeroedWalTest : public ::testing::Test {
 protected:
  void SetUp() override { SkipInMemory(dir_.path()); }

  EngineOptions Options(const std::string& dir, bool sync_every_commit = true) const {
    EngineOptions options;
    options.dir = dir;
    options.block_cache_bytes = 4 << 20;
    options.write_buffer_bytes = kWriteBufferBytes;
    options.sync_every_commit = sync_every_commit;
    return options;
  }

  std::unique_ptr<Engine> OpenAt(const std::string& dir, bool sync_every_commit = true) {
    return OpenWith(Options(dir, sync_every_commit));
  }
  std::unique_ptr<Engine> OpenWith(const EngineOptions& options) {
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(options, &clock_);
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    return opened.ok() ? std::move(*opened) : nullptr;
  }

  // Commits key-<i> = value-<i> for i in [0, n), each in a synced commit of its own.
  static void CommitKeys(Engine& engine, int n) {
    for (int i = 0; i < n; ++i) {
      Record record;
      record.meta.type = KeyType::kString;
      record.payload = "value-" + std::to_string(i);
      engine.Put("key-" + std::to_string(i), record);
      ASSERT_TRUE(engine.Commit(/*sync=*/true).ok());
    }
  }

  // How many of key-<i> for i in [0, n) hold value-<i>; the rest must be missing.
  int CountKeys(Engine& engine, int n) {
    int found = 0;
    for (int i = 0; i < n; ++i) {
      StatusOr<std::optional<Record>> got = engine.Get("key-" + std::to_string(i), NowMs());
      EXPECT_TRUE(got.ok()) << got.status().message();
      if (!got.ok() || !got->has_value()) continue;
      EXPECT_EQ((*got)->payload, "value-" + std::to_string(i));
      ++found;
    }
    return found;
  }

  static bool WaitForZeroedFile(const Engine& engine) {
    return Eventually([&] { return engine.GetZeroedWalStats().file_ready; });
  }

  // Once a zeroed file waits: `keys` keys committed, then a FLUSHALL committed.
  static void FlushAllOf(Engine& engine, int keys) {
    ASSERT_TRUE(WaitForZeroedFile(engine));
    for (int i = 0; i < keys; ++i) engine.Put("key-" + std::to_string(i), Record{});
    ASSERT_TRUE(engine.Commit(/*sync=*/true).ok());
    engine.FlushAll();
    ASSERT_TRUE(engine.Commit(/*sync=*/true).ok());
  }

  // Commits key-<i> for i < n to an engine in a new directory, and returns a copy of that
  // directory as a kill -9 would leave it (taken while the engine is open).
  std::string CrashedAfterCommits(int n) {
    const std::string db = dir_.path() + "/db";
    std::unique_ptr<Engine> engine = OpenAt(db);
    EXPECT_NE(engine, nullptr);
    if (engine) CommitKeys(*engine, n);
    const std::string crashed = dir_.path() + "/crashed";
    // Background threads rename files while the copy runs (the next zeroed file into place,
    // a retired WAL to be zeroed, RocksDB's obsolete files to .trash): a file listed can be
    // gone when it is copied. Copy again then, as a kill -9 leaves one instant's files.
    for (int attempt = 1;; ++attempt) {
      std::error_code error;
      fs::remove_all(crashed);
      fs::copy(db, crashed, fs::copy_options::recursive, error);
      if (!error) break;
      if (error != std::errc::no_such_file_or_directory || attempt == 20) {
        ADD_FAILURE() << "copying " << db << ": " << error.message();
        break;
      }
    }
    return crashed;
  }

  int64_t NowMs() const { return clock_.NowMillis(); }

  TempDir dir_;
  ManualClock clock_{1700000000000 * 1000};
};

TEST_F(ZeroedWalTest, TheFirstWalIsAZeroedFileAndTheNextOneIsPrepared) {
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 1u);
  std::vector<fs::path> wals = WalFiles(db);
  ASSERT_EQ(wals.size(), 1u);
  EXPECT_EQ(fs::file_size(wals.back()), kZeroedBytes);
  ASSERT_TRUE(WaitForZeroedFile(*engine));
  const fs::path waiting = fs::path(db) / ZeroedWalFileSystem::kFileName;
  ASSERT_TRUE(fs::exists(waiting));
  const std::string zeros = ReadAll(waiting);
  EXPECT_EQ(zeros.size(), kZeroedBytes);
  EXPECT_EQ(WrittenEnd(zeros), 0u);
}

TEST_F(ZeroedWalTest, WithoutSyncEveryCommitWalFilesAreOrdinary) {
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db, /*sync_every_commit=*/false);
  ASSERT_NE(engine, nullptr);
  CommitKeys(*engine, 10);
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 0u);
  EXPECT_FALSE(engine->GetZeroedWalStats().file_ready);
  EXPECT_FALSE(fs::exists(fs::path(db) / ZeroedWalFileSystem::kFileName));
  EXPECT_LT(fs::file_size(WalFiles(db).back()), kWriteBufferBytes);
}

// FLUSHALL may flush the key space's memtable, which starts a new WAL long before the current
// one is full: that WAL is an ordinary file, and the zeroed one waits for a WAL that fills up.
TEST_F(ZeroedWalTest, AFlushAllsFlushLeavesTheZeroedFileForALaterWal) {
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  FlushAllOf(*engine, 5000);                              // more than FLUSHALL deletes one by one
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 1u);  // the first WAL's
  EXPECT_LT(fs::file_size(WalFiles(db).back()), kZeroedBytes);  // the flush's new one
  EXPECT_TRUE(engine->GetZeroedWalStats().file_ready);
  CommitKeys(*engine, 3);
  EXPECT_EQ(CountKeys(*engine, 3), 3);
}

TEST_F(ZeroedWalTest, ALargeFlushAllsCompactionLeavesTheZeroedFileToo) {
  // Enough keys for the wipe's compaction (rocksdb_engine_compaction.cc): its flush, too, is
  // not a WAL's end. One made by RocksDB's CompactRange on another thread took the file.
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  FlushAllOf(*engine, 120000);
  ASSERT_TRUE(Eventually([&] {
    return engine->GetKeyspaceIntProperty("rocksdb.estimate-num-keys") == 0 &&
           engine->KeyEstimateIsSound();
  }));  // compacted away
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 1u);
  EXPECT_TRUE(engine->GetZeroedWalStats().file_ready);
  CommitKeys(*engine, 3);
  EXPECT_EQ(CountKeys(*engine, 3), 3);
}

TEST_F(ZeroedWalTest, ACrashRecoversEveryCommitFromAZeroedWal) {
  const std::string crashed = CrashedAfterCommits(300);
  // The records are followed by the zeros the reader must take as their end.
  const std::string wal = ReadAll(WalFiles(crashed).back());
  ASSERT_EQ(wal.size(), kZeroedBytes);
  ASSERT_GT(WrittenEnd(wal), 300u * 20);
  ASSERT_LT(WrittenEnd(wal), wal.size() / 2);
  std::unique_ptr<Engine> recovered = OpenAt(crashed);
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(CountKeys(*recovered, 300), 300);
}

TEST_F(ZeroedWalTest, ATornLastRecordIsCutOffAndEverythingBeforeItRecovered) {
  const std::string crashed = CrashedAfterCommits(300);
  // The last commit's record loses its last bytes, as a write cut short by a crash would.
  const fs::path wal_path = WalFiles(crashed).back();
  std::string wal = ReadAll(wal_path);
  const size_t end = WrittenEnd(wal);
  std::fill(wal.begin() + static_cast<std::ptrdiff_t>(end - 4),
            wal.begin() + static_cast<std::ptrdiff_t>(end), '\0');
  WriteAll(wal_path, wal);
  std::unique_ptr<Engine> recovered = OpenAt(crashed);
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(CountKeys(*recovered, 299), 299);
  EXPECT_EQ(CountKeys(*recovered, 300), 299);  // key-299 was in the torn record
}

TEST_F(ZeroedWalTest, ACleanCloseCutsTheWalToWhatWasWritten) {
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  CommitKeys(*engine, 100);
  engine.reset();
  const std::vector<fs::path> wals = WalFiles(db);
  ASSERT_EQ(wals.size(), 1u);
  const std::string wal = ReadAll(wals.back());
  EXPECT_LT(wal.size(), 32u * 1024);
  EXPECT_EQ(WrittenEnd(wal), wal.size());
  std::unique_ptr<Engine> reopened = OpenAt(db);
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(CountKeys(*reopened, 100), 100);
}

// The WAL's blocks, never freed: the file RocksDB deletes after the flush is the next zeroed one.
TEST_F(ZeroedWalTest, AWalRocksDbIsDoneWithBecomesTheNextZeroedFile) {
  const std::string db = dir_.path() + "/db";
  EngineOptions options = Options(db);
  // The flush and the WAL's deletion may take longer than the server's 2 s on a loaded
  // machine, and the next file would then be a new one: the wait ends at the deletion.
  options.wal_recycle_wait = kLongRecycleWait;
  std::unique_ptr<Engine> engine = OpenWith(options);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(WaitForZeroedFile(*engine));
  const fs::path first = WalFiles(db).back();
  const ino_t first_inode = Inode(first);
  ASSERT_NE(first_inode, 0u);
  // Distinct keys until the memtable's flush has made the first WAL obsolete. Its deletion
  // may come at once after the switch, so the second WAL is seen here, not counted later.
  int next = 0;
  bool switched = false;
  for (int batch = 0; batch < 100 && !switched; ++batch) {
    for (int i = 0; i < 1000; ++i) engine->Put("key-" + std::to_string(next++), Record{});
    ASSERT_TRUE(engine->Commit(/*sync=*/true).ok());
    switched = WalFiles(db).size() >= 2 || !fs::exists(first);
  }
  ASSERT_TRUE(switched);
  ASSERT_TRUE(Eventually([&] { return !fs::exists(first) && WaitForZeroedFile(*engine); }));
  const fs::path zeroed = fs::path(db) / ZeroedWalFileSystem::kFileName;
  EXPECT_EQ(Inode(zeroed), first_inode);
  const std::string zeros = ReadAll(zeroed);
  EXPECT_EQ(zeros.size(), kZeroedBytes);
  EXPECT_EQ(WrittenEnd(zeros), 0u);
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 2u);
}

TEST_F(ZeroedWalTest, AZeroedFileLeftByAnEarlierRunIsWrittenAnew) {
  // A crash can lose a zeroed file's rename into a WAL name after records were synced into
  // it: such a file must never become a WAL, or its old records would replay.
  const std::string db = dir_.path() + "/db";
  fs::create_directories(db);
  WriteAll(fs::path(db) / ZeroedWalFileSystem::kFileName, std::string(kZeroedBytes, '\xab'));
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->GetZeroedWalStats().files_used, 1u);
  const std::string wal = ReadAll(WalFiles(db).back());
  EXPECT_EQ(wal.find('\xab'), std::string::npos);
}

TEST_F(ZeroedWalTest, AStartWithoutItRemovesWhatAnEarlierRunLeft) {
  // A crash in the middle of a recycling leaves the deleted WAL at the tmp name.
  const std::string db = dir_.path() + "/db";
  fs::create_directories(db);
  const fs::path waiting = fs::path(db) / ZeroedWalFileSystem::kFileName;
  const fs::path recycling = waiting.string() + ".tmp";
  WriteAll(waiting, std::string(kZeroedBytes, '\0'));
  WriteAll(recycling, std::string(kZeroedBytes, '\xab'));
  std::unique_ptr<Engine> engine = OpenAt(db, /*sync_every_commit=*/false);
  ASSERT_NE(engine, nullptr);
  EXPECT_FALSE(fs::exists(waiting));
  EXPECT_FALSE(fs::exists(recycling));
}

TEST_F(ZeroedWalTest, ASecondOpenOfTheDirectoryLeavesTheOpenEnginesFilesAlone) {
  // Turned away by the directory's lock before it touches a file: it would otherwise write a
  // new zeroed file over the waiting one (which the open engine's next WAL takes), delete it
  // as it gave up, and start the RocksDB LOG anew.
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(WaitForZeroedFile(*engine));
  const fs::path waiting = fs::path(db) / ZeroedWalFileSystem::kFileName;
  const ino_t waiting_inode = Inode(waiting);
  const ino_t log_inode = Inode(fs::path(db) / "LOG");
  ASSERT_NE(waiting_inode, 0u);
  ASSERT_NE(log_inode, 0u);

  StatusOr<std::unique_ptr<Engine>> second = Engine::Open(Options(db), &clock_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), "dir '" + db + "' is locked by another sluiced process");
  EXPECT_EQ(Inode(waiting), waiting_inode);
  EXPECT_FALSE(fs::exists(waiting.string() + ".tmp"));
  EXPECT_EQ(Inode(fs::path(db) / "LOG"), log_inode);
  EXPECT_TRUE(engine->GetZeroedWalStats().file_ready);
}

TEST_F(ZeroedWalTest, TurningItOffDeletesTheWaitingFileAndOnPreparesOne) {
  const std::string db = dir_.path() + "/db";
  std::unique_ptr<Engine> engine = OpenAt(db);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(WaitForZeroedFile(*engine));
  engine->SetSyncEveryCommit(false);
  EXPECT_FALSE(engine->GetZeroedWalStats().file_ready);
  EXPECT_FALSE(fs::exists(fs::path(db) / ZeroedWalFileSystem::kFileName));
  engine->SetSyncEveryCommit(true);
  ASSERT_TRUE(WaitForZeroedFile(*engine));
  EXPECT_EQ(fs::file_size(fs::path(db) / ZeroedWalFileSystem::kFileName), kZeroedBytes);
}

constexpr uint64_t kFileBytes = 1 << 20;

// A zeroed-WAL file system for `dir`, turned on (a zeroed file prepared unless that fails). A
// switch after a zeroed WAL waits `recycle_wait` for that one's deletion.
std::shared_ptr<ZeroedWalFileSystem> TurnedOn(
    const std::string& dir, std::chrono::milliseconds recycle_wait = kLongRecycleWait) {
  auto wal_files = std::make_shared<ZeroedWalFileSystem>(rocksdb::FileSystem::Default(), dir,
                                                         kFileBytes, recycle_wait);
  wal_files->SetEnabled(true, /*prepare_now=*/true);
  return wal_files;
}

std::unique_ptr<rocksdb::FSWritableFile> NewWal(ZeroedWalFileSystem& wal_files,
                                                const std::string& path) {
  std::unique_ptr<rocksdb::FSWritableFile> file;
  EXPECT_TRUE(wal_files.NewWritableFile(path, rocksdb::FileOptions(), &file, nullptr).ok());
  return file;
}

class ZeroedWalFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override { SkipInMemory(TempDir::Base()); }
};

TEST_F(ZeroedWalFileSystemTest, AnOpenZeroedWalReportsWhatWasWrittenAsItsSize) {
  // RocksDB copies a live WAL for a checkpoint up to the size the file system reports.
  TempDir dir;
  std::shared_ptr<ZeroedWalFileSystem> wal_files = TurnedOn(dir.path() + "/");
  ASSERT_TRUE(wal_files->ready());
  const std::string wal = dir.path() + "/000009.log";
  std::unique_ptr<rocksdb::FSWritableFile> file = NewWal(*wal_files, wal);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(wal_files->files_used(), 1u);
  EXPECT_EQ(fs::file_size(wal), kFileBytes);
  auto reported = [&] {
    uint64_t size = 0;
    EXPECT_TRUE(wal_files->GetFileSize(wal, rocksdb::IOOptions(), &size, nullptr).ok());
    return size;
  };
  EXPECT_EQ(reported(), 0u);
  ASSERT_TRUE(file->Append("hello", rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(file->Append(" world", rocksdb::IOOptions(), nullptr).ok());
  EXPECT_EQ(reported(), 11u);
  // Closed and gone, the file's size is the file system's again: not recycling, it was cut to
  // what was written.
  ASSERT_TRUE(file->Close(rocksdb::IOOptions(), nullptr).ok());
  file.reset();
  EXPECT_EQ(fs::file_size(wal), 11u);
  EXPECT_EQ(reported(), 11u);
}

// Turned on and recycling, with a zeroed file ready.
std::shared_ptr<ZeroedWalFileSystem> Recycling(
    const std::string& dir, std::chrono::milliseconds recycle_wait = kLongRecycleWait) {
  std::shared_ptr<ZeroedWalFileSystem> wal_files = TurnedOn(dir, recycle_wait);
  wal_files->SetRecycling(true);
  EXPECT_TRUE(wal_files->ready());
  return wal_files;
}

TEST_F(ZeroedWalFileSystemTest, WhileRecyclingAClosedZeroedWalKeepsItsZeros) {
  TempDir dir;
  std::shared_ptr<ZeroedWalFileSystem> wal_files = Recycling(dir.path());
  const std::string wal = dir.path() + "/000009.log";
  std::unique_ptr<rocksdb::FSWritableFile> file = NewWal(*wal_files, wal);
  ASSERT_NE(file, nullptr);
  // As RocksDB's writer asks of a WAL file: a file that preallocated is trimmed as it closes.
  file->SetPreallocationBlockSize(64 << 10);
  file->PrepareWrite(0, 5, rocksdb::IOOptions(), nullptr);
  ASSERT_TRUE(file->Append("hello", rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(file->Close(rocksdb::IOOptions(), nullptr).ok());
  file.reset();
  const std::string kept = ReadAll(wal);
  EXPECT_EQ(kept.size(), kFileBytes);
  EXPECT_EQ(WrittenEnd(kept), 5u);
}

// A zeroed WAL open as the current one and a second taking the zeroed file after it: nothing
// is prepared until the first is deleted.
struct TwoWals {
  explicit TwoWals(const std::string& dir,
                   std::chrono::milliseconds recycle_wait = kLongRecycleWait)
      : wal_files(Recycling(dir, recycle_wait)), first(dir + "/000007.log") {
    first_file = NewWal(*wal_files, first);
    // The first WAL's: a new file. Its preparation returned too: a switch asking for the next
    // one while it still does is put off, and then makes a new file instead of the recycled.
    EXPECT_TRUE(
        Eventually([&] { return wal_files->ready() && !wal_files->preparing_in_background(); }));
  }
  void SwitchToSecond(const std::string& dir) {
    second_file = NewWal(*wal_files, dir + "/000008.log");
    EXPECT_TRUE(first_file->Close(rocksdb::IOOptions(), nullptr).ok());
    first_file.reset();
  }
  std::shared_ptr<ZeroedWalFileSystem> wal_files;
  std::string first;
  std::unique_ptr<rocksdb::FSWritableFile> first_file;
  std::unique_ptr<rocksdb::FSWritableFile> second_file;
};

TEST_F(ZeroedWalFileSystemTest, ADeletedZeroedWalIsWrittenOverAsTheNextZeroedFile) {
  TempDir dir;
  TwoWals wals(dir.path());
  // Written past the zeroed file's size, which the recycling gives back.
  const std::string records(kFileBytes + 100, 'x');
  ASSERT_TRUE(wals.first_file->Append(records, rocksdb::IOOptions(), nullptr).ok());
  wals.SwitchToSecond(dir.path());
  EXPECT_EQ(wals.wal_files->files_used(), 2u);
  const ino_t first_inode = Inode(wals.first);
  ASSERT_TRUE(wals.wal_files->DeleteFile(wals.first, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(wals.first));
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  const fs::path zeroed = fs::path(dir.path()) / ZeroedWalFileSystem::kFileName;
  EXPECT_EQ(Inode(zeroed), first_inode);
  const std::string zeros = ReadAll(zeroed);
  EXPECT_EQ(zeros.size(), kFileBytes);
  EXPECT_EQ(WrittenEnd(zeros), 0u);
}

// RocksDB's delete scheduler renames an obsolete WAL to trash, then deletes the trash.
TEST_F(ZeroedWalFileSystemTest, ARecycledZeroedWalIsWrittenOverOnlyWhereItWasWritten) {
  TempDir dir;
  TwoWals wals(dir.path());
  ASSERT_TRUE(wals.first_file->Append("hello", rocksdb::IOOptions(), nullptr).ok());
  wals.SwitchToSecond(dir.path());
  // Behind the file system's back, past what was written: a recycling trusts that to be zeros.
  {
    std::fstream file(wals.first, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(kFileBytes - 10));
    file << 'x';
  }
  const std::string trash = wals.first + ".trash";
  ASSERT_TRUE(wals.wal_files->RenameFile(wals.first, trash, rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(wals.wal_files->DeleteFile(trash, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(trash));
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  const std::string recycled = ReadAll(fs::path(dir.path()) / ZeroedWalFileSystem::kFileName);
  ASSERT_EQ(recycled.size(), kFileBytes);
  EXPECT_EQ(recycled.find_first_not_of('\0'), kFileBytes - 10);
}

TEST_F(ZeroedWalFileSystemTest, ARecycledOrdinaryWalIsWrittenOverWholeAndGrownToSize) {
  TempDir dir;
  TwoWals wals(dir.path());
  wals.SwitchToSecond(dir.path());
  const std::string ordinary = dir.path() + "/000003.log";
  WriteAll(ordinary, std::string(kFileBytes / 2, 'r'));
  ASSERT_TRUE(wals.wal_files->DeleteFile(ordinary, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(ordinary));
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  const std::string recycled = ReadAll(fs::path(dir.path()) / ZeroedWalFileSystem::kFileName);
  EXPECT_EQ(recycled.size(), kFileBytes);
  EXPECT_EQ(WrittenEnd(recycled), 0u);
}

// A family's memtable can keep the old WAL alive past the next switch: the switch after it
// must not be left without a zeroed file.
TEST_F(ZeroedWalFileSystemTest, AnOldWalNotDeletedInTimeLeavesANewFileToBePrepared) {
  TempDir dir;
  TwoWals wals(dir.path(), /*recycle_wait=*/std::chrono::milliseconds(0));
  wals.SwitchToSecond(dir.path());
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  EXPECT_TRUE(fs::exists(wals.first));
  EXPECT_NE(Inode(fs::path(dir.path()) / ZeroedWalFileSystem::kFileName), Inode(wals.first));
  // Deleted late, with a zeroed file waiting: deleted.
  ASSERT_TRUE(wals.wal_files->DeleteFile(wals.first, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(wals.first));
  EXPECT_TRUE(wals.wal_files->ready());
}

// CONFIG SET appendfsync away from always and back while a preparation is under way (here,
// waiting for the old WAL's deletion): a zeroed file is ready again, and it exists.
TEST_F(ZeroedWalFileSystemTest, TurnedOffAndOnDuringAPreparationPreparesAgain) {
  TempDir dir;
  TwoWals wals(dir.path());
  wals.SwitchToSecond(dir.path());
  wals.wal_files->SetEnabled(false, /*prepare_now=*/false);
  wals.wal_files->SetEnabled(true, /*prepare_now=*/false);
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  EXPECT_EQ(fs::file_size(fs::path(dir.path()) / ZeroedWalFileSystem::kFileName), kFileBytes);
}

// RocksDB's checkpoint hard-links the live WALs but the last one.
TEST_F(ZeroedWalFileSystemTest, AWalACheckpointLinksToIsDeletedNotWrittenOver) {
  TempDir dir;
  TwoWals wals(dir.path());
  ASSERT_TRUE(wals.first_file->Append("records", rocksdb::IOOptions(), nullptr).ok());
  const fs::path linked = fs::path(dir.path()) / "checkpoint-000007.log";
  fs::create_hard_link(wals.first, linked);
  wals.SwitchToSecond(dir.path());
  ASSERT_TRUE(wals.wal_files->DeleteFile(wals.first, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(wals.first));
  EXPECT_FALSE(wals.wal_files->ready());
  EXPECT_FALSE(fs::exists(dir.path() + "/" + ZeroedWalFileSystem::kFileName + ".tmp"));
  EXPECT_EQ(ReadAll(linked).substr(0, 7), "records");
}

// While "<name>.trash" is taken, the delete scheduler numbers the trash: "<name><n>.trash".
TEST_F(ZeroedWalFileSystemTest, ANumberedTrashNameIsAWalsToo) {
  TempDir dir;
  TwoWals wals(dir.path());
  wals.SwitchToSecond(dir.path());
  const ino_t first_inode = Inode(wals.first);
  const std::string trash = wals.first + "2.trash";
  ASSERT_TRUE(wals.wal_files->RenameFile(wals.first, trash, rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(wals.wal_files->DeleteFile(trash, rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(Eventually([&] { return wals.wal_files->ready(); }));
  EXPECT_EQ(Inode(fs::path(dir.path()) / ZeroedWalFileSystem::kFileName), first_inode);
}

TEST_F(ZeroedWalFileSystemTest, AWalDeletedWhileAZeroedFileWaitsIsDeleted) {
  TempDir dir;
  std::shared_ptr<ZeroedWalFileSystem> wal_files = Recycling(dir.path());
  const fs::path zeroed = fs::path(dir.path()) / ZeroedWalFileSystem::kFileName;
  const ino_t waiting = Inode(zeroed);
  const std::string wal = dir.path() + "/000003.log";
  WriteAll(wal, "records");
  ASSERT_TRUE(wal_files->DeleteFile(wal, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(wal));
  EXPECT_TRUE(wal_files->ready());
  EXPECT_EQ(Inode(zeroed), waiting);
}

TEST_F(ZeroedWalFileSystemTest, WithoutRecyclingADeletedWalIsDeleted) {
  TempDir dir;
  TwoWals wals(dir.path());
  wals.SwitchToSecond(dir.path());
  wals.wal_files->SetRecycling(false);
  ASSERT_TRUE(wals.wal_files->DeleteFile(wals.first, rocksdb::IOOptions(), nullptr).ok());
  EXPECT_FALSE(fs::exists(wals.first));
  EXPECT_FALSE(wals.wal_files->ready());
  EXPECT_FALSE(fs::exists(dir.path() + "/" + ZeroedWalFileSystem::kFileName + ".tmp"));
}

TEST_F(ZeroedWalFileSystemTest, AZeroedFileThatCannotBeTakenGivesAnOrdinaryWalAndANewOne) {
  TempDir dir;
  std::shared_ptr<ZeroedWalFileSystem> wal_files = TurnedOn(dir.path());
  ASSERT_TRUE(wal_files->ready());
  const fs::path zeroed = fs::path(dir.path()) / ZeroedWalFileSystem::kFileName;
  fs::remove(zeroed);  // gone behind its back, as a rename that fails
  const std::string wal = dir.path() + "/000003.log";
  ASSERT_NE(NewWal(*wal_files, wal), nullptr);
  EXPECT_EQ(wal_files->files_used(), 0u);
  EXPECT_EQ(fs::file_size(wal), 0u);
  EXPECT_TRUE(Eventually([&] { return wal_files->ready(); }));
  EXPECT_EQ(fs::file_size(zeroed), kFileBytes);
}

TEST_F(ZeroedWalFileSystemTest, APassedOverWalIsOrdinaryAndTheNextTakesTheZeroedFile) {
  TempDir dir;
  std::shared_ptr<ZeroedWalFileSystem> wal_files = TurnedOn(dir.path());
  ASSERT_TRUE(wal_files->ready());
  wal_files->SetPassedOver(true);
  const std::string passed_over = dir.path() + "/000005.log";
  ASSERT_NE(NewWal(*wal_files, passed_over), nullptr);
  EXPECT_EQ(fs::file_size(passed_over), 0u);
  EXPECT_EQ(wal_files->files_used(), 0u);
  EXPECT_TRUE(wal_files->ready());
  wal_files->SetPassedOver(false);
  const std::string next = dir.path() + "/000006.log";
  ASSERT_NE(NewWal(*wal_files, next), nullptr);
  EXPECT_EQ(fs::file_size(next), kFileBytes);
  EXPECT_EQ(wal_files->files_used(), 1u);
}

TEST_F(ZeroedWalFileSystemTest, APreparationThatFailedIsTriedAgainAtTheNextWal) {
  TempDir dir;
  // A directory where the zeroed file is written makes the preparation fail, as a full disk.
  const fs::path obstacle =
      fs::path(dir.path()) / (std::string(ZeroedWalFileSystem::kFileName) + ".tmp");
  fs::create_directory(obstacle);
  std::shared_ptr<ZeroedWalFileSystem> wal_files = TurnedOn(dir.path());
  ASSERT_FALSE(wal_files->ready());
  fs::remove(obstacle);
  ASSERT_NE(NewWal(*wal_files, dir.path() + "/000004.log"), nullptr);
  EXPECT_EQ(wal_files->files_used(), 0u);
  EXPECT_TRUE(Eventually([&] { return wal_files->ready(); }));
}

}  // namespace
}  // namespace sluice::storage
