// An LD_PRELOAD library that makes the disk under one directory fail, on demand, for the
// disk-trouble tests: an unmodified sluiced sees the errno that a dying disk (EIO) or a file
// system remounted read-only (EROFS) would give it, from the same calls.
//
//   SLUICE_FAULT_DIR   the directory whose files fail (the data directory)
//   SLUICE_FAULT_FILE  a control file: while it exists and starts with "EIO" or "EROFS", every
//                      write, sync, allocation and writable open of a file under the directory
//                      fails with that errno; remove it and the disk is healthy again. Words
//                      after the errno narrow the failures: "syncs" to fsync and fdatasync
//                      (writes work, as when the disk loses what it had cached), "once" to
//                      the first failing call (the control file is then removed), and any
//                      other word to the files whose path contains it ("EIO MANIFEST",
//                      "EIO syncs once .log").
//                      "ENOLCK" instead makes flock(2) on the directory or a file under it
//                      fail with ENOLCK, as on a network file system that cannot lock (and
//                      nothing else).
//                      "SLOW ms" instead makes each unlink of a file under the directory
//                      (unlink, or unlinkat from the working directory) take that many
//                      milliseconds more, as deleting a large file can on a busy disk; words
//                      after it narrow it to paths that contain them ("SLOW 400 .log").
//                      "HOLD" instead makes each fsync and fdatasync of a file under the
//                      directory wait while the control file still says HOLD (at most a
//                      minute), as a disk that stalls: a background job is held running
//                      until the test lets it go. Words after it narrow it ("HOLD .sst").
//
// Reads always work, as on a real read-only remount. Test code only: never installed.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

// Reads the control file's first line into `text` (empty when there is none) if `path` is
// under the faulty directory; returns 0 otherwise. Uses the real open/read, so it never
// recurses into the wrappers below, and keeps errno.
static int read_control(const char* path, char* text, size_t size) {
  const char* control = getenv("SLUICE_FAULT_FILE");
  const char* dir = getenv("SLUICE_FAULT_DIR");
  if (control == NULL || dir == NULL || path == NULL) return 0;
  size_t dir_length = strlen(dir);
  if (strncmp(path, dir, dir_length) != 0 || (path[dir_length] != '/' && path[dir_length] != '\0')) {
    return 0;
  }
  int saved = errno;
  memset(text, 0, size);
  int fd = REAL(open)(control, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = REAL(read)(fd, text, size - 1);
    (void)n;
    REAL(close)(fd);
  }
  text[strcspn(text, "\r\n")] = '\0';
  errno = saved;
  return 1;
}

// What a call is, for the words that narrow failures to some calls.
enum call_kind { CALL_WRITE, CALL_SYNC, CALL_LOCK };

// The errno to fail a call of `kind` on `path` with now, or 0.
static int injected_errno(const char* path, enum call_kind kind) {
  char text[128];
  if (!read_control(path, text, sizeof text)) return 0;
  int err = 0;
  int once = 0;
  char* rest = NULL;
  for (char* word = strtok_r(text, " ", &rest); word != NULL; word = strtok_r(NULL, " ", &rest)) {
    if (err == 0) {
      if (strcmp(word, "ENOLCK") == 0) {
        err = kind == CALL_LOCK ? ENOLCK : 0;
      } else if (kind != CALL_LOCK) {
        err = strcmp(word, "EROFS") == 0 ? EROFS : strcmp(word, "EIO") == 0 ? EIO : 0;
      }
    } else if (strcmp(word, "syncs") == 0) {
      if (kind != CALL_SYNC) err = 0;
    } else if (strcmp(word, "once") == 0) {
      once = 1;
    } else if (strstr(path, word) == NULL) {
      err = 0;
    }
    if (err == 0) break;
  }
  if (err != 0 && once) {
    int saved = errno;
    REAL(unlink)(getenv("SLUICE_FAULT_FILE"));
    errno = saved;
  }
  return err;
}

// Whether each of the words left in `rest` (strtok_r's state) is part of `path`.
static int path_has_words(const char* path, char** rest) {
  for (char* word = strtok_r(NULL, " ", rest); word != NULL; word = strtok_r(NULL, " ", rest)) {
    if (strstr(path, word) == NULL) return 0;
  }
  return 1;
}

// Whether the control file, read for `path` into `text`, starts with `keyword`; `rest` is
// then strtok_r's state after it.
static int control_starts_with(const char* path, const char* keyword, char* text, size_t size,
                               char** rest) {
  if (!read_control(path, text, size)) return 0;
  char* word = strtok_r(text, " ", rest);
  return word != NULL && strcmp(word, keyword) == 0;
}

// The milliseconds "SLOW" adds to an unlink of `path` now, or 0.
static long unlink_delay_ms(const char* path) {
  char text[128];
  char* rest = NULL;
  if (!control_starts_with(path, "SLOW", text, sizeof text, &rest)) return 0;
  char* word = strtok_r(NULL, " ", &rest);
  long ms = word == NULL ? 0 : strtol(word, NULL, 10);
  return path_has_words(path, &rest) ? ms : 0;
}

// Whether "HOLD" holds a sync of `path` now.
static int sync_held(const char* path) {
  char text[128];
  char* rest = NULL;
  return control_starts_with(path, "HOLD", text, sizeof text, &rest) && path_has_words(path, &rest);
}

