// Running a recorded draw at vkQueueSubmit (docs/vulkan-driver.md "Draws"): the state blocks
// DRAW_INFO, PIPE_STATE, SHADER_STATE, the vertex binding / attribute records and the constant
// buffer are written into the command stream's arena (mapped read-only in the device's VA space)
// and a DRAW packet naming them joins the stream, which submits the run of device commands at once
// and waits for it before the next host command (transfers run on the host, so a copy after the
// draw must see its pixels; command_stream.h). Everything the device would
// fault on is checked first, overflow-safe, and skipped with a log line: a buffer missing or
// unbound, vertices or indices past their buffers (indices are read on the host to find the
// highest vertex), vertex or instance indices past 32 bits, a draw larger than kMaxDrawVertices, a
// viewport the device refuses.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::vk {
namespace {

namespace blk = hw::blk;
// Vertices times instances of one draw: the geometry engine's limit (kDefaultVertexLimit, 2^24; a
// larger draw faults on the device).
constexpr uint64_t kMaxDrawVertices = uint64_t{1} << 24;
// Where each block lies in the draw's state BO (64-byte aligned blocks, a 16-byte aligned
// constant buffer, then a texture record per table slot at most, 64-byte aligned, then the
// COLOR_TARGET records of colour attachments 1..7, 32-byte aligned).
constexpr uint64_t kDrawInfoAt = 0, kPipeStateAt = 256, kShaderStateAt = 512, kBindingsAt = 768,
                   kAttributesAt = 1536, kConstantsAt = 2048, kTexturesAt = 4096;

// Where the COLOR_TARGET records of colour attachments 1..7 go: after the texture records.
uint64_t color_targets_at(const DrawCommand& d) { return kTexturesAt + d.textures.size() * kTextureRecordBytes; }

// Where XFB_STATE goes (64-byte aligned, after the COLOR_TARGET records), followed by its four
// XFB_BUFFER records and the XFB_OUTPUT words.
uint64_t xfb_at(const DrawCommand& d) {
  return (color_targets_at(d) + uint64_t{kMaxColorAttachments - 1} * kColorTargetDwords * 4 + 63) & ~uint64_t{63};
}
constexpr uint64_t kXfbOutputsAt = (blk::XFB_STATE::SIZE_DWORDS + kMaxXfbBuffers * blk::XFB_BUFFER::SIZE_DWORDS) * 4;

// The bytes of a draw's state: the fixed blocks, its texture records, its COLOR_TARGET records and
// its transform-feedback blocks.
uint64_t state_bytes(const DrawCommand& d) {
  return xfb_at(d) + (d.xfb ? kXfbOutputsAt + d.pipeline->xfb_outputs.size() * 4 : 0);
}

uint32_t lo(uint64_t v) { return uint32_t(v); }
uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }
uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }
uint32_t put(uint32_t value, uint32_t mask, uint32_t shift) { return hw::put_field(value, mask, shift); }

// The highest vertex index an indexed draw reads, from the index buffer's bytes; false with *why.
bool highest_indexed_vertex(const DrawCommand& d, uint64_t* highest, std::string* why) {
  const Buffer* b = d.index_buffer;
  if (b == nullptr || b->memory == nullptr) return *why = "no index buffer bound (or its memory was freed)", false;
  const uint64_t size = d.index_u32 ? 4 : 2;
  const auto start = gsvirt::checked_add<uint64_t>(d.index_offset, uint64_t{d.first_index} * size);
  if (!start || !gsvirt::range_within(*start, uint64_t{d.count} * size, b->size)) {
    return *why = "indices past the index buffer", false;
  }
  const uint8_t* bytes = b->memory->map + b->memory_offset + *start;
  const uint32_t restart = d.index_u32 ? UINT32_MAX : UINT16_MAX;
  int64_t top = -1;
  for (uint32_t i = 0; i < d.count; ++i) {
    uint32_t index = 0;
    std::memcpy(&index, bytes + i * size, size);
    if (d.pipeline->primitive_restart && index == restart) continue;
    const int64_t v = int64_t{index} + d.vertex_offset;
    if (v < 0 || v > int64_t{UINT32_MAX}) return *why = "index + vertexOffset outside 0 .. 2^32 - 1", false;
    top = std::max(top, v);
  }
  *highest = top < 0 ? 0 : uint64_t(top);
  return true;
}

