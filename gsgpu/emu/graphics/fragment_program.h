// The fragment stage when SHADER_STATE names a fragment program (docs/graphics.md "Fragment
// programs"): 2x2 quads are packed into warps of the shader cores, run there, and the lanes'
// exports go to the output merger in the order the rasterizer produced the quads.
//
// Per lane the stage gives the warp the interpolator's barycentrics (perspective-corrected and
// screen-space, in double) and its triangle's varyings (fragment_io.h); v_interp_* computes
// sum b_i f_i exactly as the fixed stand-ins do. Helper lanes (the uncovered lanes of a quad) run
// so that derivatives see the whole quad, and are never merged. A lane that v_kill ended is not
// merged. Colour components the program does not export read 0; depth is the interpolated depth
// unless the program exports slot 8. Quads are batched (up to `warps_per_batch` warps, possibly
// from many triangles) and one dispatch runs the batch; a fault in it stops the draw with nothing
// of the batch merged. With a MergeWorker (fast mode) a full batch is shaded and merged on the
// worker's thread while the calling thread rasterizes and sets up the next one; batches are still
// shaded and merged one after the other, in order, so the pixels and counters are the reference's.
// The runner is then called from several threads (vertex batches on the draw's thread or the
// geometry thread, fragment batches here and there): it must take calls of the two kinds at once
// and serialize those of one kind (BackendProgramRunner does).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/graphics/clipper.h"
#include "gsgpu/emu/graphics/interpolator.h"
#include "gsgpu/emu/graphics/merge_worker.h"
#include "gsgpu/emu/graphics/output_merger.h"
#include "gsgpu/emu/graphics/rasterizer.h"
#include "gsgpu/emu/graphics/shader_program.h"
#include "gsgpu/emu/shader/fragment_io.h"

namespace gsgpu::graphics {

class FragmentProgramStage {
 public:
  static constexpr uint32_t kDefaultWarpsPerBatch = 64;

  // Refuses (a reason) a runner without shader cores or whose warps do not hold whole quads.
  static std::optional<std::string> check_runner(const ShaderProgramRunner& runner);

  struct QuadRecord {
    Quad quad;
    uint32_t primitive;
    std::array<float, 4> depth;
    std::array<float, 2> depth_slopes;  // 0 unless add_quad was asked for them
  };
  // Everything one dispatch reads and the merge after it: fast mode sets up one batch while the
  // worker shades and merges the previous one (the two are swapped, never copied).
  struct Batch {
    std::vector<FragmentPrimitive> primitives;  // the first primitive_count are this batch's
    size_t primitive_count = 0;
    std::vector<bool> front_facing;  // per primitive
    std::vector<QuadRecord> quads;
    // The quads' lanes, written in place and kept from batch to batch (the first 4 * quads.size()
    // are this batch's); without varyings the weights stay the zeros they were created with.
    std::vector<FragmentLane> lanes;
    std::vector<uint32_t> preload;  // FragmentWarpIO::preload, grown as lanes is
    // FragmentWarpIO::output_values (kept from batch to batch: a lane's entry is read only where
    // its exported bit is set), output_exported and output_killed (cleared per batch).
    std::vector<uint32_t> output_values;
    std::vector<uint64_t> output_exported;
    std::vector<uint64_t> output_killed;
    std::vector<uint64_t> lane_masks;
  };
  // The two batches' vectors, which a caller may keep from draw to draw (draw_scratch.h).
  using BatchStorage = std::array<Batch, 2>;


  // Fragments go to `merger`, whose targets are all added (its colour target count decides which
  // export slots are read). `merge_worker`: where full batches are shaded and merged (nullptr: on
  // the calling thread); the runner and the merger are then used on the worker's thread until
  // flush() or wait_merges() returns.
  // `reuse`: the vectors of an earlier draw, taken for this one and given back by the destructor.
  FragmentProgramStage(const ShaderProgram& program, ShaderProgramRunner& runner, OutputMerger& merger,
                       uint32_t warps_per_batch = kDefaultWarpsPerBatch, MergeWorker* merge_worker = nullptr,
                       BatchStorage* reuse = nullptr);
  // Waits for the batch on the worker (its vectors are among those given back).
  ~FragmentProgramStage();
  FragmentProgramStage(const FragmentProgramStage&) = delete;
  FragmentProgramStage& operator=(const FragmentProgramStage&) = delete;

