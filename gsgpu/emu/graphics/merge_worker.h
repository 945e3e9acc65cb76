// A thread that runs one job at a time, in the order they were handed over: fast mode's fragment
// stage shades and merges a batch on it while the device thread rasterizes and sets up the next one
// (docs/graphics.md "Reference and fast modes"). One thread merges every batch of a draw in
// submission order, so each pixel sees its fragments in the reference's order and the result is the
// reference's bit for bit.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gsgpu::graphics {

class MergeWorker {
 public:
  MergeWorker() = default;
  MergeWorker(const MergeWorker&) = delete;
  MergeWorker& operator=(const MergeWorker&) = delete;
  // Finishes the job in hand, then stops the thread.
  ~MergeWorker();

  // Waits until the previous job has finished, then hands `job` to the thread (started on first use).
  void submit(std::function<void()> job);
  // Returns once every job handed over has finished.
  void wait();
  // The thread's id (a default id before the first job): tests see that draws reuse it. Only the
  // submitter's thread may ask.
  std::thread::id thread_id() const { return thread_.get_id(); }

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;  // the job handed over and not finished; empty when idle
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gsgpu::graphics