// Every attribute's last element inside its vertex buffer; false with *why.
bool check_vertex_buffers(const DrawCommand& d, std::string* why) {
  uint64_t last_vertex = 0;
  if (d.indexed) {
    if (!highest_indexed_vertex(d, &last_vertex, why)) return false;
  } else {
    last_vertex = uint64_t{d.first_vertex} + d.count - 1;
  }
  const uint64_t last_instance = uint64_t{d.first_instance} + d.instance_count - 1;
  for (const PipelineVertexAttribute& a : d.pipeline->attributes) {
    const PipelineVertexBinding& pb = d.pipeline->bindings[a.binding];
    const DrawVertexBuffer& vb = d.vertex_buffers[pb.binding];
    if (vb.buffer == nullptr || vb.buffer->memory == nullptr) {
      return *why = "no vertex buffer bound at binding " + std::to_string(pb.binding), false;
    }
    const uint64_t element = pb.per_instance ? last_instance : last_vertex;
    auto end = gsvirt::checked_mul<uint64_t>(element, pb.stride);
    if (end) end = gsvirt::checked_add<uint64_t>(*end, uint64_t{a.offset} + vertex_format_bytes(VkFormat(a.format)));
    if (!end || vb.offset > vb.buffer->size || *end > vb.buffer->size - vb.offset) {
      return *why = "vertex buffer at binding " + std::to_string(pb.binding) + " too short for element " +
                    std::to_string(element),
             false;
    }
  }
  return true;
}

// Vulkan's rules for a viewport, which the command processor checks too (PIPE_STATE VIEWPORT): finite,
// a positive width and a non-zero height, inside viewportBoundsRange [-32768, 32767] (the device's
// bound is 32768), depths in [0, 1].
bool viewport_valid(const VkViewport& v, std::string* why) {
  for (float f : {v.x, v.y, v.width, v.height, v.minDepth, v.maxDepth}) {
    if (!std::isfinite(f)) return *why = "a viewport that is not finite", false;
  }
  if (!(v.width > 0) || v.height == 0) return *why = "an empty viewport", false;
  const double y_lo = std::min<double>(v.y, double{v.y} + v.height), y_hi = std::max<double>(v.y, double{v.y} + v.height);
  if (v.x < -32768.0f || double{v.x} + v.width > 32768.0 || y_lo < -32768.0 || y_hi > 32768.0) {
    return *why = "a viewport outside [-32768, 32768]", false;
  }
  if (v.minDepth < 0 || v.minDepth > 1 || v.maxDepth < 0 || v.maxDepth > 1) {
    return *why = "viewport depths outside [0, 1]", false;
  }
  return true;
}

// What a draw needs whatever its counts: attachments with memory, a viewport and scissor the
// device takes, vertex (and index) buffers bound. An indirect draw is checked only this far on the
// host; the device checks its counts when it reads them (DRAW_INDIRECT).
bool check_draw_state(const DrawCommand& d, std::string* why) {
  for (const ImageView* v : d.colors) {
    if (v != nullptr && v->image->memory == nullptr) return *why = "an attachment's memory was freed", false;
  }
  if (d.depth != nullptr && d.depth->image->memory == nullptr) return *why = "an attachment's memory was freed", false;
  if (!viewport_valid(d.viewport, why)) return false;
  if (d.scissor.offset.x < 0 || d.scissor.offset.y < 0) return *why = "a negative scissor offset", false;
  if (d.indexed && (d.index_buffer == nullptr || d.index_buffer->memory == nullptr ||
                    d.index_offset > d.index_buffer->size)) {
    return *why = "no index buffer bound (or its memory was freed)", false;
  }
  for (const PipelineVertexAttribute& a : d.pipeline->attributes) {
    const DrawVertexBuffer& vb = d.vertex_buffers[d.pipeline->bindings[a.binding].binding];
    if (vb.buffer == nullptr || vb.buffer->memory == nullptr) {
      return *why = "no vertex buffer bound at binding " + std::to_string(d.pipeline->bindings[a.binding].binding),
             false;
    }
  }
  return true;
}

