// Type layout as OpenCL C defines it: scalars are naturally aligned, 3-component vectors take the
// space of 4, a vector is aligned to its size, structs follow their Offset decorations (or natural
// layout; CPacked removes padding), arrays are element size times length.
#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {
namespace {

// A kernel flattened into more scalar components than this is refused rather than compiled into
// megabytes of code (a private array is accessed through memory, never flattened).
constexpr uint32_t kMaxComponents = 4096;

}  // namespace

const SpirvType& Lowering::type(uint32_t id) const {
  const SpirvType* t = m_.type(id);
  if (t == nullptr) fail("id " + std::to_string(id) + " is used as a type but is not one");
  return *t;
}

uint32_t Lowering::size_of(uint32_t id) const {
  const SpirvType& t = type(id);
  switch (t.kind) {
    case TypeKind::kBool: return 1;
    case TypeKind::kInt: case TypeKind::kFloat: return t.width / 8;
    case TypeKind::kPointer: case TypeKind::kOpaque: return 8;  // opaque: events, held as 64-bit handles
    case TypeKind::kVector: return size_of(t.element) * (t.count == 3 ? 4 : t.count);
    case TypeKind::kArray: {
      const uint64_t total = uint64_t{array_stride(id)} * t.count;
      if (total > (1u << 30)) fail("array type " + std::to_string(id) + " is larger than 1 GiB");
      return static_cast<uint32_t>(total);
    }
    case TypeKind::kStruct: {
      const SpirvDecorations* d = m_.decoration(id);
      const bool packed = d != nullptr && d->packed;
      uint64_t offset = 0;
      uint32_t align = 1;
      for (size_t i = 0; i < t.members.size(); ++i) {
        const uint32_t member_align = packed ? 1 : align_of(t.members[i]);
        align = std::max(align, member_align);
        offset = (offset + member_align - 1) / member_align * member_align;
        if (d != nullptr && d->member_offsets.count(static_cast<uint32_t>(i)))
          offset = d->member_offsets.at(static_cast<uint32_t>(i));
        offset += size_of(t.members[i]);
        if (offset > (1u << 30)) fail("struct type " + std::to_string(id) + " is larger than 1 GiB");
      }
      return static_cast<uint32_t>((offset + align - 1) / align * align);
    }
    default:
      fail("type " + std::to_string(id) + " has no size (void, function or opaque type)");
  }
}

// Bytes between an array's elements: its ArrayStride decoration where it has one (explicitly laid
// out blocks: std140's 16-byte scalars, the scalar layout's 12-byte vec3), else the element's size.
uint32_t Lowering::array_stride(uint32_t array_id) const {
  const SpirvDecorations* d = m_.decoration(array_id);
  if (d != nullptr && d->array_stride != 0) return d->array_stride;
  return size_of(type(array_id).element);
}

uint32_t Lowering::align_of(uint32_t id) const {
  const SpirvType& t = type(id);
  switch (t.kind) {
    case TypeKind::kVector: return size_of(id);
    case TypeKind::kArray: return align_of(t.element);
    case TypeKind::kStruct: {
      const SpirvDecorations* d = m_.decoration(id);
      if (d != nullptr && d->packed) return 1;
      uint32_t align = 1;
      for (uint32_t member : t.members) align = std::max(align, align_of(member));
      return align;
    }
    default: return size_of(id);
  }
}

