// Fragment programs on the shader cores: quads packed into warps (see fragment_program.h).
#include "gsgpu/emu/graphics/fragment_program.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace gsgpu::graphics {

std::optional<std::string> FragmentProgramStage::check_runner(const ShaderProgramRunner& runner) {
  const uint32_t width = runner.warp_width();
  if (width == 0) return "fragment programs need the shader cores, which this build does not have";
  if (width % 4 != 0)
    return "fragment programs need warps of whole 2x2 quads; the warp width is " + std::to_string(width);
  return std::nullopt;
}

FragmentProgramStage::FragmentProgramStage(const ShaderProgram& program, ShaderProgramRunner& runner,
                                           OutputMerger& merger, uint32_t warps_per_batch, MergeWorker* merge_worker,
                                           BatchStorage* reuse)
    : program_(program),
      runner_(runner),
      merger_(merger),
      width_(runner.warp_width()),
      quads_per_batch_(warps_per_batch * (runner.warp_width() / 4)),
      output_slots_(merger.more_target_count() != 0 ? kFragmentExportSlots : kTarget0Slots),
      preload_rows_((program.reads_frag_coord ? kFragCoordPreloadRows : 0) |
                    (program.reads_facing ? kFacingPreloadRow : 0)),
      merge_worker_(merge_worker),
      reuse_(reuse) {
  if (reuse_) {
    // Primitive entries, lanes, preload rows and outputs are kept from batch to batch within a draw
    // already (each is written or cleared before it is read); only the lists start empty.
    std::swap(batch_, (*reuse_)[0]);
    std::swap(in_flight_, (*reuse_)[1]);
    for (Batch* b : {&batch_, &in_flight_}) {
      b->primitive_count = 0;
      b->front_facing.clear();
      b->quads.clear();
    }
  }
  batch_.quads.reserve(quads_per_batch_);
  batch_.lanes.reserve(size_t{quads_per_batch_} * 4);  // whole warps: quads_per_batch_ is warps * width / 4
}

FragmentProgramStage::~FragmentProgramStage() {
  wait_merges();
  if (reuse_) {
    std::swap(batch_, (*reuse_)[0]);
    std::swap(in_flight_, (*reuse_)[1]);
  }
}

void FragmentProgramStage::begin_triangle(const RasterTriangle& t, bool front_facing) {
  // Entries are reused from batch to batch (a primitive is 1 KiB) and only the components the program
  // may read are copied: v_interp_* faults on the others, so what an entry held before is never read.
  if (batch_.primitive_count == batch_.primitives.size()) batch_.primitives.emplace_back();
  copy_varyings(t, &batch_.primitives[batch_.primitive_count++]);
  batch_.front_facing.push_back(front_facing);
}

void FragmentProgramStage::copy_varyings(const RasterTriangle& t, FragmentPrimitive* p) const {
  const uint32_t n = std::min(program_.varying_components, kMaxFragmentVaryings);  // the CP checked it too
  for (int i = 0; i < 3; ++i) std::copy_n(t.varyings[i].begin(), n, p->varyings[i].begin());
  std::copy_n(t.flat.begin(), n, p->flat.begin());
}

bool FragmentProgramStage::add_quad(const Quad& quad, const TriangleInterpolator& interp, bool needs_depth,
                                    bool depth_slopes) {
  QuadRecord record{quad, static_cast<uint32_t>(batch_.primitive_count - 1), {}, {}};
  if (depth_slopes) record.depth_slopes = interp.depth_slopes();
  const uint32_t front_facing = batch_.front_facing.back() ? 1u : 0u;
  std::array<PixelWeights, 4>& weights = quad_weights_;  // a member: not zeroed per quad
  // Barycentrics are read only by v_interp_*, which faults on a program that declares no varyings:
  // then the lanes carry zeros there and only FragCoord's z and 1 / w are computed, and those only
  // when the program reads FragCoord or the merge the depth (a flat fill needs neither).
  const bool barycentrics = program_.varying_components != 0;
  if (barycentrics) {
    interp.quad_weights(quad.x, quad.y, &weights);
  } else if (needs_depth || (preload_rows_ & kFragCoordPreloadRows) != 0) {
    interp.quad_depth_and_inverse_w(quad.x, quad.y, &weights);
  }
  write_lanes(quad, record.primitive, front_facing, barycentrics);
  if (needs_depth) {
    for (int i = 0; i < 4; ++i)
      if (quad.coverage >> i & 1) record.depth[i] = weights[i].depth;
  }
  batch_.quads.push_back(record);
  return batch_.quads.size() < quads_per_batch_ || run_batch(merge_worker_ != nullptr);
}

