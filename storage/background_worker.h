#pragma once

// A thread of its own for the engine's slow calls, one at a time, so that the event loop never
// waits for the disk: appendfsync everysec's WAL sync, and DB::Resume after a background error
// (which waits for RocksDB's background work: a second after a failed flush).

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "common/status.h"

namespace sluice::storage {

class BackgroundWorker {
 public:
  using Work = std::function<Status()>;
  using Done = std::function<void(Status)>;

  BackgroundWorker();
  ~BackgroundWorker();  // waits for the work under way
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Runs `work` on the worker's thread, then `done` with its result, also there. False, and
  // nothing started, while earlier work is under way. The worker counts as free again before
  // `done` runs, so that `done` (or what it hands the loop) may start the next run.
  bool Start(Work work, Done done);
  // True from Start until `work` has returned.
  bool Busy() const;

 private:
  void Run();

  mutable std::mutex mu_;
  std::condition_variable wake_;
  Work work_;  // set from Start until the worker takes it
  Done done_;
  bool busy_ = false;  // from Start until the work has returned
  bool stopping_ = false;
  std::thread thread_;  // last: it starts once the members above exist
};

}  // namespace sluice::storage