void Lowering::leaves(uint32_t id, uint32_t base, std::vector<Leaf>* out) const {
  const SpirvType& t = type(id);
  if (out->size() > kMaxComponents) fail("a value of type " + std::to_string(id) + " has too many components");
  switch (t.kind) {
    case TypeKind::kBool: case TypeKind::kInt: case TypeKind::kFloat: case TypeKind::kPointer: case TypeKind::kOpaque:
      out->push_back(Leaf{base, id});
      return;
    case TypeKind::kVector:
      for (uint32_t i = 0; i < t.count; ++i) out->push_back(Leaf{base + i * size_of(t.element), t.element});
      return;
    case TypeKind::kArray:
      if (t.count > kMaxComponents) fail("array of " + std::to_string(t.count) + " elements used as a value");
      for (uint32_t i = 0; i < t.count; ++i) leaves(t.element, base + i * array_stride(id), out);
      return;
    case TypeKind::kStruct: {
      const SpirvDecorations* d = m_.decoration(id);
      const bool packed = d != nullptr && d->packed;
      uint32_t offset = 0;
      for (size_t i = 0; i < t.members.size(); ++i) {
        const uint32_t member_align = packed ? 1 : align_of(t.members[i]);
        offset = (offset + member_align - 1) / member_align * member_align;
        if (d != nullptr && d->member_offsets.count(static_cast<uint32_t>(i)))
          offset = d->member_offsets.at(static_cast<uint32_t>(i));
        leaves(t.members[i], base + offset, out);
        offset += size_of(t.members[i]);
      }
      return;
    }
    default:
      fail("type " + std::to_string(id) + " cannot be a value in registers (void, function or opaque type)");
  }
}

uint32_t Lowering::component_count(uint32_t id) const {
  const SpirvType& t = type(id);
  switch (t.kind) {
    case TypeKind::kVector: return t.count;
    case TypeKind::kArray: {
      const uint64_t n = uint64_t{t.count} * component_count(t.element);
      if (n > kMaxComponents) fail("array type " + std::to_string(id) + " used as a value has too many components");
      return static_cast<uint32_t>(n);
    }
    case TypeKind::kStruct: {
      uint64_t n = 0;
      for (uint32_t member : t.members) n += component_count(member);
      if (n > kMaxComponents) fail("struct type " + std::to_string(id) + " has too many components");
      return static_cast<uint32_t>(n);
    }
    case TypeKind::kVoid: return 0;
    default: return 1;
  }
}

uint32_t Lowering::component_offset(uint32_t id, uint32_t index, uint32_t* element_type) const {
  const SpirvType& t = type(id);
  switch (t.kind) {
    case TypeKind::kVector:
      if (index >= t.count) fail("component " + std::to_string(index) + " of a " + std::to_string(t.count) + "-vector");
      *element_type = t.element;
      return index;
    case TypeKind::kArray:
      if (index >= t.count) fail("element " + std::to_string(index) + " of a " + std::to_string(t.count) + "-array");
      *element_type = t.element;
      return index * component_count(t.element);
    case TypeKind::kStruct: {
      if (index >= t.members.size()) fail("member " + std::to_string(index) + " of a struct with fewer");
      uint32_t first = 0;
      for (uint32_t i = 0; i < index; ++i) first += component_count(t.members[i]);
      *element_type = t.members[index];
      return first;
    }
    default:
      fail("composite index into a scalar type");
  }
}

unsigned Lowering::reg_bits(uint32_t scalar_type) const {
  const SpirvType& t = type(scalar_type);
  if (t.kind == TypeKind::kPointer || t.kind == TypeKind::kOpaque) return 64;
  if (t.kind == TypeKind::kInt || t.kind == TypeKind::kFloat) return t.width == 64 ? 64 : 32;
  if (t.kind == TypeKind::kBool) return 32;
  fail("type " + std::to_string(scalar_type) + " is not a scalar");
}

uint32_t Lowering::scalar_of(uint32_t id) const {
  const SpirvType& t = type(id);
  return t.kind == TypeKind::kVector ? t.element : id;
}

uint32_t Lowering::int_width(uint32_t scalar_type) const {
  const SpirvType& t = type(scalar_type);
  if (t.kind == TypeKind::kBool) return 1;
  if (t.kind == TypeKind::kPointer) return 64;
  // Every caller derives masks and shifts from the width (1 << (width - 1)): a float, struct or
  // void where the instruction needs an integer would give a width of 0 or an odd one.
  if (t.kind != TypeKind::kInt || (t.width != 8 && t.width != 16 && t.width != 32 && t.width != 64))
    fail("type " + std::to_string(scalar_type) + " is used as an integer but is not an 8-, 16-, 32- or 64-bit "
         "integer, a bool or a pointer");
  return t.width;
}

}  // namespace gsgpu::compiler