void FragmentProgramStage::write_lanes(const Quad& quad, uint32_t primitive, uint32_t front_facing,
                                       bool barycentrics) {
  // Lanes and preload rows grow with the draw's first batch (a small draw zeroes few) and are
  // reused after it. A lane's primitive and weights are read only by v_interp_*, which faults
  // before reading them in a program without varyings; preload rows outside preload_rows_ are
  // never read (the cores leave those registers 0).
  const size_t first_lane = 4 * batch_.quads.size();
  if (batch_.lanes.size() < first_lane + 4) batch_.lanes.resize(first_lane + 4);
  const size_t rows_end = preload_warp_ + size_t{kFragmentPreloadRegs} * width_;
  if (batch_.preload.size() < rows_end) batch_.preload.resize(rows_end);
  FragmentLane* const lanes = batch_.lanes.data() + first_lane;
  uint32_t* const rows = batch_.preload.data() + preload_warp_ + preload_lane_;
  const size_t row = width_;
  if (barycentrics) {
    for (int i = 0; i < 4; ++i) {
      lanes[i].perspective = quad_weights_[i].perspective;
      lanes[i].linear = quad_weights_[i].screen;
      lanes[i].primitive = primitive;
    }
  }
  if (preload_rows_ & kFragCoordPreloadRows) {
    for (int i = 0; i < 4; ++i) {
      rows[i] = std::bit_cast<uint32_t>(float(quad.x + (i & 1)) + 0.5f);
      rows[row + i] = std::bit_cast<uint32_t>(float(quad.y + (i >> 1)) + 0.5f);
      rows[2 * row + i] = std::bit_cast<uint32_t>(quad_weights_[i].depth);
      rows[3 * row + i] = std::bit_cast<uint32_t>(quad_weights_[i].inverse_w);
    }
  }
  if (preload_rows_ & kFacingPreloadRow) {
    for (int i = 0; i < 4; ++i) rows[4 * row + i] = front_facing;
  }
  // The next quad's place, by counting (a division per quad costs more than the lane writes).
  preload_lane_ += 4;
  if (preload_lane_ == width_) {
    preload_lane_ = 0;
    preload_warp_ += size_t{kFragmentPreloadRegs} * width_;
  }
}

bool FragmentProgramStage::flush() {
  // The draw's last batch: shaded and merged here (a hand-over would only be waited for), after the others.
  return run_batch(false);
}

bool FragmentProgramStage::finish_in_flight() {
  if (!merge_worker_) return true;
  merge_worker_->wait();
  if (!in_flight_fault_) return true;
  fault_ = std::move(in_flight_fault_);
  in_flight_fault_.reset();
  return false;
}

bool FragmentProgramStage::run_batch(bool hand_over) {
  if (batch_.quads.empty()) return finish_in_flight();
  const uint32_t warps = mark_lanes(batch_);
  // Batches are shaded and merged one after the other, in order: the previous one must be done
  // (its buffers are then free again), and a fault there ends the draw before this batch runs.
  if (!finish_in_flight()) {
    batch_.quads.clear();
    return false;
  }
  if (hand_over) {
    std::swap(batch_, in_flight_);
    merge_worker_->submit([this, warps] { in_flight_fault_ = shade_and_merge(in_flight_, warps); });
    start_next_batch(in_flight_);
    return true;
  }
  fault_ = shade_and_merge(batch_, warps);
  start_next_batch(batch_);
  return !fault_;
}

uint32_t FragmentProgramStage::mark_lanes(Batch& b) const {
  const uint32_t quads_per_warp = width_ / 4;
  const auto warps = static_cast<uint32_t>((b.quads.size() + quads_per_warp - 1) / quads_per_warp);
  // The last warp's missing quads: lanes that never run (their lane-mask bits are 0).
  const size_t lane_count = size_t{warps} * width_;
  if (b.lanes.size() < lane_count) b.lanes.resize(lane_count);
  b.lane_masks.assign(warps, 0);
  uint32_t warp = 0, slot = 0;  // quad k is slot k % quads_per_warp of warp k / quads_per_warp
  for (const QuadRecord& r : b.quads) {
    const uint64_t lanes = (r.quad.coverage | r.quad.helper) & 0xFu;
    b.lane_masks[warp] |= lanes << (4 * slot);
    if (++slot == quads_per_warp) slot = 0, ++warp;
  }
  return warps;
}

