#include "tests/gsgpu/graphics_golden/gsgpu_render.h"
#include "tests/gsgpu/graphics_golden/texture_program.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/emu/device.h"
#include "gsgpu/emu/graphics/render_target.h"
#include "gsgpu/emu/packets.h"
#include "gsgpu/isa/assembler.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::golden {
namespace {

namespace blk = hw::blk;
using graphics::ColorFormat;
using graphics::DepthFormat;

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }
uint32_t lo(uint64_t va) { return uint32_t(va); }
uint32_t hi(uint64_t va) { return uint32_t(va >> 32); }

ColorFormat color_format(uint32_t vk) {
  switch (vk) {
    case kR8G8B8A8Srgb:
      return ColorFormat::kR8G8B8A8Srgb;
    case kB8G8R8A8Unorm:
      return ColorFormat::kB8G8R8A8Unorm;
    case kB8G8R8A8Srgb:
      return ColorFormat::kB8G8R8A8Srgb;
    case kR32G32B32A32Sfloat:
      return ColorFormat::kR32G32B32A32Sfloat;
    default:
      return ColorFormat::kR8G8B8A8Unorm;
  }
}

DepthFormat depth_format(uint32_t vk) {
  return vk == kD24UnormS8Uint ? DepthFormat::kD24UnormS8Uint : DepthFormat::kD32Sfloat;
}

// A vertex program that copies the three attributes (position, colour, second colour) to the
// position and varyings 0..7, as PassThroughVertexStage does; for point lists it also exports the
// draw's point size (slot 68), and PIPE_STATE's is then left 0, so the frame shows that the export
// is what sizes the points.
std::string pass_through_vertex_program(const Draw& d) {
  std::string s;
  for (int r = 0; r < 12; ++r) s += "v_export_vertex_f32 v" + std::to_string(r) + ", " + std::to_string(r) + "\n";
  if (d.topology == kPointList) s += "v_export_vertex_f32 " + std::to_string(bits(d.point_size)) + ", 68\n";
  return s + "s_end\n";
}

// The fragment program that computes the draw's stand-in: the constant colours as literal words, or
// varyings 0..7 interpolated as the shading asks.
std::string fragment_program(const Draw& d) {
  std::string s;
  if (d.shading == FragmentShading::kConstant) {
    for (int c = 0; c < 8; ++c) {
      const float v = c < 4 ? d.constant[c] : d.constant1[c - 4];
      s += "v_export_f32 " + std::to_string(bits(v)) + ", " + std::to_string(c) + "\n";
    }
    return s + "s_end\n";
  }
  const char* mode = d.shading == FragmentShading::kSmooth ? "persp"
                     : d.shading == FragmentShading::kNoPerspective ? "linear"
                                                                      : "flat";
  for (int k = 0; k < 8; ++k) {
    s += std::string("v_interp_") + mode + "_f32 v" + std::to_string(k) + ", " + std::to_string(k) + "\n";
    s += "v_export_f32 v" + std::to_string(k) + ", " + std::to_string(k) + "\n";
  }
  return s + "s_end\n";
}

struct ProgramCode {
  uint64_t va = 0;
  uint32_t size = 0;
};

// The device, its ring and the render targets of one scene.
class GsgpuScene {
 public:
  GsgpuScene(GsgpuShaders shaders, graphics::DrawMode mode) : shaders_(shaders), mode_(mode) {}

  bool init(const Scene& scene, std::string* error) {
    scene_ = &scene;
    DeviceConfig config;
    config.shader_cores = 1;
    config.warp_width = 8;
    config.vram_size = uint64_t{64} << 20;
    config.va_size = uint64_t{256} << 20;
    config.cp_mode = CpMode::kManual;
    config.draw_mode = mode_;
    device_ = Device::create(config, nullptr, error);
    if (!device_) return false;
    color_pitch_ = scene.width * color_bytes_per_pixel(scene.color_format);
    if (!(ring_va_ = buffer(4096, error)) || !(state_va_ = buffer(4096, error)) ||
        !(color_va_ = buffer(uint64_t{color_pitch_} * scene.height, error))) {
      return false;
    }
    if (scene.depth_format != kFormatNone && !(depth_va_ = buffer(uint64_t{scene.width} * 4 * scene.height, error))) {
      return false;
    }
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
    return clear(error);
  }

