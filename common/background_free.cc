#include "common/background_free.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace sluice {
namespace {

class BackgroundFreer {
 public:
  BackgroundFreer() { std::thread([this] { Run(); }).detach(); }

  // Moves `task` out only once it is queued (push_back leaves it as it was if it throws).
  void Add(std::function<void()>& task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queued_.push_back(std::move(task));
      ++ever_queued_;
    }
    wake_.notify_one();
  }

  uint64_t ever_queued() {
    std::lock_guard<std::mutex> lock(mu_);
    return ever_queued_;
  }
  size_t pending() {
    std::lock_guard<std::mutex> lock(mu_);
    return queued_.size() + freeing_;
  }

 private:
  void Run() {
    std::vector<std::function<void()>> taken;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        freeing_ = 0;
        wake_.wait(lock, [this] { return !queued_.empty(); });
        taken.swap(queued_);
        freeing_ = taken.size();
      }
      for (std::function<void()>& task : taken) task();
      taken.clear();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<std::function<void()>> queued_;
  size_t freeing_ = 0;  // taken by the thread, not all done yet
  uint64_t ever_queued_ = 0;
};

// Never destroyed, its thread never joined: a table may be freed during static destruction,
// and what is still queued at exit goes back with the process.
BackgroundFreer& Freer() {
  static auto* freer = new BackgroundFreer();
  return *freer;
}

}  // namespace

size_t DropPages(void* block) {
  if (block == nullptr) return 0;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(block);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t end = (begin + malloc_usable_size(block)) & ~(page - 1);
  if (end <= first) return 0;
  // Only fails for a range that is not mapped, which a live block's pages are not.
  if (madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED) != 0) return 0;
  return end - first;
}

void FreeInBackground(void* block) {
  if (block == nullptr) return;
  RunInBackground([block] {
    DropPages(block);
    std::free(block);
  });
}

void RunInBackground(std::function<void()> task) {
  try {
    Freer().Add(task);
  } catch (...) {  // no thread, or no memory to queue it: done here (callers are noexcept)
    task();
  }
}

uint64_t BackgroundFreesQueued() { return Freer().ever_queued(); }
size_t BackgroundFreesPending() { return Freer().pending(); }

}  // namespace sluice
