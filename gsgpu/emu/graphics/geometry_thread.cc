// The channel between the fast mode's geometry thread and the draw's thread (geometry_thread.h).
#include "gsgpu/emu/graphics/geometry_thread.h"

#include <utility>

namespace gsgpu::graphics {

void TriangleChannel::begin() {
  for (TriangleBatch& b : batches_) {
    b.triangles.clear();
    b.marks.clear();
  }
  head_ = count_ = 0;
  finished_ = false;
  stop_.store(false);
  staging_.clear();
  marked_ = 0;
  fill_ = 0;
  fault_.reset();
  final_counters_ = {};
}

bool TriangleChannel::take(const GeometryEngine& engine) {
  if (stop_.load(std::memory_order_relaxed)) return false;
  // The engine calls again while its triangles stay here; only new ones end a sink call's share.
  if (staging_.size() == marked_) return true;
  marked_ = staging_.size();
  batches_[fill_].marks.push_back(TriangleBatch::Mark{marked_, engine.running_counters()});
  return marked_ < kBatchTriangles || hand_over();
}

bool TriangleChannel::hand_over() {
  std::unique_lock lock(mutex_);
  // The batch's queue is empty (release() empties it) and keeps its storage for the staging.
  batches_[fill_].triangles.swap(staging_);
  marked_ = 0;
  ++count_;
  changed_.notify_all();
  changed_.wait(lock, [this] { return count_ < kBatches || stop_.load(); });
  if (stop_.load()) return false;
  fill_ = (head_ + count_) % kBatches;
  return true;
}

void TriangleChannel::finish(std::optional<std::string> fault, const GeometryCounters& counters) {
  std::lock_guard lock(mutex_);
  fault_ = std::move(fault);
  final_counters_ = counters;
  // Stopped: nothing more is read (and fill_ may name a batch the draw thread holds).
  if (!stop_.load() && !batches_[fill_].marks.empty()) {
    batches_[fill_].triangles.swap(staging_);
    ++count_;
  }
  staging_.clear();
  marked_ = 0;
  finished_ = true;
  changed_.notify_all();
}

TriangleBatch* TriangleChannel::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return count_ > 0 || finished_; });
  return count_ > 0 ? &batches_[head_] : nullptr;
}

void TriangleChannel::release() {
  std::lock_guard lock(mutex_);
  batches_[head_].triangles.clear();  // what a stopped draw left unread
  batches_[head_].marks.clear();
  head_ = (head_ + 1) % kBatches;
  --count_;
  changed_.notify_all();
}

void TriangleChannel::stop() {
  std::lock_guard lock(mutex_);
  stop_.store(true);
  changed_.notify_all();
}

}  // namespace gsgpu::graphics