static void sleep_ms(long ms) {
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

// The path of the file `fd` is open on, into `path`; 0 when it cannot be told.
static int fd_path(int fd, char* path, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  int saved = errno;
  ssize_t n = readlink(link, path, size - 1);
  errno = saved;
  if (n <= 0) return 0;
  path[n] = '\0';
  return 1;
}

// A sync of `path` waits here while "HOLD" holds it, checking every 10 ms, at most a minute.
static void hold_sync(const char* path) {
  int saved = errno;
  for (int waited_ms = 0; waited_ms < 60000 && sync_held(path); waited_ms += 10) sleep_ms(10);
  errno = saved;
}

// Nonzero (and errno set) when a call on `fd` must fail now; a sync is first held while
// "HOLD" holds it.
static int fail_fd_call(int fd, enum call_kind kind) {
  char path[4096];
  if (getenv("SLUICE_FAULT_FILE") == NULL || !fd_path(fd, path, sizeof path)) return 0;
  if (kind == CALL_SYNC) hold_sync(path);
  int err = injected_errno(path, kind);
  if (err == 0) return 0;
  errno = err;
  return 1;
}

static int fail_fd(int fd) { return fail_fd_call(fd, CALL_WRITE); }

// `path`, or, when it is relative, the path it names from the working directory (in
// `resolved`), as the kernel would resolve it.
static const char* absolute_path(const char* path, char* resolved, size_t size) {
  if (path[0] == '/' || getcwd(resolved, size) == NULL) return path;
  size_t used = strlen(resolved);
  snprintf(resolved + used, size - used, "/%s", path);
  return resolved;
}

static int fail_open(const char* path, int flags) {
  if ((flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) == 0) return 0;
  char resolved[4096];
  path = absolute_path(path, resolved, sizeof resolved);
  int err = injected_errno(path, CALL_WRITE);
  if (err == 0) return 0;
  errno = err;
  return 1;
}

ssize_t write(int fd, const void* buf, size_t count) {
  if (fail_fd(fd)) return -1;
  return REAL(write)(fd, buf, count);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  if (fail_fd(fd)) return -1;
  return REAL(pwrite)(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  if (fail_fd(fd)) return -1;
  return REAL(pwrite64)(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  if (fail_fd(fd)) return -1;
  return REAL(writev)(fd, iov, iovcnt);
}

int fsync(int fd) {
  if (fail_fd_call(fd, CALL_SYNC)) return -1;
  return REAL(fsync)(fd);
}

int fdatasync(int fd) {
  if (fail_fd_call(fd, CALL_SYNC)) return -1;
  return REAL(fdatasync)(fd);
}

int flock(int fd, int operation) {
  if (fail_fd_call(fd, CALL_LOCK)) return -1;
  return REAL(flock)(fd, operation);
}

// Not a sync for "syncs": it only starts writeback (and RocksDB asserts on its probe's errno).
int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
  if (fail_fd(fd)) return -1;
  return REAL(sync_file_range)(fd, offset, nbytes, flags);
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
  if (fail_fd(fd)) return -1;
  return REAL(fallocate)(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off64_t offset, off64_t len) {
  if (fail_fd(fd)) return -1;
  return REAL(fallocate64)(fd, mode, offset, len);
}

int ftruncate(int fd, off_t length) {
  if (fail_fd(fd)) return -1;
  return REAL(ftruncate)(fd, length);
}

int ftruncate64(int fd, off64_t length) {
  if (fail_fd(fd)) return -1;
  return REAL(ftruncate64)(fd, length);
}

// open and friends take an optional mode: read it only when the flags say it is there.
static mode_t optional_mode(int flags, va_list args) {
  return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(args, int) : 0;
}

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = optional_mode(flags, args);
  va_end(args);
  if (fail_open(path, flags)) return -1;
  return REAL(open)(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = optional_mode(flags, args);
  va_end(args);
  if (fail_open(path, flags)) return -1;
  return REAL(open64)(path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = optional_mode(flags, args);
  va_end(args);
  if (dirfd == AT_FDCWD && fail_open(path, flags)) return -1;
  return REAL(openat)(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  mode_t mode = optional_mode(flags, args);
  va_end(args);
  if (dirfd == AT_FDCWD && fail_open(path, flags)) return -1;
  return REAL(openat64)(dirfd, path, flags, mode);
}

FILE* fopen(const char* path, const char* how) {
  if (strpbrk(how, "wa+") != NULL && fail_open(path, O_WRONLY)) return NULL;
  return REAL(fopen)(path, how);
}

FILE* fopen64(const char* path, const char* how) {
  if (strpbrk(how, "wa+") != NULL && fail_open(path, O_WRONLY)) return NULL;
  return REAL(fopen64)(path, how);
}

int rename(const char* from, const char* to) {
  int err = injected_errno(from, CALL_WRITE);
  if (err == 0) err = injected_errno(to, CALL_WRITE);
  if (err != 0) {
    errno = err;
    return -1;
  }
  return REAL(rename)(from, to);
}

static void delay_unlink(const char* path) {
  if (path == NULL || getenv("SLUICE_FAULT_FILE") == NULL) return;
  char resolved[4096];
  long ms = unlink_delay_ms(absolute_path(path, resolved, sizeof resolved));
  if (ms > 0) sleep_ms(ms);
}

int unlink(const char* path) {
  int saved = errno;
  delay_unlink(path);
  errno = saved;
  return REAL(unlink)(path);
}

int unlinkat(int dirfd, const char* path, int flags) {
  int saved = errno;
  if (dirfd == AT_FDCWD) delay_unlink(path);
  errno = saved;
  return REAL(unlinkat)(dirfd, path, flags);
}