  bool draw(const Draw& d, std::string* error) {
    const uint64_t vertex_bytes = std::max<uint64_t>(d.vertices.size() * sizeof(Vertex), 16);
    const uint64_t vertices_va = buffer(vertex_bytes, error);
    if (!vertices_va || !write(vertices_va, d.vertices.data(), d.vertices.size() * sizeof(Vertex), error)) return false;
    uint64_t index_va = 0, index_bytes = 0;
    if (!d.indices.empty()) {
      std::vector<uint8_t> packed;
      for (uint32_t i : d.indices) {
        const uint8_t* p = reinterpret_cast<const uint8_t*>(&i);
        packed.insert(packed.end(), p, p + (d.index_u16 ? 2 : 4));
      }
      index_bytes = packed.size();
      if (!(index_va = buffer(index_bytes, error)) || !write(index_va, packed.data(), index_bytes, error)) return false;
    }
    std::vector<uint32_t> info = draw_info(d, index_va, index_bytes);
    std::vector<uint32_t> pipe = pipe_state(d);
    std::vector<uint32_t> shader = shader_state(d);
    uint32_t attribute_count = 3;
    if (d.texture) {
      if (!textured_state(d, &shader, error)) return false;
    } else if (!d.vertex_spirv.empty()) {
      if (!compiled_state(d, &shader, &attribute_count, error)) return false;
    } else if (shaders_ == GsgpuShaders::kPrograms) {
      ProgramCode vertex, fragment;
      if (!upload_program(pass_through_vertex_program(d), &vertex, error) ||
          !upload_program(fragment_program(d), &fragment, error)) {
        return false;
      }
      program_state(vertex, fragment, d.shading == FragmentShading::kConstant ? 0 : 8, &shader);
    }
    std::vector<uint32_t> binding(blk::VERTEX_BINDING::SIZE_DWORDS, 0);
    binding[blk::VERTEX_BINDING::VA_LO] = lo(vertices_va);
    binding[blk::VERTEX_BINDING::VA_HI] = hi(vertices_va);
    binding[blk::VERTEX_BINDING::SIZE_LO] = uint32_t(vertex_bytes);
    binding[blk::VERTEX_BINDING::SIZE_HI] = uint32_t(vertex_bytes >> 32);
    binding[blk::VERTEX_BINDING::STRIDE] = sizeof(Vertex);
    binding[blk::VERTEX_BINDING::DIVISOR] = 1;
    info[blk::DRAW_INFO::COUNTS] = hw::put_field(1, blk::DRAW_INFO::COUNTS_BINDING_COUNT_MASK, blk::DRAW_INFO::COUNTS_BINDING_COUNT_SHIFT) |
                                   hw::put_field(attribute_count, blk::DRAW_INFO::COUNTS_ATTRIBUTE_COUNT_MASK,
                                                 blk::DRAW_INFO::COUNTS_ATTRIBUTE_COUNT_SHIFT);
    std::vector<uint32_t> attributes(3 * blk::VERTEX_ATTRIBUTE::SIZE_DWORDS, 0);
    for (uint32_t a = 0; a < 3; ++a) {
      attributes[a * blk::VERTEX_ATTRIBUTE::SIZE_DWORDS + blk::VERTEX_ATTRIBUTE::FORMAT] = kR32G32B32A32Sfloat;
      attributes[a * blk::VERTEX_ATTRIBUTE::SIZE_DWORDS + blk::VERTEX_ATTRIBUTE::OFFSET] = a * 16;
    }
    // DRAW_INFO at +0, PIPE_STATE at +256, SHADER_STATE at +512, the binding at +768, attributes at +832.
    info[blk::DRAW_INFO::BINDINGS_VA_LO] = lo(state_va_ + 768);
    info[blk::DRAW_INFO::BINDINGS_VA_HI] = hi(state_va_ + 768);
    info[blk::DRAW_INFO::ATTRIBUTES_VA_LO] = lo(state_va_ + 832);
    info[blk::DRAW_INFO::ATTRIBUTES_VA_HI] = hi(state_va_ + 832);
    if (!write(state_va_, info.data(), info.size() * 4, error) ||
        !write(state_va_ + 256, pipe.data(), pipe.size() * 4, error) ||
        !write(state_va_ + 512, shader.data(), shader.size() * 4, error) ||
        !write(state_va_ + 768, binding.data(), binding.size() * 4, error) ||
        !write(state_va_ + 832, attributes.data(), attributes.size() * 4, error)) {
      return false;
    }
    if (!ring_->write(hw::encode_draw(state_va_, state_va_ + 256, state_va_ + 512), error)) return false;
    ring_->kick();
    device_->run_until_idle();
    if (device_->command_processor().state() != CpState::kIdle) {
      auto fault = device_->command_processor().fault();
      *error = "gsgpu draw faulted: " + (fault ? fault->message : std::string("CP not idle"));
      return false;
    }
    return true;
  }

