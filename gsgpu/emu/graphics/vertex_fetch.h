// Vertex fetch: the geometry engine's reads of vertex attributes and indices from GPU memory.
//
// Attribute formats are Vulkan's vertex-input formats, identified by their VkFormat value so that state
// words carry them unchanged: R8 / R8G8 / R8G8B8A8 and R16 / R16G16 / R16G16B16A16 in UNORM, SNORM,
// UINT, SINT (16-bit also SFLOAT), and R32 ... R32G32B32A32 in UINT, SINT, SFLOAT. Conversions are
// Vulkan's: UNORM c / (2^b - 1); SNORM max(c / (2^(b-1) - 1), -1); half floats exactly.
// Addresses: binding.va + attribute.offset + binding.stride * i, where i is the vertex index for
// per-vertex bindings and instance_index / divisor for per-instance ones. Every read is checked
// against the binding's size (a fetch past the buffer is a fault naming binding, attribute and index)
// and goes through GpuMemory (an unmapped address is an MMU fault). Nothing is read unchecked.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/vertex.h"

namespace gsgpu::graphics {

enum class InputRate : uint8_t { kVertex, kInstance };

struct VertexBinding {
  uint64_t va = 0, size = 0;  // the bound range
  uint32_t stride = 0;
  InputRate rate = InputRate::kVertex;
  uint32_t divisor = 1;       // per-instance bindings: a new element every `divisor` instances (>= 1)
};

struct VertexAttribute {
  uint32_t binding = 0;
  uint32_t format = 0;  // VkFormat
  uint32_t offset = 0;
};

// Bytes per element of a vertex format, or 0 when the format is not a supported vertex format.
uint32_t vertex_format_size(uint32_t vk_format);
const char* vertex_format_name(uint32_t vk_format);
// Decodes one element (vertex_format_size bytes) into four words.
std::array<uint32_t, 4> decode_vertex_format(uint32_t vk_format, const uint8_t* bytes);
float half_to_float(uint16_t h);

enum class IndexType : uint8_t { kUint16, kUint32 };

struct VertexInputState {
  std::array<VertexBinding, kMaxVertexBindings> bindings{};
  std::array<VertexAttribute, kMaxVertexAttributes> attributes{};
  uint32_t attribute_count = 0;  // attributes[0 .. count) are enabled; location = position in the array
};

class VertexFetcher {
 public:
  // Works out each enabled attribute's plan (below) once: `state` must not change while fetching.
  VertexFetcher(GpuMemory& memory, const VertexInputState& state);
  // Fills out->attributes; on failure returns the fault's description.
  std::optional<std::string> fetch(uint32_t vertex_index, uint32_t instance_index, FetchedVertex* out);
  // Reads index `i` of an index buffer [va, va + size).
  std::optional<std::string> fetch_index(uint64_t va, uint64_t size, IndexType type, uint64_t i, uint32_t* out);

 private:
  // The bytes [address, address + size) of binding `binding`'s buffer, through the MMU; nullptr (the
  // fault recorded) when they are not mapped readable.
  const uint8_t* read_pointer(uint32_t binding, uint64_t address, uint32_t size);

  // What fetch needs of attribute a, looked up and checked once per draw instead of per vertex
  // (the format lookup, the overflow-checked range arithmetic and the MMU cache check were about
  // 180 instructions per vertex of one attribute). Same checks, same faults at the same vertex:
  //   - format == nullptr: a bad format or binding (fetch faults at the first vertex);
  //   - element e lies inside the binding exactly when e < element_end (0: none does):
  //     offset + stride * e + size <= binding size; e < 2^32, so nothing overflows;
  //   - host != nullptr: the binding's whole range lies in one readable mapping, which begins at
  //     host (binding va + attribute offset there), so no read inside it faults; otherwise each
  //     read goes through read_pointer as before.
  struct AttributePlan {
    const void* format = nullptr;  // vertex_fetch.cc's FormatInfo
    uint32_t size = 0;             // bytes of one element
    // 32-bit formats: the element's words are the bytes as they are, over `fill` (the missing
    // components' (0, 0, 0, 1)); raw_words 0: decoded by the format.
    uint32_t raw_words = 0;
    std::array<uint32_t, 4> fill{};
    uint64_t element_end = 0;
    const uint8_t* host = nullptr;
    // The binding's, copied so that a fetch reads one record per attribute.
    uint32_t stride = 0;
    uint32_t divisor = 1;  // >= 1 (a divisor of 0 reads as 1)
    bool per_instance = false;
  };
  void plan_attribute(uint32_t a);
  uint32_t attribute_count_ = 0;  // min(state.attribute_count, kMaxVertexAttributes)

  GpuMemory& memory_;
  const VertexInputState& state_;
  std::array<AttributePlan, kMaxVertexAttributes> plans_{};
  // Per binding, the mapping its last read lay in (lookup_range): a read inside it needs no MMU
  // lookup, which took a shared lock per vertex and attribute. Empty until a read succeeds.
  std::array<GpuMemory::Range, kMaxVertexBindings> mappings_{};
};

}  // namespace gsgpu::graphics