// The range of transform-feedback buffer `b` the device may write: its bound offset to the bound
// size (VK_WHOLE_SIZE: the buffer's end), at most 2^32 - 4 bytes (XFB_BUFFER SIZE); false with *why.
bool xfb_range(const XfbBinding& x, uint32_t b, uint64_t* va, uint32_t* size, std::string* why) {
  if (x.buffer == nullptr || x.buffer->memory == nullptr)
    return *why = "transform feedback buffer " + std::to_string(b) + " has no memory", false;
  if (x.offset > x.buffer->size) return *why = "transform feedback buffer " + std::to_string(b) + " offset past its end", false;
  const uint64_t room = x.buffer->size - x.offset;
  *va = x.buffer->va + x.offset;
  *size = uint32_t(std::min<uint64_t>(x.size == VK_WHOLE_SIZE ? room : std::min(x.size, room), UINT32_MAX & ~3u));
  return true;
}

bool check_xfb(const DrawCommand& d, std::string* why) {
  if (!d.xfb) return true;
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    uint64_t va = 0;
    uint32_t size = 0;
    if (d.pipeline->xfb_strides[b] != 0 && !xfb_range(d.xfb_buffers[b], b, &va, &size, why)) return false;
  }
  return true;
}

bool check_draw(const DrawCommand& d, std::string* why) {
  if (uint64_t{d.count} * d.instance_count > kMaxDrawVertices) {
    return *why = std::to_string(d.count) + " x " + std::to_string(d.instance_count) + " vertices, over 2^24 (the device's limit per draw)", false;
  }
  // The device numbers vertices and instances in 32 bits (gl_VertexIndex / gl_InstanceIndex).
  if (uint64_t{d.first_instance} + d.instance_count - 1 > UINT32_MAX) return *why = "instance indices past 2^32 - 1", false;
  if (!d.indexed && uint64_t{d.first_vertex} + d.count - 1 > UINT32_MAX) return *why = "vertex indices past 2^32 - 1", false;
  return check_draw_state(d, why) && check_vertex_buffers(d, why) && check_xfb(d, why);
}

