#include "storage/background_worker.h"

#include <utility>

namespace sluice::storage {

BackgroundWorker::BackgroundWorker() : thread_([this] { Run(); }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool BackgroundWorker::Start(Work work, Done done) {
  {
    std::lock_guard lock(mu_);
    if (busy_ || stopping_) return false;
    busy_ = true;
    work_ = std::move(work);
    done_ = std::move(done);
  }
  wake_.notify_one();
  return true;
}

bool BackgroundWorker::Busy() const {
  std::lock_guard lock(mu_);
  return busy_;
}

void BackgroundWorker::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || work_; });
    if (!work_) return;  // stopping, nothing asked for
    Work work = std::exchange(work_, nullptr);
    Done done = std::exchange(done_, nullptr);
    lock.unlock();
    Status status = work();
    lock.lock();
    busy_ = false;
    lock.unlock();
    done(std::move(status));
    lock.lock();
  }
}

}  // namespace sluice::storage