std::optional<std::string> FragmentProgramStage::shade_and_merge(Batch& b, uint32_t warps) {
  const size_t lane_count = size_t{warps} * width_;
  reset_outputs(b, lane_count);
  FragmentWarpIO io;
  io.varying_components = program_.varying_components;
  io.primitives = b.primitives.data();
  io.primitive_count = b.primitive_count;
  io.lanes = b.lanes.data();
  io.preload = b.preload.data();
  io.preload_rows = preload_rows_;
  io.lane_masks = b.lane_masks.data();
  io.outputs = b.outputs.data();
  io.lane_count = lane_count;
  std::optional<std::string> fault = runner_.run(program_, io, warps);
  if (!fault) merge_batch(b);  // a faulted batch merges nothing
  return fault;
}

void FragmentProgramStage::start_next_batch(const Batch& previous) {
  // The triangle being rasterized may go on with more quads: its primitive and facing become entry
  // 0 of the next batch. (`previous` is batch_ itself or the batch just handed to the worker, which
  // only reads it.)
  if (batch_.primitives.empty()) batch_.primitives.emplace_back();
  if (&previous != &batch_ || previous.primitive_count > 1)
    batch_.primitives[0] = previous.primitives[previous.primitive_count - 1];
  const bool facing = previous.front_facing.back();
  batch_.primitive_count = 1;
  batch_.front_facing.assign(1, facing);
  batch_.quads.clear();
  preload_warp_ = preload_lane_ = 0;
}

void FragmentProgramStage::reset_outputs(Batch& b, size_t count) const {
  // Only what the merge reads: clearing all 37 slots of every lane was 5 % of a flat fill's host
  // instructions. Slots past output_slots_ may hold an earlier batch's values; nothing reads them.
  if (b.outputs.size() < count) b.outputs.resize(count);
  if (output_slots_ != kTarget0Slots) {
    std::fill_n(b.outputs.begin(), count, FragmentLaneOutput{});
    return;
  }
  for (size_t l = 0; l < count; ++l) {
    FragmentLaneOutput& out = b.outputs[l];
    std::fill_n(out.value.begin(), kTarget0Slots, 0.0f);  // a constant size: two vector stores, not a memset call
    out.exported = 0;
    out.killed = false;
  }
}

void FragmentProgramStage::merge_batch(const Batch& b) {
  const std::vector<QuadRecord>& quads = b.quads;
  const std::vector<FragmentLaneOutput>& outputs = b.outputs;
  if (merger_.plain_color_only()) {
    merge_plain(quads, outputs);
    return;
  }
  for (size_t k = 0; k < quads.size(); ++k) {
    const QuadRecord& r = quads[k];
    const bool front_facing_k = b.front_facing[r.primitive];
    for (int i = 0; i < 4; ++i) {
      if (!(r.quad.coverage >> i & 1)) continue;  // helper lanes write nothing
      const FragmentLaneOutput& out = outputs[4 * k + i];
      if (out.killed) continue;
      Fragment f;
      f.x = r.quad.x + (i & 1);
      f.y = r.quad.y + (i >> 1);
      const bool exported_depth = (out.exported >> 8 & 1) != 0;
      f.depth = exported_depth ? out.value[8] : r.depth[i];
      // An exported depth is the fragment's, the same at every sample.
      f.depth_dx = exported_depth ? 0.0f : r.depth_slopes[0];
      f.depth_dy = exported_depth ? 0.0f : r.depth_slopes[1];
      f.samples = r.quad.samples[i];
      f.front_facing = front_facing_k;
      f.color = {out.value[0], out.value[1], out.value[2], out.value[3]};
      f.color1 = {out.value[4], out.value[5], out.value[6], out.value[7]};
      f.more_colors = out.value.data() + kFragmentTarget1Slot;
      merger_.process(f);
    }
  }
}

void FragmentProgramStage::merge_plain(const std::vector<QuadRecord>& quads,
                                       const std::vector<FragmentLaneOutput>& outputs) {
  // Neither depth, facing nor samples matter to such a merge: only the covered, living lanes' colour.
  for (size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[k].quad;
    for (int i = 0; i < 4; ++i) {
      if (!(q.coverage >> i & 1)) continue;  // helper lanes write nothing
      const FragmentLaneOutput& out = outputs[4 * k + i];
      if (out.killed) continue;
      merger_.process_plain(q.x + (i & 1), q.y + (i >> 1), Color{out.value[0], out.value[1], out.value[2], out.value[3]});
    }
  }
}

}  // namespace gsgpu::graphics
