// Specialization constants (VkSpecializationInfo; docs/vulkan-driver.md "Compute"): before a stage
// is compiled, each OpSpecConstant / OpSpecConstantTrue / OpSpecConstantFalse whose SpecId a map
// entry names gets the entry's value in place of its default, so the compiler sees an ordinary
// module whose constants are the specialized ones (a WorkgroupSize composite over them included).
// Every entry is application data: its range is checked inside pData (overflow-safe) and its size
// against the constant's type (VkBool32 for booleans, the width otherwise) before anything is
// written; OpSpecConstantOp is left to the compiler, which refuses it.
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"

namespace gsgpu::vk {
namespace {

constexpr uint32_t kOpTypeBool = 20, kOpTypeInt = 21, kOpTypeFloat = 22, kOpDecorate = 71, kSpecId = 1,
                   kOpSpecConstantTrue = 48, kOpSpecConstantFalse = 49, kOpSpecConstant = 50;

struct ScalarType {
  uint32_t width = 0;  // bits; 0 for bool
  bool is_signed = false;
};

// What the module declares: scalar types, the SpecId of each id, where each spec constant starts.
struct SpecConstants {
  std::unordered_map<uint32_t, ScalarType> types;
  std::unordered_multimap<uint32_t, uint32_t> ids_of_spec_id;
  std::unordered_map<uint32_t, size_t> defined_at;  // result id -> word index of its instruction
};

SpecConstants scan(const std::vector<uint32_t>& spirv) {
  SpecConstants s;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, op = spirv[i] & 0xffff;
    if (count == 0 || count > spirv.size() - i) break;  // the reader checked the module; be safe anyway
    if (op == kOpTypeBool && count >= 2) s.types[spirv[i + 1]] = {0, false};
    if (op == kOpTypeInt && count >= 4) s.types[spirv[i + 1]] = {spirv[i + 2], spirv[i + 3] != 0};
    if (op == kOpTypeFloat && count >= 3) s.types[spirv[i + 1]] = {spirv[i + 2], false};
    if (op == kOpDecorate && count >= 4 && spirv[i + 2] == kSpecId) s.ids_of_spec_id.emplace(spirv[i + 3], spirv[i + 1]);
    if ((op == kOpSpecConstantTrue || op == kOpSpecConstantFalse || op == kOpSpecConstant) && count >= 3)
      s.defined_at[spirv[i + 2]] = i;
    i += count;
  }
  return s;
}

// Writes `bytes` (of `size`) into the constant at out[at]; false with *why when the size or the
// instruction does not fit the constant's type.
bool write_value(std::vector<uint32_t>* out, size_t at, const ScalarType& type, const uint8_t* bytes, size_t size,
                 std::string* why) {
  std::vector<uint32_t>& w = *out;
  const uint32_t op = w[at] & 0xffff, count = w[at] >> 16;
  if (type.width == 0) {  // a boolean: VkBool32
    if (size != 4 || op == kOpSpecConstant) return *why = "a boolean constant needs 4 bytes (VkBool32)", false;
    uint32_t v = 0;
    std::memcpy(&v, bytes, 4);
    w[at] = (count << 16) | (v != 0 ? kOpSpecConstantTrue : kOpSpecConstantFalse);
    return true;
  }
  const uint32_t words = type.width > 32 ? 2 : 1;
  if (op != kOpSpecConstant || count != 3 + words || size * 8 != type.width) {
    return *why = "an entry of " + std::to_string(size) + " bytes for a " + std::to_string(type.width) + "-bit constant",
           false;
  }
  uint64_t v = 0;
  std::memcpy(&v, bytes, size);
  if (type.width < 32 && type.is_signed && (v >> (type.width - 1)) & 1) v |= ~uint64_t{0} << type.width;  // sign-extend
  w[at + 3] = uint32_t(v);
  if (words == 2) w[at + 4] = uint32_t(v >> 32);
  return true;
}

}  // namespace

bool specialize(const std::vector<uint32_t>& spirv, const VkSpecializationInfo* info, std::vector<uint32_t>* out,
                std::string* why) {
  *out = spirv;
  if (info == nullptr || info->mapEntryCount == 0) return true;
  if (info->pMapEntries == nullptr || (info->dataSize != 0 && info->pData == nullptr)) {
    return *why = "specialization entries or data missing", false;
  }
  const SpecConstants s = scan(spirv);
  const auto* data = static_cast<const uint8_t*>(info->pData);
  for (uint32_t e = 0; e < info->mapEntryCount; ++e) {
    const VkSpecializationMapEntry& entry = info->pMapEntries[e];
    if (entry.size == 0 || !gsvirt::range_within(entry.offset, entry.size, info->dataSize)) {
      return *why = "specialization entry " + std::to_string(e) + " outside the data", false;
    }
    auto [first, last] = s.ids_of_spec_id.equal_range(entry.constantID);
    for (auto it = first; it != last; ++it) {  // an ID the module does not use is allowed
      auto at = s.defined_at.find(it->second);
      if (at == s.defined_at.end()) continue;
      auto type = s.types.find(spirv[at->second + 1]);
      if (type == s.types.end()) return *why = "specialization constant of a non-scalar type", false;
      if (!write_value(out, at->second, type->second, data + entry.offset, entry.size, why)) {
        *why = "specialization entry " + std::to_string(e) + " (constant " + std::to_string(entry.constantID) +
               "): " + *why;
        return false;
      }
    }
  }
  return true;
}

}  // namespace gsgpu::vk