  // The triangle whose quads follow.
  void begin_triangle(const RasterTriangle& triangle, bool front_facing);
  // Queues one quad of the current triangle (depth interpolated when `needs_depth`); runs the batch
  // when it is full. False when a batch faulted (fault()); with a worker, the fault of the batch it
  // runs shows when the next one is handed over, or at flush().
  // With `depth_slopes` (a multisampled depth target) the fragments also carry the depth plane's slopes.
  bool add_quad(const Quad& quad, const TriangleInterpolator& interp, bool needs_depth, bool depth_slopes = false);
  // Runs what is queued and merges it (after every earlier batch); false on a fault.
  bool flush();
  // Returns once every batch handed to the worker is shaded and merged (a draw that stops without
  // flush(): the fragment budget, a cancel; a fault of that batch is then not reported).
  void wait_merges() {
    if (merge_worker_) merge_worker_->wait();
  }
  const std::optional<std::string>& fault() const { return fault_; }

 private:
  // Runs the queued quads: handed to the worker when `hand_over` (the call returns at once), else
  // shaded and merged here; either way after every earlier batch. False on a fault (fault()).
  bool run_batch(bool hand_over);
  // Waits for the batch on the worker; false (and fault_ set) when its program faulted.
  bool finish_in_flight();
  // The batch's lane masks (covered and helper lanes); returns its warps.
  uint32_t mark_lanes(Batch& b) const;
  // One dispatch of the batch's warps, then its merge; the fault, if any (then nothing is merged).
  std::optional<std::string> shade_and_merge(Batch& b, uint32_t warps);
  // Empties batch_ for the next quads, keeping the current triangle (the last of `previous`).
  void start_next_batch(const Batch& previous);
  void merge_batch(Batch& b);
  // merge_batch when the merger takes every fragment plainly (OutputMerger::plain_color_only): a
  // warp at a time, the `count` quads of warp `warp` from `quads`.
  void merge_plain(Batch& b);
  void merge_plain_warp(Batch& b, size_t warp, const QuadRecord* quads, size_t count);
  // Sizes the outputs for `warps` warps and clears their exported and killed marks.
  void reset_outputs(Batch& b, uint32_t warps) const;
  void copy_varyings(const RasterTriangle& t, FragmentPrimitive* p) const;
  // The lanes and preloaded registers of the next quad, from quad_weights_.
  void write_lanes(const Quad& quad, uint32_t primitive, uint32_t front_facing, bool barycentrics);

  ShaderProgram program_;
  ShaderProgramRunner& runner_;
  OutputMerger& merger_;
  uint32_t width_;
  uint32_t quads_per_batch_;
  // Export slots whose marks the merge reads: colour 0 for a plain merge, else colours 0 and 1 and
  // the depth, or every slot when the draw has more colour targets.
  uint32_t merged_slots_;
  // FragmentWarpIO::preload_rows: FragCoord and facing only when the program reads them.
  uint32_t preload_rows_;
  // add_quad()'s weights; without varyings only depth and 1 / w are written (and read).
  std::array<PixelWeights, 4> quad_weights_;
  Batch batch_;  // being set up on the calling thread
  // The next quad's lane 0 in batch_.preload: preload_warp_ (its warp's first row) + preload_lane_.
  size_t preload_warp_ = 0;
  uint32_t preload_lane_ = 0;
  std::optional<std::string> fault_;
  MergeWorker* merge_worker_;
  Batch in_flight_;  // handed to the worker: only it touches this until finish_in_flight()
  std::optional<std::string> in_flight_fault_;  // written by the worker's job
  BatchStorage* reuse_;
};

}  // namespace gsgpu::graphics
