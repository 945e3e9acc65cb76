// Fragment programs on the shader cores: quads packed into warps (see fragment_program.h).
#include "gsgpu/emu/graphics/fragment_program.h"

#include <algorithm>
#include <bit>
#include <cstring>
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
      merged_slots_(merger.plain_color_only()         ? 4
                    : merger.more_target_count() != 0 ? kFragmentExportSlots
                                                      : kFragmentTarget1Slot),
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
  if (barycentrics || preload_rows_ != 0) write_lanes(quad, record.primitive, front_facing, barycentrics);
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
  // Rows nobody reads still need their place (the cores check the array), when write_lanes was skipped.
  if (b.preload.size() < lane_count * kFragmentPreloadRegs) b.preload.resize(lane_count * kFragmentPreloadRegs);
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
  reset_outputs(b, warps);
  FragmentWarpIO io;
  io.varying_components = program_.varying_components;
  io.primitives = b.primitives.data();
  io.primitive_count = b.primitive_count;
  io.lanes = b.lanes.data();
  io.preload = b.preload.data();
  io.preload_rows = preload_rows_;
  io.lane_masks = b.lane_masks.data();
  io.output_values = b.output_values.data();
  io.output_exported = b.output_exported.data();
  io.output_killed = b.output_killed.data();
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

void FragmentProgramStage::reset_outputs(Batch& b, uint32_t warps) const {
  // Only the marks the merge reads: a value is read only where its lane exported the slot (the
  // merge reads 0 elsewhere), so the values stay from batch to batch (clearing a lane's 37 slots was
  // 5 % of a flat fill's host instructions; clearing 8 still cost 2 %), and so do the marks of
  // slots the merge never reads.
  const size_t values = size_t{warps} * kFragmentExportSlots * width_;
  if (b.output_values.size() < values) b.output_values.resize(values);
  if (b.output_exported.size() < size_t{warps} * kFragmentExportSlots)
    b.output_exported.resize(size_t{warps} * kFragmentExportSlots);
  for (size_t g = 0; g < warps; ++g) std::fill_n(&b.output_exported[g * kFragmentExportSlots], merged_slots_, 0);
  b.output_killed.assign(warps, 0);
}

namespace {

// One warp's outputs in a batch (FragmentWarpIO's layout), read as the merge reads them.
struct WarpOutputs {
  const uint32_t* values;    // the warp's first row
  const uint64_t* exported;  // the warp's first slot
  uint32_t width;
  // Slot s of lane l: what the lane exported, else 0.
  float value(uint32_t s, uint32_t l) const {
    return (exported[s] >> l & 1) ? std::bit_cast<float>(values[s * width + l]) : 0.0f;
  }
};

}  // namespace

void FragmentProgramStage::merge_batch(Batch& b) {
  if (merger_.plain_color_only()) {
    merge_plain(b);
    return;
  }
  const uint32_t quads_per_warp = width_ / 4;
  // More colour targets read slots 9.. of the lane, gathered here from their rows.
  std::array<float, kFragmentExportSlots - kFragmentTarget1Slot> more{};
  const bool more_targets = merger_.more_target_count() != 0;
  for (size_t k = 0; k < b.quads.size(); ++k) {
    const QuadRecord& r = b.quads[k];
    const size_t g = k / quads_per_warp;
    const WarpOutputs out{&b.output_values[g * kFragmentExportSlots * width_], &b.output_exported[g * kFragmentExportSlots],
                          width_};
    const bool front_facing_k = b.front_facing[r.primitive];
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t l = 4 * uint32_t(k % quads_per_warp) + i;
      if (!(r.quad.coverage >> i & 1)) continue;  // helper lanes write nothing
      if (b.output_killed[g] >> l & 1) continue;
      Fragment f;
      f.x = r.quad.x + int32_t(i & 1);
      f.y = r.quad.y + int32_t(i >> 1);
      const bool exported_depth = (out.exported[8] >> l & 1) != 0;
      f.depth = exported_depth ? out.value(8, l) : r.depth[i];
      // An exported depth is the fragment's, the same at every sample.
      f.depth_dx = exported_depth ? 0.0f : r.depth_slopes[0];
      f.depth_dy = exported_depth ? 0.0f : r.depth_slopes[1];
      f.samples = r.quad.samples[i];
      f.front_facing = front_facing_k;
      f.color = {out.value(0, l), out.value(1, l), out.value(2, l), out.value(3, l)};
      f.color1 = {out.value(4, l), out.value(5, l), out.value(6, l), out.value(7, l)};
      if (more_targets) {
        for (uint32_t s = kFragmentTarget1Slot; s < kFragmentExportSlots; ++s) more[s - kFragmentTarget1Slot] = out.value(s, l);
      }
      f.more_colors = more.data();
      merger_.process(f);
    }
  }
}

