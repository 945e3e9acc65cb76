// The fast mode's geometry thread (docs/graphics.md "Reference and fast modes"): as on the chip,
// the geometry engine (vertex fetch, vertex shading, assembly, clipping) runs beside the primitive
// engine (set-up, rasterizer, fragment batches) and feeds it through a bounded FIFO. The engine runs
// on a thread of its own (DrawScratch keeps it from draw to draw) and hands batches of screen
// triangles to the draw's thread through a TriangleChannel.
//
// Determinism: every pixel, counter and fault equals the single-thread path's. The draw thread
// consumes the triangles in the order the engine made them. A batch also records, for each call of
// the engine's sink, where that call's triangles end and the engine's counters after it
// (TriangleBatch::Mark); the draw thread takes a mark's counters as it starts on its triangles. A
// draw the primitive side stops (a fragment fault, the fragment budget, a cancel) therefore
// reports the geometry work up to the vertex whose triangles it was drawing, as the single-thread
// path does, and not what the geometry thread did ahead (that work is thrown away: the thread
// stops at its next sink call or vertex batch). A fault of the geometry engine arrives after the
// triangles made before it. Memory is bounded: kBatches batches of about kBatchTriangles
// triangles (1 KiB each), their storage swapped, never copied, and kept from draw to draw.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/graphics/geometry_engine.h"

namespace gsgpu::graphics {

struct TriangleBatch {
  struct Mark {
    size_t end;                 // the triangles [previous mark's end, end) came from one sink call
    GeometryCounters counters;  // the engine's running counters after that call
  };
  Queue<RasterTriangle> triangles;
  std::vector<Mark> marks;
};

class TriangleChannel {
 public:
  // Three batches: the geometry thread fills one while the draw thread draws another, and a third
  // absorbs the two sides' jitter. A batch of 1,024 triangles is about 1 MiB (3 MiB in all, kept
  // from draw to draw); a frame of 16,384 triangles takes 16 hand-overs, each a wake-up of the
  // waiting side (a futex call, and on a busy host a wait for a CPU). Batches of 256 took 64 and
  // lost a fifth of the thread's gain to them (docs/performance.md "Session 16: the geometry
  // thread", the quiet-machine runs).
  static constexpr size_t kBatches = 3;
  static constexpr size_t kBatchTriangles = 1024;

  // The draw thread, before the geometry thread starts a draw: nothing of the last draw is kept.
  void begin();

  // The geometry thread. The queue the engine appends triangles to (set_triangle_queue).
  Queue<RasterTriangle>& staging() { return staging_; }
  // The engine's sink: marks what the engine added since the last call and hands the batch over
  // once it holds kBatchTriangles (waiting while every batch is handed over). False once the draw
  // thread has stopped the draw.
  bool take(const GeometryEngine& engine);
  // The end of the engine's draw: hands over what is marked, with the engine's fault and counters.
  void finish(std::optional<std::string> fault, const GeometryCounters& counters);
  // For GeometryEngine::set_stop_flag.
  const std::atomic<bool>& stop_flag() const { return stop_; }

  // The draw thread. The next batch in order (waiting for it); nullptr once the engine finished
  // and every batch was taken.
  TriangleBatch* next();
  // Gives the batch next() returned back, emptied.
  void release();
  // No more batches are wanted: the geometry thread ends its draw soon (GeometryEngine stop flag).
  void stop();
  // Once the geometry thread's job has returned: what finish() was given.
  const std::optional<std::string>& fault() const { return fault_; }
  const GeometryCounters& final_counters() const { return final_counters_; }

 private:
  bool hand_over();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::array<TriangleBatch, kBatches> batches_;
  // Under mutex_: batches [head_, head_ + count_) (mod kBatches) are handed over; the draw thread
  // works on batches_[head_].
  size_t head_ = 0, count_ = 0;
  bool finished_ = false;
  std::atomic<bool> stop_{false};
  // The geometry thread's own: the triangles not yet handed over, how many of them are marked,
  // and the batch whose marks it writes (never one handed over).
  Queue<RasterTriangle> staging_;
  size_t marked_ = 0;
  size_t fill_ = 0;
  std::optional<std::string> fault_;
  GeometryCounters final_counters_;
};

}  // namespace gsgpu::graphics