  bool read_back(Frame* frame, std::string* error) {
    const Scene& s = *scene_;
    frame->width = s.width;
    frame->height = s.height;
    frame->color_format = s.color_format;
    frame->color.resize(uint64_t{color_pitch_} * s.height);
    if (!device_->mmu().read(color_va_, frame->color.data(), frame->color.size())) {
      *error = "reading the colour target back failed";
      return false;
    }
    if (!depth_va_) return true;
    std::vector<uint8_t> raw(uint64_t{s.width} * 4 * s.height);
    if (!device_->mmu().read(depth_va_, raw.data(), raw.size())) {
      *error = "reading the depth target back failed";
      return false;
    }
    graphics::DepthStencilTarget t{raw.data(), s.width, s.height, uint64_t{s.width} * 4, depth_format(s.depth_format)};
    for (uint32_t y = 0; y < s.height; ++y) {
      for (uint32_t x = 0; x < s.width; ++x) {
        frame->depth.push_back(t.load_depth(x, y));
        if (s.depth_format == kD24UnormS8Uint) frame->stencil.push_back(t.load_stencil(x, y));
      }
    }
    return true;
  }

 private:
  uint64_t buffer(uint64_t size, std::string* error) {
    return device_->create_buffer(size, kPermReadWrite, error).value_or(0);
  }

  bool write(uint64_t va, const void* data, uint64_t size, std::string* error) {
    if (size == 0 || device_->mmu().write(va, data, size)) return true;
    *error = "writing GPU memory failed";
    return false;
  }

  // A render pass's clear: the targets' memory written with the clear values in their formats.
  bool clear(std::string* error) {
    const Scene& s = *scene_;
    std::vector<uint8_t> color(uint64_t{color_pitch_} * s.height);
    graphics::ColorTarget ct{color.data(), s.width, s.height, color_pitch_, color_format(s.color_format)};
    for (uint32_t y = 0; y < s.height; ++y)
      for (uint32_t x = 0; x < s.width; ++x) ct.store(x, y, s.clear_color);
    if (!write(color_va_, color.data(), color.size(), error)) return false;
    if (!depth_va_) return true;
    std::vector<uint8_t> depth(uint64_t{s.width} * 4 * s.height);
    graphics::DepthStencilTarget dt{depth.data(), s.width, s.height, uint64_t{s.width} * 4,
                                    depth_format(s.depth_format)};
    for (uint32_t y = 0; y < s.height; ++y) {
      for (uint32_t x = 0; x < s.width; ++x) {
        dt.store_depth(x, y, s.clear_depth);
        dt.store_stencil(x, y, uint8_t(s.clear_stencil));
      }
    }
    return write(depth_va_, depth.data(), depth.size(), error);
  }