void FragmentProgramStage::merge_plain(Batch& b) {
  // Neither depth, facing nor samples matter to such a merge: only the covered, living lanes' colour.
  const size_t quads_per_warp = width_ / 4;
  for (size_t first = 0, g = 0; first < b.quads.size(); first += quads_per_warp, ++g)
    merge_plain_warp(b, g, &b.quads[first], std::min(quads_per_warp, b.quads.size() - first));
}

void FragmentProgramStage::merge_plain_warp(Batch& b, size_t g, const QuadRecord* quads, size_t count) {
  uint64_t merged = 0;  // covered lanes that v_kill did not end
  for (size_t q = 0; q < count; ++q) merged |= uint64_t{quads[q].quad.coverage & 0xFu} << (4 * q);
  merged &= ~b.output_killed[g];
  if (merged == 0) return;
  merger_.count_plain(uint64_t(std::popcount(merged)));
  // Colour 0's rows; a component a lane did not export reads 0 (written here: nothing reads the
  // values after the merge).
  const uint32_t* rows[4];
  // Whether every lane, merged or not, has one colour (each lane's bits equal to the next lane's: one
  // memcmp per row): a flat fill's warps do, and then a quad's pixels are two 8-byte stores.
  bool one_colour = true;
  for (uint32_t c = 0; c < 4; ++c) {
    uint32_t* row = &b.output_values[(g * kFragmentExportSlots + c) * width_];
    for (uint64_t m = merged & ~b.output_exported[g * kFragmentExportSlots + c]; m != 0; m &= m - 1)
      row[std::countr_zero(m)] = 0;
    rows[c] = row;
    one_colour = one_colour && std::memcmp(row, row + 1, sizeof(uint32_t) * (width_ - 1)) == 0;
  }
  const auto first = uint32_t(std::countr_zero(merged));
  auto color_of = [&](uint32_t l) {
    return Color{std::bit_cast<float>(rows[0][l]), std::bit_cast<float>(rows[1][l]), std::bit_cast<float>(rows[2][l]),
                 std::bit_cast<float>(rows[3][l])};
  };
  const QuadRecord& q0 = quads[first / 4];
  const uint32_t one = one_colour ? merger_.plain_bytes(q0.quad.x + int32_t(first & 1), q0.quad.y + int32_t(first >> 1 & 1),
                                                          color_of(first))
                                    : 0;
  for (size_t q = 0; q < count; ++q) {
    const uint32_t lanes = merged >> (4 * q) & 0xFu;
    const Quad& quad = quads[q].quad;
    if (one_colour && lanes == 0xFu) {
      const uint64_t two = uint64_t{one} * 0x100000001u;  // the pixel's bytes twice: a row of the quad
      std::memcpy(merger_.plain_pixel(quad.x, quad.y), &two, 8);
      std::memcpy(merger_.plain_pixel(quad.x, quad.y + 1), &two, 8);
      continue;
    }
    for (uint32_t i = 0; i < 4; ++i) {
      if (!(lanes >> i & 1)) continue;
      const int32_t x = quad.x + int32_t(i & 1), y = quad.y + int32_t(i >> 1);
      const uint32_t bytes = one_colour ? one : merger_.plain_bytes(x, y, color_of(uint32_t(4 * q + i)));
      std::memcpy(merger_.plain_pixel(x, y), &bytes, 4);
    }
  }
}

}  // namespace gsgpu::graphics
