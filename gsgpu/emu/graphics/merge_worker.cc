// One background job at a time, in order (merge_worker.h).
#include "gsgpu/emu/graphics/merge_worker.h"

#include <utility>

namespace gsgpu::graphics {

MergeWorker::~MergeWorker() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !job_; });
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void MergeWorker::submit(std::function<void()> job) {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !job_; });
    job_ = std::move(job);
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  changed_.notify_all();
}

void MergeWorker::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !job_; });
}

void MergeWorker::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return job_ || stop_; });
    if (!job_) return;  // stopped with nothing in hand
    // Run unlocked: the job touches only what its submitter gave up until wait() returns.
    lock.unlock();
    job_();
    lock.lock();
    job_ = nullptr;
    changed_.notify_all();
  }
}

}  // namespace gsgpu::graphics