void write_draw_info(const DrawCommand& d, uint64_t state_va, uint32_t* w) {
  namespace D = blk::DRAW_INFO;
  const GraphicsPipeline& p = *d.pipeline;
  w[D::FLAGS] = put(p.topology, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);
  if (d.indexed) {
    const Buffer* b = d.index_buffer;
    w[D::FLAGS] |= D::FLAGS_INDEXED_MASK | (d.index_u32 ? D::FLAGS_INDEX_TYPE_MASK : 0) |
                   (p.primitive_restart ? D::FLAGS_PRIMITIVE_RESTART_MASK : 0);
    w[D::INDEX_VA_LO] = lo(b->va + d.index_offset);
    w[D::INDEX_VA_HI] = hi(b->va + d.index_offset);
    w[D::INDEX_SIZE] = uint32_t(std::min<uint64_t>(b->size - d.index_offset, UINT32_MAX & ~3u));
  }
  w[D::COUNT] = d.count;
  w[D::INSTANCE_COUNT] = d.instance_count;
  w[D::FIRST_VERTEX] = d.first_vertex;
  w[D::FIRST_INSTANCE] = d.first_instance;
  w[D::FIRST_INDEX] = d.first_index;
  w[D::VERTEX_OFFSET] = uint32_t(d.vertex_offset);
  w[D::BINDINGS_VA_LO] = lo(state_va + kBindingsAt);
  w[D::BINDINGS_VA_HI] = hi(state_va + kBindingsAt);
  w[D::ATTRIBUTES_VA_LO] = lo(state_va + kAttributesAt);
  w[D::ATTRIBUTES_VA_HI] = hi(state_va + kAttributesAt);
  w[D::COUNTS] = put(uint32_t(p.bindings.size()), D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                 put(uint32_t(p.attributes.size()), D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
}

void write_vertex_input(const DrawCommand& d, uint8_t* state) {
  const GraphicsPipeline& p = *d.pipeline;
  for (size_t i = 0; i < p.bindings.size(); ++i) {
    namespace B = blk::VERTEX_BINDING;
    uint32_t w[B::SIZE_DWORDS] = {};
    const DrawVertexBuffer& vb = d.vertex_buffers[p.bindings[i].binding];
    if (vb.buffer != nullptr && vb.buffer->memory != nullptr && vb.offset <= vb.buffer->size) {
      const uint64_t size = vb.buffer->size - vb.offset;
      w[B::VA_LO] = lo(vb.buffer->va + vb.offset);
      w[B::VA_HI] = hi(vb.buffer->va + vb.offset);
      w[B::SIZE_LO] = lo(size);
      w[B::SIZE_HI] = hi(size);
    }
    w[B::STRIDE] = p.bindings[i].stride;
    w[B::RATE] = p.bindings[i].per_instance ? B::RATE_PER_INSTANCE_MASK : 0;
    w[B::DIVISOR] = 1;
    std::memcpy(state + kBindingsAt + i * sizeof w, w, sizeof w);
  }
  for (size_t i = 0; i < p.attributes.size(); ++i) {
    namespace A = blk::VERTEX_ATTRIBUTE;
    uint32_t w[A::SIZE_DWORDS] = {};
    w[A::BINDING] = p.attributes[i].binding;
    w[A::FORMAT] = p.attributes[i].format;
    w[A::OFFSET] = p.attributes[i].offset;
    std::memcpy(state + kAttributesAt + i * sizeof w, w, sizeof w);
  }
}

// Colour attachments 1..: one COLOR_TARGET record each at color_targets_at(d) (blend state and write
// mask from the pipeline; an attachment the pipeline has no state for is not written).
void write_more_color_targets(const DrawCommand& d, uint64_t state_va, uint8_t* state, uint32_t* pipe) {
  namespace P = blk::PIPE_STATE;
  namespace C = blk::COLOR_TARGET;
  const GraphicsPipeline& p = *d.pipeline;
  uint32_t count = 0;  // records up to the last attachment present
  for (uint32_t i = 1; i < kMaxColorAttachments; ++i) {
    if (d.colors[i] != nullptr) count = i;
  }
  if (count == 0) return;
  for (uint32_t i = 1; i <= count; ++i) {
    uint32_t w[C::SIZE_DWORDS] = {};
    const ImageView* v = d.colors[i];
    if (v != nullptr && i - 1 < p.more_color_count) {
      w[C::VA_LO] = lo(target_layer_va(*v, d.layer));
      w[C::VA_HI] = hi(target_layer_va(*v, d.layer));
      w[C::PITCH] = uint32_t(v->target_pitch);
      w[C::FORMAT] = v->format->format;
      w[C::BLEND] = p.more_blend[i - 1];
      w[C::WRITE_MASK] = p.more_write_mask[i - 1];
    }
    std::memcpy(state + color_targets_at(d) + (i - 1) * sizeof w, w, sizeof w);
  }
  pipe[P::COLOR_TARGETS] = put(count, P::COLOR_TARGETS_COUNT_MASK, P::COLOR_TARGETS_COUNT_SHIFT);
  pipe[P::COLOR_TARGETS_VA_LO] = lo(state_va + color_targets_at(d));
  pipe[P::COLOR_TARGETS_VA_HI] = hi(state_va + color_targets_at(d));
}

void write_pipe_state(const DrawCommand& d, uint32_t* w) {
  namespace P = blk::PIPE_STATE;
  std::copy(d.pipe_state.begin(), d.pipe_state.end(), w);
  w[P::VIEWPORT_X] = bits(d.viewport.x);
  w[P::VIEWPORT_Y] = bits(d.viewport.y);
  w[P::VIEWPORT_WIDTH] = bits(d.viewport.width);
  w[P::VIEWPORT_HEIGHT] = bits(d.viewport.height);
  w[P::VIEWPORT_MIN_DEPTH] = bits(d.viewport.minDepth);
  w[P::VIEWPORT_MAX_DEPTH] = bits(d.viewport.maxDepth);
  w[P::SCISSOR_X] = uint32_t(d.scissor.offset.x);
  w[P::SCISSOR_Y] = uint32_t(d.scissor.offset.y);
  w[P::SCISSOR_WIDTH] = d.scissor.extent.width;
  w[P::SCISSOR_HEIGHT] = d.scissor.extent.height;
  w[P::TARGET_SIZE] = put(d.width, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                      put(d.height, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
  if (const ImageView* color = d.colors[0]; color != nullptr) {
    w[P::COLOR_VA_LO] = lo(target_layer_va(*color, d.layer));
    w[P::COLOR_VA_HI] = hi(target_layer_va(*color, d.layer));
    w[P::COLOR_PITCH] = uint32_t(color->target_pitch);
    w[P::COLOR_FORMAT] = color->format->format;
  } else {
    w[P::OUTPUT] = 0;
  }
  // Samples per pixel from the attachments' images (vkCmdBeginRenderPass checked colour and depth
  // agree), never from the pipeline: the device maps the targets as wide as the images really are. A
  // pipeline of another rasterizationSamples (invalid usage) draws at the attachments' count.
  const ImageView* target = d.depth;
  for (const ImageView* color : d.colors) target = target == nullptr ? color : target;
  const uint32_t samples = target != nullptr ? target->image->layout.shape.samples : 1;
  w[P::MULTISAMPLE] |= put(uint32_t(std::countr_zero(samples)), P::MULTISAMPLE_SAMPLES_LOG2_MASK,
                           P::MULTISAMPLE_SAMPLES_LOG2_SHIFT);
  if (d.depth != nullptr) {
    w[P::DEPTH_VA_LO] = lo(target_layer_va(*d.depth, d.layer));
    w[P::DEPTH_VA_HI] = hi(target_layer_va(*d.depth, d.layer));
    w[P::DEPTH_PITCH] = uint32_t(d.depth->target_pitch);
    w[P::DEPTH_FORMAT] = d.depth->format->format;
    // X8_D24 is D24S8's texel with no stencil aspect: the device renders it as D24S8, and with no
    // stencil attachment the stencil test passes and writes nothing (Vulkan's rule).
    if (d.depth->format->format == VK_FORMAT_X8_D24_UNORM_PACK32) {
      w[P::DEPTH_FORMAT] = VK_FORMAT_D24_UNORM_S8_UINT;
      w[P::STENCIL] = 0;
    }
  } else {  // no attachment: the tests pass and nothing is written (Vulkan's rule)
    w[P::DEPTH] = 0;
    w[P::STENCIL] = 0;
  }
}

// The bound texture records after the constant buffer, each table slot's entry the VA of its first
// (an array's records follow one another; docs/compiler.md "Textures"). The records hold the
// IMAGE_DESC captured when the descriptor was written: a view or image destroyed since names texels
// that are no longer mapped, which the texture unit reports as the draw's memory fault.
void write_texture_records(const DrawCommand& d, uint64_t state_va, uint8_t* state) {
  for (size_t i = 0; i < d.textures.size(); ++i) {
    const auto& [slot, record] = d.textures[i];
    const uint64_t at = kTexturesAt + i * kTextureRecordBytes;
    std::memcpy(state + at, record.data(), sizeof record);
    if (i > 0 && d.textures[i - 1].first == slot) continue;  // a later element of the slot's array
    const uint64_t va = state_va + at;
    std::memcpy(state + kConstantsAt + kTableOffset + 8 * slot, &va, sizeof va);
  }
}

// XFB_STATE, its XFB_BUFFER records (the write offsets in the stream's offset words) and the
// pipeline's XFB_OUTPUT words at xfb_at(d); SHADER_STATE XFB_VA names them.
void write_xfb(const DrawCommand& d, uint64_t state_va, uint8_t* state, uint64_t offsets_va, uint32_t* shader) {
  namespace X = blk::XFB_STATE;
  namespace B = blk::XFB_BUFFER;
  const GraphicsPipeline& p = *d.pipeline;
  const uint64_t at = xfb_at(d);
  auto* w = reinterpret_cast<uint32_t*>(state + at);
  w[X::OUTPUTS] = put(uint32_t(p.xfb_outputs.size()), X::OUTPUTS_COUNT_MASK, X::OUTPUTS_COUNT_SHIFT);
  w[X::OUTPUTS_VA_LO] = lo(state_va + at + kXfbOutputsAt);
  w[X::OUTPUTS_VA_HI] = hi(state_va + at + kXfbOutputsAt);
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    uint32_t* r = w + X::SIZE_DWORDS + b * B::SIZE_DWORDS;
    uint64_t va = 0;
    uint32_t size = 0;
    std::string unused;
    if (p.xfb_strides[b] == 0 || !xfb_range(d.xfb_buffers[b], b, &va, &size, &unused)) continue;  // checked before
    r[B::VA_LO] = lo(va);
    r[B::VA_HI] = hi(va);
    r[B::SIZE] = size;
    r[B::STRIDE] = p.xfb_strides[b];
    r[B::OFFSET_VA_LO] = lo(offsets_va + 4 * b);
    r[B::OFFSET_VA_HI] = hi(offsets_va + 4 * b);
  }
  std::memcpy(state + at + kXfbOutputsAt, p.xfb_outputs.data(), p.xfb_outputs.size() * 4);
  namespace S = blk::SHADER_STATE;
  shader[S::XFB_VA_LO] = lo(state_va + at);
  shader[S::XFB_VA_HI] = hi(state_va + at);
}

// Writes the blocks into `state` (zeroed, state_bytes(d) long, mapped at `state_va`).
void write_blocks(const DrawCommand& d, uint64_t state_va, uint8_t* state) {
  write_draw_info(d, state_va, reinterpret_cast<uint32_t*>(state + kDrawInfoAt));
  write_pipe_state(d, reinterpret_cast<uint32_t*>(state + kPipeStateAt));
  write_more_color_targets(d, state_va, state, reinterpret_cast<uint32_t*>(state + kPipeStateAt));
  auto* shader = reinterpret_cast<uint32_t*>(state + kShaderStateAt);
  std::copy(d.pipeline->shader_state.begin(), d.pipeline->shader_state.end(), shader);
  if (d.pipeline->constant_bytes != 0) {
    namespace S = blk::SHADER_STATE;
    std::memcpy(state + kConstantsAt, d.constants.data(), d.constants.size());
    write_texture_records(d, state_va, state);
    shader[S::CONSTANTS_VA_LO] = lo(state_va + kConstantsAt);
    shader[S::CONSTANTS_VA_HI] = hi(state_va + kConstantsAt);
    shader[S::CONSTANTS_SIZE] = uint32_t(d.constants.size());
  }
  write_vertex_input(d, state);
}

// Writes the draw's blocks into the stream's arena and appends its DRAW packet (the code BO listed
// as used); the stream submits it with the other device commands of the run (command_stream.h).
void append_draw(Device* device, const DrawCommand& d) {
  CommandStream& stream = device->stream;
  const uint64_t bytes = state_bytes(d);
  std::optional<StreamSpan> span = stream.allocate(device, bytes, "vkQueueSubmit: draw");
  if (!span) return;
  write_blocks(d, span->va, span->bytes);
  if (d.xfb) {
    uint64_t offsets_va = 0;
    if (stream.xfb_offsets(device, &offsets_va) == nullptr)
      return log_refusal("vkQueueSubmit: draw", "no memory for transform feedback's offsets", "skipped");
    write_xfb(d, span->va, span->bytes, offsets_va, reinterpret_cast<uint32_t*>(span->bytes + kShaderStateAt));
  }
  stream.begin_command();
  const uint64_t info = span->va + kDrawInfoAt, pipe = span->va + kPipeStateAt, shader = span->va + kShaderStateAt;
  // An indirect draw's counts are read by the command processor when it runs the packet.
  const std::vector<uint32_t> packet =
      d.indirect == nullptr ? hw::encode_draw(info, pipe, shader)
      : d.byte_count ? hw::encode_draw_byte_count(info, pipe, shader, d.indirect->va + d.indirect_offset,
                                                  d.counter_offset, d.vertex_stride)
                     : hw::encode_draw_indirect(info, pipe, shader, d.indirect->va + d.indirect_offset);
  stream.append(device, packet, {d.pipeline->code_bo, d.indirect != nullptr ? d.indirect->memory->bo : 0},
                "vkQueueSubmit: draw", false);
}

}  // namespace

void run(Device* device, const DrawCommand& d) {
  const char* command = d.byte_count ? "vkCmdDrawIndirectByteCountEXT"
                        : d.indirect != nullptr ? (d.indexed ? "vkCmdDrawIndexedIndirect" : "vkCmdDrawIndirect")
                                                : (d.indexed ? "vkCmdDrawIndexed" : "vkCmdDraw");
  std::string why;
  if (d.indirect != nullptr) {
    if (!indirect_draw_range_valid(d, &why) || !check_draw_state(d, &why) || !check_xfb(d, &why)) {
      return log_refusal(command, why, "draw skipped");
    }
    return append_draw(device, d);
  }
  // The host reads the indices to find the highest vertex: what a dispatch earlier in the run wrote
  // must have landed first.
  if (d.indexed) device->stream.host_reads_buffers(device);
  if (!check_draw(d, &why)) return log_refusal(command, why, "draw skipped");
  append_draw(device, d);
}

}  // namespace gsgpu::vk
