// Vertex and index fetch with checked addresses (see vertex_fetch.h).
#include "gsgpu/emu/graphics/vertex_fetch.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/checked_math.h"

namespace gsgpu::graphics {
namespace {

enum class Kind : uint8_t { kUnorm, kSnorm, kUint, kSint, kSfloat };

struct FormatInfo {
  uint32_t vk_format;
  const char* name;
  uint8_t components, bits;
  Kind kind;
};

constexpr FormatInfo kFormats[] = {
    {9, "R8_UNORM", 1, 8, Kind::kUnorm},        {10, "R8_SNORM", 1, 8, Kind::kSnorm},
    {13, "R8_UINT", 1, 8, Kind::kUint},         {14, "R8_SINT", 1, 8, Kind::kSint},
    {16, "R8G8_UNORM", 2, 8, Kind::kUnorm},     {17, "R8G8_SNORM", 2, 8, Kind::kSnorm},
    {20, "R8G8_UINT", 2, 8, Kind::kUint},       {21, "R8G8_SINT", 2, 8, Kind::kSint},
    {37, "R8G8B8A8_UNORM", 4, 8, Kind::kUnorm}, {38, "R8G8B8A8_SNORM", 4, 8, Kind::kSnorm},
    {41, "R8G8B8A8_UINT", 4, 8, Kind::kUint},   {42, "R8G8B8A8_SINT", 4, 8, Kind::kSint},
    {70, "R16_UNORM", 1, 16, Kind::kUnorm},     {71, "R16_SNORM", 1, 16, Kind::kSnorm},
    {74, "R16_UINT", 1, 16, Kind::kUint},       {75, "R16_SINT", 1, 16, Kind::kSint},
    {76, "R16_SFLOAT", 1, 16, Kind::kSfloat},   {77, "R16G16_UNORM", 2, 16, Kind::kUnorm},
    {78, "R16G16_SNORM", 2, 16, Kind::kSnorm},  {81, "R16G16_UINT", 2, 16, Kind::kUint},
    {82, "R16G16_SINT", 2, 16, Kind::kSint},    {83, "R16G16_SFLOAT", 2, 16, Kind::kSfloat},
    {91, "R16G16B16A16_UNORM", 4, 16, Kind::kUnorm}, {92, "R16G16B16A16_SNORM", 4, 16, Kind::kSnorm},
    {95, "R16G16B16A16_UINT", 4, 16, Kind::kUint},   {96, "R16G16B16A16_SINT", 4, 16, Kind::kSint},
    {97, "R16G16B16A16_SFLOAT", 4, 16, Kind::kSfloat},
    {98, "R32_UINT", 1, 32, Kind::kUint},       {99, "R32_SINT", 1, 32, Kind::kSint},
    {100, "R32_SFLOAT", 1, 32, Kind::kSfloat},  {101, "R32G32_UINT", 2, 32, Kind::kUint},
    {102, "R32G32_SINT", 2, 32, Kind::kSint},   {103, "R32G32_SFLOAT", 2, 32, Kind::kSfloat},
    {104, "R32G32B32_UINT", 3, 32, Kind::kUint}, {105, "R32G32B32_SINT", 3, 32, Kind::kSint},
    {106, "R32G32B32_SFLOAT", 3, 32, Kind::kSfloat}, {107, "R32G32B32A32_UINT", 4, 32, Kind::kUint},
    {108, "R32G32B32A32_SINT", 4, 32, Kind::kSint},  {109, "R32G32B32A32_SFLOAT", 4, 32, Kind::kSfloat},
};

// kFormats' entry per VkFormat value (-1: none), so that a lookup is one load: fetch looks formats
// up per vertex and attribute (a linear search was 7 % of a small-triangle draw).
constexpr uint32_t kFormatTableSize = 110;  // past the largest VkFormat in kFormats
constexpr std::array<int8_t, kFormatTableSize> kFormatIndex = [] {
  std::array<int8_t, kFormatTableSize> index{};
  index.fill(-1);
  for (size_t i = 0; i < std::size(kFormats); ++i) index[kFormats[i].vk_format] = static_cast<int8_t>(i);
  return index;
}();

const FormatInfo* find_format(uint32_t vk_format) {
  if (vk_format >= kFormatTableSize || kFormatIndex[vk_format] < 0) return nullptr;
  return &kFormats[kFormatIndex[vk_format]];
}

uint32_t read_component(const uint8_t* p, int bits) {
  uint32_t v = 0;
  std::memcpy(&v, p, size_t(bits / 8));  // little endian: the low bytes
  return v;
}

int32_t sign_extend(uint32_t v, int bits) {
  return bits == 32 ? static_cast<int32_t>(v) : static_cast<int32_t>(v << (32 - bits)) >> (32 - bits);
}

uint32_t to_word(const FormatInfo& f, uint32_t raw) {
  const int b = f.bits;
  switch (f.kind) {
    case Kind::kUnorm: return std::bit_cast<uint32_t>(float(double(raw) / double((uint64_t{1} << b) - 1)));
    case Kind::kSnorm: {
      double v = double(sign_extend(raw, b)) / double((uint64_t{1} << (b - 1)) - 1);
      return std::bit_cast<uint32_t>(float(v < -1.0 ? -1.0 : v));
    }
    case Kind::kUint: return raw;
    case Kind::kSint: return static_cast<uint32_t>(sign_extend(raw, b));
    case Kind::kSfloat: return b == 16 ? std::bit_cast<uint32_t>(half_to_float(uint16_t(raw))) : raw;
  }
  return 0;
}

}  // namespace

float half_to_float(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  double v;
  if (exponent == 0) {
    v = std::ldexp(double(mantissa), -24);  // subnormal
  } else if (exponent == 31) {
    v = mantissa ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(double(mantissa | 0x400), exponent - 25);
  }
  return float(sign ? -v : v);
}

uint32_t vertex_format_size(uint32_t vk_format) {
  const FormatInfo* f = find_format(vk_format);
  return f ? uint32_t(f->components) * f->bits / 8 : 0;
}

const char* vertex_format_name(uint32_t vk_format) {
  const FormatInfo* f = find_format(vk_format);
  return f ? f->name : "unsupported";
}

namespace {

// A format's components as 32-bit words (decode_vertex_format, with the format looked up).
std::array<uint32_t, 4> decode(const FormatInfo* f, const uint8_t* bytes) {
  if (!f) return {0, 0, 0, 0};
  const bool is_float = f->kind == Kind::kUnorm || f->kind == Kind::kSnorm || f->kind == Kind::kSfloat;
  std::array<uint32_t, 4> out{0, 0, 0, is_float ? std::bit_cast<uint32_t>(1.0f) : 1u};
  if (f->bits == 32) {  // UINT, SINT and SFLOAT words are the bytes as they are (to_word of 32 bits)
    switch (f->components) {  // fixed sizes: a few moves, not a memcpy call
      case 1: std::memcpy(out.data(), bytes, 4); break;
      case 2: std::memcpy(out.data(), bytes, 8); break;
      case 3: std::memcpy(out.data(), bytes, 12); break;
      default: std::memcpy(out.data(), bytes, 16); break;
    }
    return out;
  }
  for (int c = 0; c < f->components; ++c) out[c] = to_word(*f, read_component(bytes + c * f->bits / 8, f->bits));
  return out;
}

}  // namespace

std::array<uint32_t, 4> decode_vertex_format(uint32_t vk_format, const uint8_t* bytes) {
  return decode(find_format(vk_format), bytes);
}

VertexFetcher::VertexFetcher(GpuMemory& memory, const VertexInputState& state) : memory_(memory), state_(state) {
  attribute_count_ = std::min(state_.attribute_count, kMaxVertexAttributes);
  for (uint32_t a = 0; a < attribute_count_; ++a) plan_attribute(a);
}

void VertexFetcher::plan_attribute(uint32_t a) {
  const VertexAttribute& attr = state_.attributes[a];
  const FormatInfo* format = find_format(attr.format);
  if (!format || attr.binding >= kMaxVertexBindings) return;  // fetch reports it at the first vertex
  AttributePlan& plan = plans_[a];
  plan.format = format;
  plan.size = uint32_t(format->components) * format->bits / 8;
  if (format->bits == 32) {
    plan.raw_words = format->components;
    static constexpr uint8_t kZeros[16] = {};
    plan.fill = decode(format, kZeros);  // the present components are overwritten per vertex
  }
  const VertexBinding& b = state_.bindings[attr.binding];
  plan.stride = b.stride;
  plan.divisor = b.divisor ? b.divisor : 1;
  plan.per_instance = b.rate == InputRate::kInstance;
  const uint64_t first_end = uint64_t{attr.offset} + plan.size;  // below 2^33: no overflow
  if (first_end > b.size) return;                                 // not even element 0 fits
  // Elements are below 2^32 (vertex and instance indices are 32-bit), so 2^32 is as good as no end.
  const uint64_t last = b.stride == 0 ? UINT64_MAX : (b.size - first_end) / b.stride;
  plan.element_end = std::min<uint64_t>(last, uint64_t{1} << 32) + 1;
  GpuMemory::Range m;
  if (memory_.lookup_range(b.va, Access::kRead, &m) && b.va >= m.va_begin && b.va < m.va_end &&
      b.size <= m.va_end - b.va) {
    plan.host = m.host + (b.va - m.va_begin) + attr.offset;  // inside: offset < first_end <= size
  }
}

namespace {

// decode() of a 32-bit format, inline: `fill` with the element's first `words` words over it.
inline void copy_words(const std::array<uint32_t, 4>& fill, const uint8_t* bytes, uint32_t words,
                       std::array<uint32_t, 4>* out) {
  *out = fill;
  switch (words) {  // fixed sizes: a few moves, not a memcpy call
    case 1: std::memcpy(out->data(), bytes, 4); break;
    case 2: std::memcpy(out->data(), bytes, 8); break;
    case 3: std::memcpy(out->data(), bytes, 12); break;
    default: std::memcpy(out->data(), bytes, 16); break;
  }
}

std::string bad_attribute(uint32_t a, const VertexAttribute& attr) {
  return "attribute " + std::to_string(a) + ": bad format " + std::to_string(attr.format) + " or binding " +
         std::to_string(attr.binding);
}

std::string past_the_buffer(uint32_t a, const VertexAttribute& attr, const VertexBinding& b, uint64_t element) {
  return "vertex fetch past the buffer: attribute " + std::to_string(a) + " binding " + std::to_string(attr.binding) +
         " element " + std::to_string(element) + " (stride " + std::to_string(b.stride) + ", offset " +
         std::to_string(attr.offset) + ") in a buffer of " + std::to_string(b.size) + " bytes";
}

}  // namespace

std::optional<std::string> VertexFetcher::fetch(uint32_t vertex_index, uint32_t instance_index, FetchedVertex* out) {
  out->vertex_index = vertex_index;
  out->instance_index = instance_index;
  for (uint32_t a = 0; a < attribute_count_; ++a) {
    const AttributePlan& plan = plans_[a];
    if (!plan.format) return bad_attribute(a, state_.attributes[a]);
    const uint64_t element = plan.per_instance ? instance_index / plan.divisor : vertex_index;
    if (element >= plan.element_end) {
      const VertexAttribute& attr = state_.attributes[a];
      return past_the_buffer(a, attr, state_.bindings[attr.binding], element);
    }
    const uint64_t start = uint64_t{plan.stride} * element;  // + offset: inside the binding (plan_attribute)
    const uint8_t* p;
    if (plan.host) {
      p = plan.host + start;
    } else {
      const VertexAttribute& attr = state_.attributes[a];
      auto address = gsvirt::checked_add<uint64_t>(state_.bindings[attr.binding].va, start + attr.offset);
      p = address ? read_pointer(attr.binding, *address, plan.size) : nullptr;
    }
    if (!p) return "vertex fetch from an unmapped address: attribute " + std::to_string(a);
    if (plan.raw_words != 0) {
      copy_words(plan.fill, p, plan.raw_words, &out->attributes[a]);
    } else {
      out->attributes[a] = decode(static_cast<const FormatInfo*>(plan.format), p);
    }
  }
  return std::nullopt;
}

const uint8_t* VertexFetcher::read_pointer(uint32_t binding, uint64_t address, uint32_t size) {
  GpuMemory::Range& m = mappings_[binding];
  if (address >= m.va_begin && address < m.va_end && size <= m.va_end - address) {
    return m.host + (address - m.va_begin);  // what translate() returns inside that mapping
  }
  const uint8_t* p = memory_.translate(address, size, Access::kRead);
  if (p && !memory_.lookup_range(address, Access::kRead, &m)) m = {};
  return p;
}

std::optional<std::string> VertexFetcher::fetch_index(uint64_t va, uint64_t size, IndexType type, uint64_t i,
                                                      uint32_t* out) {
  const uint64_t bytes = type == IndexType::kUint16 ? 2 : 4;
  auto offset = gsvirt::checked_mul<uint64_t>(i, bytes);
  if (!offset || !gsvirt::range_within(*offset, bytes, size)) {
    return "index fetch past the buffer: index " + std::to_string(i) + " in a buffer of " + std::to_string(size) +
           " bytes";
  }
  auto address = gsvirt::checked_add<uint64_t>(va, *offset);
  const uint8_t* p = address ? memory_.translate(*address, bytes, Access::kRead) : nullptr;
  if (!p) return "index fetch from an unmapped address: index " + std::to_string(i);
  *out = read_component(p, int(bytes * 8));
  return std::nullopt;
}

}  // namespace gsgpu::graphics