  std::vector<uint32_t> draw_info(const Draw& d, uint64_t index_va, uint64_t index_bytes) const {
    namespace D = blk::DRAW_INFO;
    std::vector<uint32_t> w(D::SIZE_DWORDS, 0);
    w[D::FLAGS] = hw::put_field(d.topology, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);
    if (index_va) {
      w[D::FLAGS] |= D::FLAGS_INDEXED_MASK | (d.index_u16 ? 0 : D::FLAGS_INDEX_TYPE_MASK) |
                     (d.primitive_restart ? D::FLAGS_PRIMITIVE_RESTART_MASK : 0);
      w[D::INDEX_VA_LO] = lo(index_va);
      w[D::INDEX_VA_HI] = hi(index_va);
      w[D::INDEX_SIZE] = uint32_t(index_bytes);
    }
    w[D::COUNT] = draw_count(d);
    w[D::INSTANCE_COUNT] = d.instance_count;
    w[D::FIRST_VERTEX] = d.first_vertex;
    w[D::FIRST_INSTANCE] = d.first_instance;
    w[D::FIRST_INDEX] = d.first_index;
    w[D::VERTEX_OFFSET] = uint32_t(d.vertex_offset);
    w[D::COUNTS] = hw::put_field(1, D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                   hw::put_field(3, D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
    return w;
  }

  static uint32_t stencil_ops(const StencilFace& f) {
    namespace P = blk::PIPE_STATE;
    return hw::put_field(f.fail_op, P::STENCIL_FRONT_OPS_FAIL_MASK, P::STENCIL_FRONT_OPS_FAIL_SHIFT) |
           hw::put_field(f.pass_op, P::STENCIL_FRONT_OPS_PASS_MASK, P::STENCIL_FRONT_OPS_PASS_SHIFT) |
           hw::put_field(f.depth_fail_op, P::STENCIL_FRONT_OPS_DEPTH_FAIL_MASK, P::STENCIL_FRONT_OPS_DEPTH_FAIL_SHIFT) |
           hw::put_field(f.compare_op, P::STENCIL_FRONT_OPS_COMPARE_MASK, P::STENCIL_FRONT_OPS_COMPARE_SHIFT);
  }
  static uint32_t stencil_masks(const StencilFace& f) {
    namespace P = blk::PIPE_STATE;
    return hw::put_field(f.compare_mask, P::STENCIL_FRONT_MASKS_COMPARE_MASK_MASK,
                         P::STENCIL_FRONT_MASKS_COMPARE_MASK_SHIFT) |
           hw::put_field(f.write_mask, P::STENCIL_FRONT_MASKS_WRITE_MASK_MASK,
                         P::STENCIL_FRONT_MASKS_WRITE_MASK_SHIFT) |
           hw::put_field(f.reference, P::STENCIL_FRONT_MASKS_REFERENCE_MASK, P::STENCIL_FRONT_MASKS_REFERENCE_SHIFT);
  }

  std::vector<uint32_t> pipe_state(const Draw& d) const {
    namespace P = blk::PIPE_STATE;
    const Scene& s = *scene_;
    std::vector<uint32_t> w(P::SIZE_DWORDS, 0);
    w[P::RASTER] = hw::put_field(d.cull, P::RASTER_CULL_MASK, P::RASTER_CULL_SHIFT) |
                   (d.clockwise ? P::RASTER_FRONT_FACE_MASK : 0) |
                   (d.gsgpu_bounding_box_test ? P::RASTER_BBOX_TEST_MASK : 0) |
                   (d.bresenham_lines ? P::RASTER_LINE_MODE_MASK : 0);
    const bool full_viewport = d.viewport[2] == 0;
    w[P::VIEWPORT_X] = bits(full_viewport ? 0 : d.viewport[0]);
    w[P::VIEWPORT_Y] = bits(full_viewport ? 0 : d.viewport[1]);
    w[P::VIEWPORT_WIDTH] = bits(full_viewport ? float(s.width) : d.viewport[2]);
    w[P::VIEWPORT_HEIGHT] = bits(full_viewport ? float(s.height) : d.viewport[3]);
    w[P::VIEWPORT_MIN_DEPTH] = bits(d.viewport[4]);
    w[P::VIEWPORT_MAX_DEPTH] = bits(d.viewport[5]);
    const bool full_scissor = d.scissor[2] == 0;
    w[P::SCISSOR_X] = uint32_t(full_scissor ? 0 : d.scissor[0]);
    w[P::SCISSOR_Y] = uint32_t(full_scissor ? 0 : d.scissor[1]);
    w[P::SCISSOR_WIDTH] = full_scissor ? s.width : uint32_t(d.scissor[2]);
    w[P::SCISSOR_HEIGHT] = full_scissor ? s.height : uint32_t(d.scissor[3]);
    w[P::TARGET_SIZE] = hw::put_field(s.width, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                        hw::put_field(s.height, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
    w[P::POINT_SIZE] = bits(shaders_ == GsgpuShaders::kPrograms ? 0.0f : d.point_size);
    w[P::COLOR_VA_LO] = lo(color_va_);
    w[P::COLOR_VA_HI] = hi(color_va_);
    w[P::COLOR_PITCH] = color_pitch_;
    w[P::COLOR_FORMAT] = s.color_format;
    if (depth_va_) {
      w[P::DEPTH_VA_LO] = lo(depth_va_);
      w[P::DEPTH_VA_HI] = hi(depth_va_);
      w[P::DEPTH_PITCH] = s.width * 4;
      w[P::DEPTH_FORMAT] = s.depth_format;
    }
    w[P::DEPTH] = (d.depth_test ? P::DEPTH_TEST_MASK : 0) | (d.depth_write ? P::DEPTH_WRITE_MASK : 0) |
                  hw::put_field(d.depth_compare, P::DEPTH_COMPARE_MASK, P::DEPTH_COMPARE_SHIFT);
    w[P::STENCIL] = d.stencil_test ? P::STENCIL_TEST_MASK : 0;
    w[P::STENCIL_FRONT_OPS] = stencil_ops(d.front);
    w[P::STENCIL_FRONT_MASKS] = stencil_masks(d.front);
    w[P::STENCIL_BACK_OPS] = stencil_ops(d.back);
    w[P::STENCIL_BACK_MASKS] = stencil_masks(d.back);
    const BlendState& b = d.blend;
    w[P::BLEND] = (b.enable ? P::BLEND_ENABLE_MASK : 0) |
                  hw::put_field(b.src_color, P::BLEND_SRC_COLOR_MASK, P::BLEND_SRC_COLOR_SHIFT) |
                  hw::put_field(b.dst_color, P::BLEND_DST_COLOR_MASK, P::BLEND_DST_COLOR_SHIFT) |
                  hw::put_field(b.color_op, P::BLEND_COLOR_OP_MASK, P::BLEND_COLOR_OP_SHIFT) |
                  hw::put_field(b.src_alpha, P::BLEND_SRC_ALPHA_MASK, P::BLEND_SRC_ALPHA_SHIFT) |
                  hw::put_field(b.dst_alpha, P::BLEND_DST_ALPHA_MASK, P::BLEND_DST_ALPHA_SHIFT) |
                  hw::put_field(b.alpha_op, P::BLEND_ALPHA_OP_MASK, P::BLEND_ALPHA_OP_SHIFT);
    w[P::OUTPUT] = hw::put_field(d.write_mask, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT) |
                   (d.logic_op_enable ? P::OUTPUT_LOGIC_OP_ENABLE_MASK : 0) |
                   hw::put_field(d.logic_op, P::OUTPUT_LOGIC_OP_MASK, P::OUTPUT_LOGIC_OP_SHIFT);
    w[P::BLEND_CONSTANT_R] = bits(d.blend_constant[0]);
    w[P::BLEND_CONSTANT_G] = bits(d.blend_constant[1]);
    w[P::BLEND_CONSTANT_B] = bits(d.blend_constant[2]);
    w[P::BLEND_CONSTANT_A] = bits(d.blend_constant[3]);
    return w;
  }

  // Compiles the draw's SPIR-V shaders (gsgpu/compiler) into programs and fills SHADER_STATE with them;
  // the vertex program fixes how many attributes the draw binds (CompiledKernel::vertex_attributes).
  bool compiled_state(const Draw& d, std::vector<uint32_t>* shader, uint32_t* attribute_count, std::string* error) {
    compiler::CompiledProgram vertex, fragment;
    std::string why;
    if (!compiler::compile_shader_spirv(d.vertex_spirv, &vertex, &why) ||
        !compiler::compile_shader_spirv(d.fragment_spirv, &fragment, &why)) {
      *error = "compiling the scene's shaders failed: " + why;
      return false;
    }
    const compiler::CompiledKernel& vs = vertex.kernels.at(0);
    const compiler::CompiledKernel& fs = fragment.kernels.at(0);
    ProgramCode vcode, fcode;
    if (!upload_words(vs.code, &vcode, error) || !upload_words(fs.code, &fcode, error)) return false;
    namespace S = blk::SHADER_STATE;
    std::vector<uint32_t>& w = *shader;
    std::fill(w.begin(), w.end(), 0u);
    w[S::VERTEX] = hw::put_field(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT) |
                   hw::put_field(vs.varying_components, S::VERTEX_OUTPUTS_MASK, S::VERTEX_OUTPUTS_SHIFT);
    w[S::VERTEX_CODE_VA_LO] = lo(vcode.va);
    w[S::VERTEX_CODE_VA_HI] = hi(vcode.va);
    w[S::VERTEX_CODE_SIZE] = vcode.size;
    w[S::VERTEX_REGISTERS] = hw::put_field(std::max(vs.vector_registers, 1u), S::VERTEX_REGISTERS_VECTOR_MASK, S::VERTEX_REGISTERS_VECTOR_SHIFT) |
                             hw::put_field(vs.scalar_registers, S::VERTEX_REGISTERS_SCALAR_MASK, S::VERTEX_REGISTERS_SCALAR_SHIFT);
    w[S::FRAGMENT] = hw::put_field(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                     hw::put_field(fs.varying_components, S::FRAGMENT_VARYINGS_MASK, S::FRAGMENT_VARYINGS_SHIFT) |
                     hw::put_field(fs.reads_frag_coord ? 0 : 1, S::FRAGMENT_NO_FRAGCOORD_MASK, S::FRAGMENT_NO_FRAGCOORD_SHIFT) |
                     hw::put_field(fs.reads_front_facing ? 0 : 1, S::FRAGMENT_NO_FACING_MASK, S::FRAGMENT_NO_FACING_SHIFT);
    w[S::FRAGMENT_CODE_VA_LO] = lo(fcode.va);
    w[S::FRAGMENT_CODE_VA_HI] = hi(fcode.va);
    w[S::FRAGMENT_CODE_SIZE] = fcode.size;
    w[S::REGISTERS] = hw::put_field(std::max(fs.vector_registers, 1u), S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT) |
                      hw::put_field(fs.scalar_registers, S::REGISTERS_SCALAR_MASK, S::REGISTERS_SCALAR_SHIFT);
    *attribute_count = vs.vertex_attributes;
    // The constant buffer both programs read: push constants in bytes 0..127, then the uniform
    // buffer's VA as the descriptor table entry of set 0, binding 0 (bytes 128..135).
    std::vector<uint32_t> constants = d.push_constants;
    if (!d.uniform_buffer.empty()) {
      ProgramCode ubo;
      if (!upload_words(d.uniform_buffer, &ubo, error)) return false;
      constants.resize(34, 0);
      constants[32] = lo(ubo.va);
      constants[33] = hi(ubo.va);
    }
    if (!constants.empty()) {
      ProgramCode buffer;
      if (!upload_words(constants, &buffer, error)) return false;
      w[S::CONSTANTS_VA_LO] = lo(buffer.va);
      w[S::CONSTANTS_VA_HI] = hi(buffer.va);
      w[S::CONSTANTS_SIZE] = buffer.size;
    }
    if (std::max(vs.constant_buffer_bytes, fs.constant_buffer_bytes) > constants.size() * 4) {
      *error = "the shaders read more of the constant buffer than the draw gives";
      return false;
    }
    return true;
  }

  bool upload_words(const std::vector<uint32_t>& words, ProgramCode* code, std::string* error) {
    code->size = uint32_t(words.size() * 4);
    code->va = device_->create_buffer(code->size, kPermAll, error).value_or(0);
    return code->va && write(code->va, words.data(), code->size, error);
  }

  // A textured draw (texture_program.h): the image in GPU memory, the pass-through vertex program and
  // the fragment program that samples it, on both the stand-in and the program renders.
  bool textured_state(const Draw& d, std::vector<uint32_t>* shader, std::string* error) {
    std::vector<uint32_t> desc_words;
    std::vector<uint8_t> texels;
    if (!texture_image(*d.texture, &desc_words, &texels, error)) return false;
    const uint64_t texels_va = buffer(std::max<uint64_t>(texels.size(), 16), error);
    const uint64_t desc_va = buffer(desc_words.size() * 4, error);  // buffers are page-aligned
    if (!texels_va || !desc_va || !write(texels_va, texels.data(), texels.size(), error)) return false;
    set_image_base(&desc_words, texels_va);
    if (!write(desc_va, desc_words.data(), desc_words.size() * 4, error)) return false;
    ProgramCode vertex, fragment;
    const std::string program = textured_fragment_program(desc_va, sampler_state_word(d.sampler), d.sampler.lod_bias);
    if (!upload_program(pass_through_vertex_program(d), &vertex, error) ||
        !upload_program(program, &fragment, error)) {
      return false;
    }
    program_state(vertex, fragment, 8, shader);
    namespace S = blk::SHADER_STATE;
    (*shader)[S::REGISTERS] =
        hw::put_field(kTexturedProgramVectorRegisters, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
    return true;
  }

  // Assembles a program into its own executable buffer.
  bool upload_program(const std::string& source, ProgramCode* code, std::string* error) {
    std::vector<uint32_t> words;
    if (!isa::assemble(source, &words, error)) return false;
    code->size = uint32_t(words.size() * 4);
    code->va = device_->create_buffer(code->size, kPermAll, error).value_or(0);
    return code->va && write(code->va, words.data(), code->size, error);
  }

  // SHADER_STATE with both stages as programs (the stand-ins' fields cleared).
  static void program_state(const ProgramCode& vertex, const ProgramCode& fragment, uint32_t varyings,
                            std::vector<uint32_t>* shader) {
    namespace S = blk::SHADER_STATE;
    std::vector<uint32_t>& w = *shader;
    std::fill(w.begin(), w.end(), 0u);
    w[S::VERTEX] = hw::put_field(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT) |
                   hw::put_field(8, S::VERTEX_OUTPUTS_MASK, S::VERTEX_OUTPUTS_SHIFT);
    w[S::VERTEX_CODE_VA_LO] = lo(vertex.va);
    w[S::VERTEX_CODE_VA_HI] = hi(vertex.va);
    w[S::VERTEX_CODE_SIZE] = vertex.size;
    w[S::VERTEX_REGISTERS] = hw::put_field(12, S::VERTEX_REGISTERS_VECTOR_MASK, S::VERTEX_REGISTERS_VECTOR_SHIFT);
    w[S::FRAGMENT] = hw::put_field(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                     hw::put_field(varyings, S::FRAGMENT_VARYINGS_MASK, S::FRAGMENT_VARYINGS_SHIFT);
    w[S::FRAGMENT_CODE_VA_LO] = lo(fragment.va);
    w[S::FRAGMENT_CODE_VA_HI] = hi(fragment.va);
    w[S::FRAGMENT_CODE_SIZE] = fragment.size;
    w[S::REGISTERS] = hw::put_field(8, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
  }

  static std::vector<uint32_t> shader_state(const Draw& d) {
    namespace S = blk::SHADER_STATE;
    std::vector<uint32_t> w(S::SIZE_DWORDS, 0);
    uint32_t mode = 0, interpolation = 0;
    switch (d.shading) {
      case FragmentShading::kConstant:
        break;
      case FragmentShading::kSmooth:
        mode = 1;
        break;
      case FragmentShading::kNoPerspective:
        mode = 1, interpolation = 1;
        break;
      case FragmentShading::kFlat:
        mode = 1, interpolation = 2;
        break;
    }
    w[S::FRAGMENT] = hw::put_field(mode, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                     hw::put_field(interpolation, S::FRAGMENT_INTERPOLATION_MASK, S::FRAGMENT_INTERPOLATION_SHIFT);
    const uint32_t first[] = {S::CONSTANT_R, S::CONSTANT_G, S::CONSTANT_B, S::CONSTANT_A};
    const uint32_t second[] = {S::CONSTANT1_R, S::CONSTANT1_G, S::CONSTANT1_B, S::CONSTANT1_A};
    for (int c = 0; c < 4; ++c) {
      w[first[c]] = bits(d.constant[c]);
      w[second[c]] = bits(d.constant1[c]);
    }
    return w;
  }

  GsgpuShaders shaders_;
  const Scene* scene_ = nullptr;
  std::unique_ptr<Device> device_;
  std::unique_ptr<RingWriter> ring_;
  uint64_t ring_va_ = 0, state_va_ = 0, color_va_ = 0, depth_va_ = 0;
  uint32_t color_pitch_ = 0;
  graphics::DrawMode mode_;
};

}  // namespace

std::optional<Frame> render_on_gsgpu(const Scene& scene, std::string* error, GsgpuShaders shaders,
                                     graphics::DrawMode mode) {
  GsgpuScene gs(shaders, mode);
  if (!gs.init(scene, error)) return std::nullopt;
  for (const Draw& d : scene.draws) {
    if (!gs.draw(d, error)) return std::nullopt;
  }
  Frame frame;
  if (!gs.read_back(&frame, error)) return std::nullopt;
  return frame;
}

}  // namespace gsgpu::golden
