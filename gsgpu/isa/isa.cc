#include "gsgpu/isa/isa.h"

#include <array>
#include <string_view>
#include <unordered_map>

namespace gsgpu::isa {
namespace {

using K = OperandKind;

constexpr K vdst(int bits) { return bits == 64 ? K::kVDst64 : bits == 32 ? K::kVDst32 : K::kNone; }
constexpr K sdst(int bits) { return bits == 64 ? K::kSDst64 : bits == 32 ? K::kSDst32 : K::kNone; }
constexpr K vsrc(int bits) { return bits == 64 ? K::kVSrc64 : bits == 32 ? K::kVSrc32 : K::kNone; }
constexpr K ssrc(int bits) { return bits == 64 ? K::kSSrc64 : bits == 32 ? K::kSSrc32 : K::kNone; }

constexpr MemSpace space_named(std::string_view name) {
  if (name == "global") return MemSpace::kGlobal;
  if (name == "const") return MemSpace::kConstant;
  if (name == "local") return MemSpace::kLocal;
  return MemSpace::kPrivate;
}
// Global and constant memory are addressed with 64-bit virtual addresses; local and private
// memory with 32-bit offsets into the work-group's / work-item's own window.
constexpr K address_kind(std::string_view space) {
  return space_named(space) == MemSpace::kGlobal || space_named(space) == MemSpace::kConstant
             ? K::kVSrc64
             : K::kVSrc32;
}

// Global and constant accesses may add a scalar base to the address (src2); local and private
// windows are small 32-bit offsets and have none.
constexpr K base_kind(std::string_view space) { return address_kind(space) == K::kVSrc64 ? K::kSBase64 : K::kNone; }

constexpr OpInfo kOpTable[] = {
#define GSGPU_ALU(name, D, A, B, C)                                                              \
  {"v_" #name, Format::kAlu, OpClass::kAlu, vdst(D), vsrc(A), vsrc(B), vsrc(C), ImmKind::kNone, \
   true, MemSpace::kNone, 0, false, AtomicOp::kAdd},                                             \
      {"s_" #name, Format::kAlu, OpClass::kAlu, sdst(D), ssrc(A), ssrc(B), ssrc(C),              \
       ImmKind::kNone, false, MemSpace::kNone, 0, false, AtomicOp::kAdd},
#define GSGPU_LOAD(space, type, bytes, sign)                                                    \
  {#space "_load_" #type, Format::kAlu, OpClass::kLoad, vdst(bytes == 8 ? 64 : 32),             \
   address_kind(#space), K::kNone, base_kind(#space), ImmKind::kOffset, true, space_named(#space), \
   bytes, sign, AtomicOp::kAdd},
#define GSGPU_STORE(space, type, bytes)                                                        \
  {#space "_store_" #type, Format::kAlu, OpClass::kStore, K::kNone, address_kind(#space),      \
   vsrc(bytes == 8 ? 64 : 32), base_kind(#space), ImmKind::kOffset, true, space_named(#space),  \
   bytes, false, AtomicOp::kAdd},
#define GSGPU_ATOMIC(space, op_type, kind, bits)                                                  \
  {#space "_atomic_" #op_type, Format::kAlu, OpClass::kAtomic, vdst(bits), address_kind(#space),  \
   vsrc(bits), AtomicOp::kind == AtomicOp::kCmpxchg ? vsrc(bits) : base_kind(#space),             \
   ImmKind::kOffset, true, space_named(#space), bits / 8, false, AtomicOp::kind},
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm)                                   \
  {#name, Format::format, OpClass::kOther, K::dst, K::src0, K::src1, K::src2, ImmKind::imm,     \
   #name[0] == 'v', MemSpace::kNone, 0, false, AtomicOp::kAdd},
#include "gsgpu/isa/opcodes.def"
};
static_assert(std::size(kOpTable) == kOpcodeCount, "opcodes.def and the table disagree");
static_assert(kOpcodeCount <= 512, "the opcode field is 9 bits");

constexpr SpecialInfo kSpecialTable[] = {
    {"local_id_x", true, false},      {"local_id_y", true, false},
    {"local_id_z", true, false},      {"global_id_x", true, true},
    {"global_id_y", true, true},      {"global_id_z", true, true},
    {"lane_id", true, false},         {"group_id_x", false, false},
    {"group_id_y", false, false},     {"group_id_z", false, false},
    {"local_size_x", false, false},   {"local_size_y", false, false},
    {"local_size_z", false, false},   {"num_groups_x", false, false},
    {"num_groups_y", false, false},   {"num_groups_z", false, false},
    {"global_size_x", false, true},   {"global_size_y", false, true},
    {"global_size_z", false, true},   {"global_offset_x", false, true},
    {"global_offset_y", false, true}, {"global_offset_z", false, true},
    {"arg_ptr", false, true},         {"arg_size", false, false},
    {"local_mem_base", false, false}, {"local_mem_size", false, false},
    {"private_mem_base", false, false}, {"private_mem_size", false, false},
    {"warp_id", false, false},        {"warp_width", false, false},
};
static_assert(std::size(kSpecialTable) == static_cast<size_t>(SpecialReg::kCount));

constexpr const char* kImageQueryNames[] = {"width",         "height",    "depth",     "array_size",
                                            "channel_order", "data_type", "mip_levels"};
static_assert(std::size(kImageQueryNames) == static_cast<size_t>(ImageQueryWhat::kCount));

bool valid_special(int32_t imm) {
  return imm >= 0 && imm < static_cast<int32_t>(SpecialReg::kCount);
}

bool is_even_vpair(uint16_t code) { return is_vreg(code) && code % 2 == 0; }
// v[4n:4n+3]: vector operand codes start at 0 and kNumVectorRegs is a multiple of 4, so an aligned
// first register keeps the whole quad inside the file.
bool is_aligned_vquad(uint16_t code) { return is_vreg(code) && code % 4 == 0; }
static_assert(kNumVectorRegs % 4 == 0 && kVectorOperandBase == 0);
bool is_even_spair(uint16_t code) { return is_sreg(code) && (code - kScalarOperandBase) % 2 == 0; }

// Which register width a special-register destination needs; 0 when imm names no special.
unsigned special_width(const Instruction& inst) {
  if (!valid_special(inst.imm)) return 0;
  return special_info(static_cast<SpecialReg>(inst.imm)).wide ? 64 : 32;
}

std::string check_operand(const Instruction& inst, K kind, uint16_t code, const char* field) {
  bool ok = false;
  switch (kind) {
    case K::kNone: ok = code == 0; break;
    case K::kVDst32: case K::kVReg32: ok = is_vreg(code); break;
    case K::kVDst64: ok = is_even_vpair(code); break;
    case K::kSDst32: case K::kSReg32: ok = is_sreg(code); break;
    case K::kSDst64: ok = is_even_spair(code); break;
    case K::kVSrc32: ok = is_vreg(code) || is_sreg(code) || code == kLiteralOperand; break;
    case K::kVSrc64:
      ok = is_even_vpair(code) || is_even_spair(code) || code == kLiteralOperand;
      break;
    case K::kSSrc32: ok = is_sreg(code) || code == kLiteralOperand; break;
    case K::kSSrc64: ok = is_even_spair(code) || code == kLiteralOperand; break;
    case K::kVDstSpecial:
      ok = special_width(inst) == 64 ? is_even_vpair(code) : is_vreg(code);
      break;
    case K::kSDstSpecial:
      ok = special_width(inst) == 64 ? is_even_spair(code) : is_sreg(code);
      break;
    case K::kSBase64:
      if (code == kNoScalarBase || is_even_spair(code)) return "";
      return std::string(field) + " operand " + std::to_string(code) +
             " is not a scalar base (0 for none, or an even scalar pair s[2n:2n+1])";
    case K::kVDst128: case K::kVReg128:
      if (is_aligned_vquad(code)) return "";
      return std::string(field) + " operand " + std::to_string(code) +
             " is not a vector quad (v[4n:4n+3], starting at a multiple of 4)";
  }
  if (ok) return "";
  return std::string(field) + " operand " + std::to_string(code) + " is not valid here";
}

constexpr uint64_t field(uint64_t bits, unsigned shift, unsigned width) {
  return (bits >> shift) & ((uint64_t{1} << width) - 1);
}
constexpr int32_t sign_extend(uint64_t value, unsigned width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int32_t>(static_cast<int64_t>((value ^ sign) - sign));
}

std::string check_branch_offset(int32_t bytes, const char* what) {
  if (bytes % 4 != 0) return std::string(what) + " offset " + std::to_string(bytes) + " is not a multiple of 4";
  if (bytes < kMinBranchBytes || bytes > kMaxBranchBytes)
    return std::string(what) + " offset " + std::to_string(bytes) + " is out of range";
  return "";
}

}  // namespace

const OpInfo& op_info(Opcode op) { return kOpTable[static_cast<size_t>(op)]; }

bool immediate_range(ImmKind kind, int32_t* min, int32_t* max) {
  switch (kind) {
    case ImmKind::kOffset: *min = kMinOffset, *max = kMaxOffset; return true;
    case ImmKind::kVarying: *min = 0, *max = kMaxVaryingComponent; return true;
    case ImmKind::kExportSlot: *min = 0, *max = static_cast<int32_t>(ExportSlot::kCount) - 1; return true;
    case ImmKind::kQuadPerm: *min = 0, *max = 255; return true;
    case ImmKind::kVertexSlot: *min = 0, *max = kVertexSlotCount - 1; return true;
    case ImmKind::kTexelOffset: *min = 0, *max = (1 << kTexelOffsetBits) - 1; return true;
    default: return false;
  }
}

std::optional<Opcode> find_opcode(std::string_view mnemonic) {
  static const auto* by_name = [] {
    auto* map = new std::unordered_map<std::string_view, Opcode>();
    for (size_t i = 0; i < kOpcodeCount; ++i) map->emplace(kOpTable[i].mnemonic, static_cast<Opcode>(i));
    return map;
  }();
  auto it = by_name->find(mnemonic);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

const SpecialInfo& special_info(SpecialReg reg) { return kSpecialTable[static_cast<size_t>(reg)]; }

std::optional<SpecialReg> find_special(std::string_view name) {
  for (size_t i = 0; i < std::size(kSpecialTable); ++i)
    if (name == kSpecialTable[i].name) return static_cast<SpecialReg>(i);
  return std::nullopt;
}

const char* image_query_name(ImageQueryWhat what) { return kImageQueryNames[static_cast<size_t>(what)]; }

std::optional<ImageQueryWhat> find_image_query(std::string_view name) {
  for (size_t i = 0; i < std::size(kImageQueryNames); ++i)
    if (name == kImageQueryNames[i]) return static_cast<ImageQueryWhat>(i);
  return std::nullopt;
}

bool Instruction::has_literal() const {
  if (op_info(opcode).format == Format::kBranch) return false;
  return dst == kLiteralOperand || src[0] == kLiteralOperand || src[1] == kLiteralOperand ||
         src[2] == kLiteralOperand;
}

bool Instruction::operator==(const Instruction& o) const {
  return opcode == o.opcode && dst == o.dst && src[0] == o.src[0] && src[1] == o.src[1] &&
         src[2] == o.src[2] && imm == o.imm && target == o.target && reconverge == o.reconverge &&
         literal == o.literal;
}

unsigned operand_width(const Instruction& inst, OperandKind kind) {
  switch (kind) {
    case K::kNone: return 0;
    case K::kVDst64: case K::kSDst64: case K::kVSrc64: case K::kSSrc64: return 64;
    case K::kVDstSpecial: case K::kSDstSpecial: return special_width(inst);
    case K::kSBase64: return inst.src[2] == kNoScalarBase ? 0 : 64;
    case K::kVDst128: case K::kVReg128: return 128;
    default: return 32;
  }
}

uint16_t scalar_base(const Instruction& inst) {
  if (static_cast<size_t>(inst.opcode) >= kOpcodeCount || op_info(inst.opcode).src2 != K::kSBase64) return kNoScalarBase;
  return inst.src[2];
}

std::string validate(const Instruction& inst) {
  if (static_cast<size_t>(inst.opcode) >= kOpcodeCount) return "unknown opcode";
  const OpInfo& info = op_info(inst.opcode);
  const std::string where = std::string(info.mnemonic) + ": ";
  if (info.format == Format::kBranch) {
    if (inst.dst != 0 || inst.src[1] != 0 || inst.src[2] != 0 || inst.imm != 0)
      return where + "unused fields must be zero";
    if (auto e = check_operand(inst, info.src0, inst.src[0], "condition"); !e.empty()) return where + e;
    if (auto e = check_branch_offset(inst.target, "target"); !e.empty()) return where + e;
    if (info.imm == ImmKind::kTargetReconverge) {
      if (auto e = check_branch_offset(inst.reconverge, "reconvergence"); !e.empty()) return where + e;
    } else if (inst.reconverge != 0) {
      return where + "no reconvergence point expected";
    }
    if (inst.literal != 0) return where + "branches take no literal";
    return "";
  }
  if (inst.target != 0 || inst.reconverge != 0) return where + "not a branch";
  if (info.imm == ImmKind::kSpecial && !valid_special(inst.imm))
    return where + "unknown special register " + std::to_string(inst.imm);
  if (info.imm == ImmKind::kSpecial && info.dst == K::kSDstSpecial &&
      special_info(static_cast<SpecialReg>(inst.imm)).per_lane)
    return where + "a per-lane special register needs v_special";
  if (info.imm == ImmKind::kOffset && (inst.imm < kMinOffset || inst.imm > kMaxOffset))
    return where + "offset " + std::to_string(inst.imm) + " does not fit in 19 bits";
  if (info.imm == ImmKind::kImageQuery &&
      (inst.imm < 0 || inst.imm >= static_cast<int32_t>(ImageQueryWhat::kCount)))
    return where + "unknown image query " + std::to_string(inst.imm);
  if (int32_t lo, hi; info.imm != ImmKind::kOffset && immediate_range(info.imm, &lo, &hi) &&
                      (inst.imm < lo || inst.imm > hi))
    return where + "immediate " + std::to_string(inst.imm) + " is outside " + std::to_string(lo) + " .. " +
           std::to_string(hi);
  if (info.imm == ImmKind::kNone && inst.imm != 0) return where + "takes no immediate";
  if (auto e = check_operand(inst, info.dst, inst.dst, "destination"); !e.empty()) return where + e;
  const K src_kinds[3] = {info.src0, info.src1, info.src2};
  for (int i = 0; i < 3; ++i) {
    const char* names[] = {"source 0", "source 1", "source 2"};
    if (auto e = check_operand(inst, src_kinds[i], inst.src[i], names[i]); !e.empty()) return where + e;
  }
  if (!inst.has_literal() && inst.literal != 0) return where + "literal given but no operand uses it";
  return "";
}

bool encode(const Instruction& inst, std::vector<uint32_t>* out, std::string* error) {
  if (std::string e = validate(inst); !e.empty()) {
    if (error) *error = e;
    return false;
  }
  const OpInfo& info = op_info(inst.opcode);
  uint64_t bits = static_cast<uint64_t>(inst.opcode);
  if (info.format == Format::kBranch) {
    bits |= uint64_t{inst.src[0]} << 9;
    bits |= (static_cast<uint64_t>(inst.target / 4) & 0x7fffff) << 18;
    bits |= (static_cast<uint64_t>(inst.reconverge / 4) & 0x7fffff) << 41;
  } else {
    bits |= uint64_t{inst.dst} << 9;
    bits |= uint64_t{inst.src[0]} << 18;
    bits |= uint64_t{inst.src[1]} << 27;
    bits |= uint64_t{inst.src[2]} << 36;
    bits |= (static_cast<uint64_t>(static_cast<uint32_t>(inst.imm)) & 0x7ffff) << 45;
  }
  out->push_back(static_cast<uint32_t>(bits));
  out->push_back(static_cast<uint32_t>(bits >> 32));
  if (inst.has_literal()) out->push_back(inst.literal);
  return true;
}

bool decode(const uint32_t* words, size_t count, Instruction* out, size_t* words_used,
            std::string* error) {
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (count < 2) return fail("truncated instruction: needs two words");
  const uint64_t bits = uint64_t{words[0]} | (uint64_t{words[1]} << 32);
  const uint64_t opcode = field(bits, 0, 9);
  if (opcode >= kOpcodeCount) return fail("unknown opcode " + std::to_string(opcode));
  Instruction inst;
  inst.opcode = static_cast<Opcode>(opcode);
  if (op_info(inst.opcode).format == Format::kBranch) {
    inst.src[0] = static_cast<uint16_t>(field(bits, 9, 9));
    inst.target = sign_extend(field(bits, 18, 23), 23) * 4;
    inst.reconverge = sign_extend(field(bits, 41, 23), 23) * 4;
  } else {
    inst.dst = static_cast<uint16_t>(field(bits, 9, 9));
    inst.src[0] = static_cast<uint16_t>(field(bits, 18, 9));
    inst.src[1] = static_cast<uint16_t>(field(bits, 27, 9));
    inst.src[2] = static_cast<uint16_t>(field(bits, 36, 9));
    inst.imm = sign_extend(field(bits, 45, 19), 19);
  }
  size_t used = 2;
  if (inst.has_literal()) {
    if (count < 3) return fail("truncated instruction: literal word missing");
    inst.literal = words[2];
    used = 3;
  }
  if (std::string e = validate(inst); !e.empty()) return fail(e);
  *out = inst;
  *words_used = used;
  return true;
}

}  // namespace gsgpu::isa
